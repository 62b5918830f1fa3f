/**
 * `mneme consolidate [--dry-run]`: a consolidation pass over the agent's own MEMORY.md (or the team's), by hand: the
 * model is shown the whole file and asked to merge, remove what is stale and move detail into topics; what it removed,
 * merged and moved is printed, and journaled as one change `undo` reverts. `--dry-run` asks and prints, writing
 * nothing.
 */
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { MemoryConsolidation } from "@mneme/review"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Txt from "../text.ts"
import { mneme, output, print, printJson, switchFlag, teamFlag, textFlag, withMemory } from "./common.ts"
import { chooseModel } from "./model.ts"

/** What a consolidation did, for people, one line per entry it removed, merged or moved. */
const describe = (result: MemoryConsolidation.Result, limit: number): ReadonlyArray<string> => {
  switch (result._tag) {
    case "PastSize":
      return [
        `nothing consolidated: ${result.file} is past its size (${Txt.size(result.size, limit)}, edited by hand); trim it by hand`
      ]
    case "NotDue":
      return [`nothing consolidated: ${result.file} was consolidated less than the interval ago`]
    case "Consolidated": {
      if (result.modelCalls === 0) return [`nothing to consolidate: ${result.file} holds no entry`]
      const verb = result.dryRun ? "would consolidate" : "consolidated"
      return [
        `${verb} ${result.file}: ${Txt.size(result.before, limit)} → ${Txt.size(result.after, limit)}`,
        ...result.removed.map((entry) => `  - removed ${JSON.stringify(entry.text)}`),
        ...result.edited.map((entry) => `  ~ ${JSON.stringify(entry.before)} is now ${JSON.stringify(entry.text)}`),
        ...result.moved.map((entry) => `  > moved ${JSON.stringify(entry.text)} to the topic ${entry.topic}`),
        ...result.added.map(
          (entry) => `  + added ${JSON.stringify(entry.text)}${entry.topic === undefined ? "" : ` to ${entry.topic}`}`
        ),
        ...result.leftOut.map((entry) => `  ! left out ${JSON.stringify(entry.text)}: ${entry.problem}`),
        ...result.skipped.map((why) => `  ! not done: ${why}`),
        ...(result.dryRun ? ["nothing was written (--dry-run)"] : [])
      ]
    }
  }
}

export const consolidate = Command.make(
  "consolidate",
  {
    model: textFlag("model").pipe(
      Flag.withDescription(
        "replay:FILE for recorded answers, or an OpenAI-compatible server URL (default: MNEME_BASE_URL)"
      ),
      Flag.optional
    ),
    team: teamFlag,
    dryRun: switchFlag("dry-run", "Show what the consolidation would change without writing it")
  },
  Effect.fn("mneme.consolidate")(function* (input) {
    const global = yield* mneme
    const out = yield* output
    const model = yield* chooseModel(input.model)
    const scope = input.team ? MemoryScope.team : MemoryScope.own(global.agent)
    const result = yield* MemoryConsolidation.byHand(scope, { dryRun: input.dryRun, actor: "cli" }).pipe(
      Effect.provide(model)
    )
    if (out.json) return yield* printJson(result)
    yield* print(describe(result, (yield* MemoryConfig.MemoryConfig).memoryMax))
  }, withMemory)
).pipe(
  Command.withDescription(
    "Make room in the agent's MEMORY.md (or the team's with --team): the model merges entries that say the same " +
      "thing, removes what is stale and moves detail into topics; undo reverts it as one change"
  )
)
