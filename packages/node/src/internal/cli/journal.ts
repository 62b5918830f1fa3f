/** `mneme journal`: the latest changes to memory, oldest first. */
import { MemoryStore } from "@mneme/review"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Txt from "../text.ts"
import { output, print, printJson, UsageError, withMemory } from "./common.ts"

export const journal = Command.make(
  "journal",
  {
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("How many of the latest changes to show"),
      Flag.withMetavar("N"),
      Flag.withDefault(20)
    )
  },
  Effect.fn("mneme.journal")(function* (input) {
    const out = yield* output
    if (input.limit < 1) return yield* new UsageError({ reason: `--limit must be 1 or more, not ${input.limit}` })
    const store = yield* MemoryStore.MemoryStore
    const lines = yield* store.journal({ limit: input.limit })
    if (out.json) return yield* printJson({ journal: lines })
    const p = out.paint
    if (lines.length === 0) return yield* print([p.dim("the journal is empty")])
    const rows: Array<string> = []
    for (const line of lines) {
      rows.push(
        `${p.dim(Txt.time(line.time))}  ${Txt.pad(line.op, 7)}  ${line.file}  ${p.dim(
          `by ${line.actor}${line.auto === true ? " (auto)" : ""}`
        )}`
      )
      if (line.before !== undefined) rows.push(p.red(`    - ${line.before}`))
      if (line.after !== undefined) rows.push(p.green(`    + ${line.after}`))
    }
    yield* print(rows)
  }, withMemory)
).pipe(Command.withDescription("Show the latest changes to memory, oldest first"))
