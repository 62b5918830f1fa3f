/**
 * `mneme panel`: serves the memory panel, a local web page to see and correct a memory root (its agents, their
 * memory against the limits, the last review and why it failed, the journal with undo, "ask or change" in plain words
 * with a preview), until stopped. It listens on 127.0.0.1 unless `--host` says otherwise, prints its address and a
 * link with a random access token, and opens nothing by itself.
 *
 * The server itself is `panelServer.ts`, loaded when the command runs.
 */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { textFlag } from "./common.ts"

export const panel = Command.make(
  "panel",
  {
    port: Flag.Int("port").pipe(
      Flag.withDescription("The port to listen on (default 0: any free port)"),
      Flag.withMetavar("N"),
      Flag.withDefault(0)
    ),
    host: textFlag("host").pipe(
      Flag.withDescription(
        "The address to listen on (default 127.0.0.1, this machine only; another address lets other machines reach it)"
      ),
      Flag.withMetavar("H"),
      Flag.withDefault("127.0.0.1")
    ),
    model: textFlag("model").pipe(
      Flag.withDescription(
        "The model of the ask box, the summary and review now: replay:FILE for recorded answers, or an " +
          "OpenAI-compatible server URL (default: MNEME_BASE_URL; none: the panel says how to configure one)"
      ),
      Flag.optional
    ),
    transcripts: textFlag("transcripts").pipe(
      Flag.withDescription(
        "A folder of the JSONL transcripts mneme review read, so their conversations can be reviewed from the panel"
      ),
      Flag.withMetavar("DIR"),
      Flag.optional
    )
  },
  (input) =>
    Effect.flatMap(
      Effect.promise(() => import("./panelServer.ts")),
      (server) => server.serve(input)
    )
).pipe(
  Command.withDescription(
    "Serve the memory panel, a local web page to see and change memory, until stopped: it prints a link with an " +
      "access token and opens nothing by itself"
  )
)
