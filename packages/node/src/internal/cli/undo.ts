/** `mneme undo [N]`: reverts the latest changes to the agent's own or the team's memory, from the journal. */
import { MemoryEdit, MemoryScope } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import * as Txt from "../text.ts"
import { mneme, output, print, printJson, teamFlag, UsageError, withMemory } from "./common.ts"

export const undo = Command.make(
  "undo",
  {
    count: Argument.Int("N").pipe(
      Argument.withDescription("How many of the latest changes to revert, newest first (1 by default)"),
      Argument.withDefault(1)
    ),
    team: teamFlag
  },
  Effect.fn("mneme.undo")(function* (input) {
    const global = yield* mneme
    const out = yield* output
    if (input.count < 1) return yield* new UsageError({ reason: `undo takes 1 or more changes, not ${input.count}` })
    const store = yield* MemoryStore.MemoryStore
    const scope = input.team ? MemoryScope.team : MemoryScope.own(global.agent)
    // Nothing to undo is known from the journal alone, without taking the writer (which makes a missing root).
    const pending = MemoryEdit.undoable(yield* store.journal({ scope })).length > 0
    const outcomes = pending ? yield* store.undo({ scope, count: input.count, actor: "cli" }) : []
    if (out.json) return yield* printJson({ asked: input.count, undone: outcomes })
    const p = out.paint
    const where = input.team ? "team memory" : `the own memory of agent ${JSON.stringify(global.agent)}`
    const lines = outcomes.map((outcome) => outcome.message)
    if (outcomes.length === 0) {
      lines.push(p.dim(`nothing to undo: the journal holds no change to ${where} that is not undone already`))
    } else if (outcomes.length < input.count) {
      lines.push(
        p.dim(
          `only ${Txt.plural(outcomes.length, "change", "changes")} of the ${Txt.count(input.count)} asked for: ` +
            `the journal holds no earlier change to ${where} that is not undone already`
        )
      )
    }
    yield* print(lines)
  }, withMemory)
).pipe(
  Command.withDescription(
    "Revert the last N changes to the agent's own memory, or to team memory with --team; " +
      "nothing changes if a file no longer holds what the journal says a change wrote"
  )
)
