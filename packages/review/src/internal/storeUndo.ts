/**
 * Undo as the memory store makes it: the journaled changes of a scope to revert (its last ones, or one by its id),
 * each planned by `MemoryEdit.undo` against what the earlier left, and the files and the undo's journal lines written in
 * one commit under the writer.
 */
import { type MemoryConfig, MemoryEdit, type MemoryScope } from "@mneme/core"
import { Effect } from "effect"
import type { Actor, MemoryRoot } from "../MemoryRoot.ts"

/** What `undo` takes: the scope, and the last `count` changes of it (1 when neither is given) or the change `id`. */
export interface UndoInput extends Actor {
  readonly scope: MemoryScope.MemoryScope
  readonly count?: number | undefined
  readonly id?: string | undefined
}

/** Reverts the changes `input` names under `root`'s writer, and journals the undo; each reverted change's outcome. */
export const undoIn = (root: MemoryRoot["Service"], settings: MemoryConfig.Settings, input: UndoInput) => {
  const actor: Actor = input.auto === undefined ? { actor: input.actor } : { actor: input.actor, auto: input.auto }
  return root.write((writer) =>
    Effect.gen(function* () {
      const stored = yield* writer.read(input.scope)
      const lines = yield* root.journal({ scope: input.scope })
      const count = input.count ?? 1
      const changes =
        input.id !== undefined
          ? [yield* Effect.fromResult(MemoryEdit.changeWithId(lines, input.id, stored.dir))]
          : count <= 0
            ? []
            : MemoryEdit.undoable(lines).slice(-count).toReversed()
      const outcomes: Array<MemoryEdit.Outcome> = []
      let draft = MemoryEdit.start([stored])
      for (const change of changes) {
        const planned = MemoryEdit.undo(draft, change, actor, { settings })
        const { draft: next, outcome } = yield* Effect.fromResult(planned)
        draft = next
        outcomes.push(outcome)
      }
      if (draft.writes.length > 0) yield* writer.commit(draft.writes, draft.journal)
      return outcomes
    })
  )
}
