/**
 * `mneme journal`: the latest changes to the memory an agent reads (its own and the team's, like `recall` and
 * `show`), to team memory only, or to the whole root; oldest first.
 */
import { MemoryScope } from "@mneme/core"
import { type MemoryRoot, MemoryStore } from "@mneme/review"
import { Effect, References } from "effect"
import { Command, Flag } from "effect/cli"
import * as Txt from "../text.ts"
import { mneme, output, print, printJson, switchFlag, UsageError, withMemoryToRead } from "./common.ts"

/** Whether two journal lines are the same change to the same line (a line read through a scope may be renamed). */
const sameLine = (a: MemoryRoot.JournalLine, b: MemoryRoot.JournalLine) =>
  a.id === b.id &&
  a.time === b.time &&
  a.op === b.op &&
  a.actor === b.actor &&
  a.before === b.before &&
  a.after === b.after &&
  a.undoes === b.undoes

/**
 * The lines of several scopes in journal order: `all` is every line, and each of `scopes` the lines of one scope as
 * the store reads them (in journal order, a folder of the earlier naming given its current name).
 */
const inOrder = (
  all: ReadonlyArray<MemoryRoot.JournalLine>,
  scopes: ReadonlyArray<ReadonlyArray<MemoryRoot.JournalLine>>
): Array<MemoryRoot.JournalLine> => {
  const lines: Array<MemoryRoot.JournalLine> = []
  const next = scopes.map(() => 0)
  for (const line of all) {
    for (const [i, scope] of scopes.entries()) {
      const candidate = scope[next[i]!]
      if (candidate !== undefined && sameLine(line, candidate)) {
        lines.push(candidate)
        next[i] = next[i]! + 1
        break
      }
    }
  }
  return lines
}

/**
 * `effect` with its log lines left out: a read of the journal again, in the same run, whose warnings (a damaged or a
 * torn line) the first read has given already.
 */
const quietly = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, References.MinimumLogLevel, "None")

/** What `journal` was asked for: how many changes, and of which memory. */
interface JournalInput {
  readonly limit: number
  readonly team: boolean
  readonly all: boolean
}

/** Prints the latest changes `input` asks for, from the memory of `--memory`. */
const showJournal = Effect.fnUntraced(function* (input: JournalInput) {
  const global = yield* mneme
  const out = yield* output
  const store = yield* MemoryStore.MemoryStore
  const lines = input.all
    ? yield* store.journal({ limit: input.limit })
    : input.team
      ? yield* store.journal({ limit: input.limit, scope: MemoryScope.team })
      : inOrder(yield* store.journal(), [
          yield* quietly(store.journal({ scope: MemoryScope.own(global.agent) })),
          yield* quietly(store.journal({ scope: MemoryScope.team }))
        ]).slice(-input.limit)
  if (out.json) return yield* printJson({ journal: lines })
  const p = out.paint
  if (lines.length === 0) {
    const of = input.all
      ? ""
      : input.team
        ? " to team memory"
        : ` to the own memory of agent ${JSON.stringify(global.agent)} or to team memory`
    return yield* print([p.dim(`the journal holds no change${of}`)])
  }
  const rows: Array<string> = []
  for (const line of lines) {
    rows.push(
      `${p.dim(Txt.time(line.time))}  ${Txt.pad(line.op, 7)}  ${line.file}  ${p.dim(
        `by ${line.actor}${line.auto === true ? " (auto)" : ""}`
      )}`
    )
    if (line.entries !== undefined)
      rows.push(p.dim(`    ${line.entries} entr${line.entries === 1 ? "y" : "ies"} purged`))
    if (line.purged === true) rows.push(p.dim("    (its text was purged)"))
    if (line.before !== undefined) rows.push(p.red(`    - ${line.before}`))
    if (line.after !== undefined) rows.push(p.green(`    + ${line.after}`))
  }
  yield* print(rows)
})

export const journal = Command.make(
  "journal",
  {
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("How many of the latest changes to show"),
      Flag.withMetavar("N"),
      Flag.withDefault(20)
    ),
    team: switchFlag("team", "Only the changes to team memory"),
    all: switchFlag("all", "The changes to every agent's memory and the team's")
  },
  Effect.fn("mneme.journal")(function* (input) {
    // A usage error is said before memory is looked at.
    if (input.limit < 1) return yield* new UsageError({ reason: `--limit must be 1 or more, not ${input.limit}` })
    if (input.team && input.all) return yield* new UsageError({ reason: "--team and --all cannot be used together" })
    return yield* withMemoryToRead(showJournal(input))
  })
).pipe(
  Command.withDescription(
    "Show the latest changes, oldest first, to the agent's own memory (--agent) and the team's; " +
      "only the team's with --team, every agent's with --all"
  )
)
