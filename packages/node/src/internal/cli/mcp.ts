/**
 * `mneme mcp`: mneme's memory for any MCP client (`MemoryMcp`), served over stdio (the default: the client launches
 * the command and talks on its standard input and output) or streamable HTTP at `/mcp` (`--http HOST:PORT`, loopback
 * unless `--allow-remote`, which needs a bearer token from MNEME_MCP_TOKEN; a request must be addressed to the served
 * address or a name of `--allow-host`). The review's model is chosen as `mneme review` chooses it; without one the
 * lines `review_turn` gets are kept, and no review runs. Memory is the folder or the Postgres database of `--memory`;
 * the conversation logs are kept in the memory folder, or, with Postgres, in the folder `--logs` names (they are files
 * a review reads from its end).
 *
 * Over stdio the server runs until the client closes (the end of standard input), and exits 0; over HTTP it runs until
 * it is stopped, serving one client session after another, and ends each session idle for `--session-idle` seconds.
 * SIGINT or SIGTERM stop either (exit 130). On the way out it takes no more requests and lets the reviews still
 * waiting finish within `--grace` seconds (a second signal stops the wait). Standard output is the protocol's alone:
 * every line for people, and every log line, goes to stderr.
 *
 * The server itself is `mcpServer.ts`, loaded when the command runs.
 */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { switchFlag, textFlag } from "./common.ts"

export const mcp = Command.make(
  "mcp",
  {
    http: textFlag("http").pipe(
      Flag.withDescription("Serve streamable HTTP at /mcp on HOST:PORT (loopback unless --allow-remote)"),
      Flag.withMetavar("HOST:PORT"),
      Flag.optional
    ),
    allowRemote: switchFlag(
      "allow-remote",
      "With --http, listen on an address other than this machine's own; requests then need the bearer token of MNEME_MCP_TOKEN"
    ),
    allowHost: textFlag("allow-host").pipe(
      Flag.withDescription(
        "With --http, a host name requests may also be addressed to (a name on any port, or NAME:PORT; repeatable): " +
          "the name of this machine or of a proxy in front of it. Requests for any other name get 403"
      ),
      Flag.withMetavar("NAME"),
      Flag.atLeast(0)
    ),
    model: textFlag("model").pipe(
      Flag.withDescription(
        "The model of the background review: replay:FILE for recorded answers, or an OpenAI-compatible server URL (default: MNEME_BASE_URL; none: no review)"
      ),
      Flag.optional
    ),
    logs: textFlag("logs").pipe(
      Flag.withDescription(
        "With --memory postgres://…, the folder where the conversation logs of review_turn are kept (in DIR/conversations/)"
      ),
      Flag.withMetavar("DIR"),
      Flag.optional
    ),
    grace: Flag.Int("grace").pipe(
      Flag.withDescription(
        "When the client closes or the server is stopped, how long the reviews still waiting may take to finish"
      ),
      Flag.withMetavar("SECONDS"),
      Flag.withDefault(30)
    ),
    sessionIdle: Flag.Int("session-idle").pipe(
      Flag.withDescription(
        "With --http, end a session that has sent no request for this long (its client then starts a new one): " +
          "1800 (half an hour) by default, 0 for never"
      ),
      Flag.withMetavar("SECONDS"),
      Flag.withDefault(1800)
    )
  },
  (input) =>
    Effect.flatMap(
      Effect.promise(() => import("./mcpServer.ts")),
      (server) => server.serve(input)
    )
).pipe(
  Command.withDescription(
    "Serve the agent's memory to an MCP client (Claude Desktop, Claude Code, Cursor…): the tools remember, forget, " +
      "recall, show and review_turn, the memory files as resources, the memory-context prompt. Over standard input " +
      "and output, or streamable HTTP with --http; reviews run in the background with the model of --model or the " +
      "environment."
  )
)
