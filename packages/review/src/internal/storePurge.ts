/**
 * Purge as the memory store makes it (forgetting that erases): the entries to remove — the one a match names, or every
 * entry whose sources all lie in a conversation — planned as removes, their text erased from the journal's history
 * first, then the files and one `purge` journal line per scope, and the review state, in one unit of work.
 */
import { type BadTopic, type Denied, Entry, MemoryEdit, MemoryScope, type NoMatch } from "@mneme/core"
import { Effect, Result } from "effect"
import type { Actor, MemoryRoot, ReviewStateDocument, StoredScope } from "../MemoryRoot.ts"
import * as Purge from "../Purge.ts"
import { settled } from "./storeApply.ts"

/**
 * What `purge` takes: the entry `match` names in a scope (and topic), as `remove` names it; or every entry of the root
 * whose sources all lie in the conversation `conversation`.
 */
export type PurgeInput = Actor &
  (
    | {
        readonly scope: MemoryScope.MemoryScope
        readonly topic?: string | undefined
        readonly match: string
        readonly exact?: boolean | undefined
      }
    | { readonly conversation: string }
  )

/** What a purge did: how many entries it removed, from which files, and how many journal lines it erased. */
export interface PurgeOutcome {
  readonly entries: number
  readonly files: ReadonlyArray<string>
  readonly erased: number
  readonly message: string
}

/** The removes a purge plans over the scopes `read`: each distinct entry text from the conversation, or the match. */
const removesOf = (
  input: PurgeInput,
  read: ReadonlyArray<StoredScope>,
  actor: Actor
): ReadonlyArray<MemoryEdit.Change> =>
  "conversation" in input
    ? read.flatMap((stored) =>
        stored.files.flatMap((file) =>
          [
            ...new Set(
              file.parsed.entries
                .filter((entry) => Purge.fromConversation(entry, input.conversation))
                .map((entry) => entry.text)
            )
          ].map((text): MemoryEdit.Change => ({
            op: "remove",
            scope: stored.scope,
            topic: file.topic,
            match: text,
            exact: true,
            ...actor
          }))
        )
      )
    : [{ op: "remove", scope: input.scope, topic: input.topic, match: input.match, exact: input.exact, ...actor }]

/** Purges what `input` names from `root`, with the dates of `context`; what it did. */
export const purgeIn = Effect.fnUntraced(function* (
  root: MemoryRoot["Service"],
  context: MemoryEdit.EditSettings,
  input: PurgeInput
) {
  const actor: Actor = input.auto === undefined ? { actor: input.actor } : { actor: input.actor, auto: input.auto }
  const scopes =
    "conversation" in input
      ? [
          MemoryScope.team,
          ...(yield* root.agents).flatMap(({ agentId }) => (agentId === undefined ? [] : [MemoryScope.own(agentId)]))
        ]
      : [input.scope]
  // One unit of work: the files, the purge's journal lines and the erased review state land together.
  return yield* root.transaction(
    root.write((writer) =>
      Effect.gen(function* () {
        const read = yield* Effect.forEach(scopes, (scope) => writer.read(scope), { concurrency: "unbounded" })
        const prepared = removesOf(input, read, actor).map((change) => MemoryEdit.prepare(change, context))
        const { draft, results } = yield* settled(MemoryEdit.planAll(MemoryEdit.start(read), prepared))
        const removed: Array<MemoryEdit.Outcome> = []
        for (const result of results) {
          if (Result.isSuccess(result)) removed.push(result.success)
          else if (!("conversation" in input)) return yield* Effect.fail(result.failure as NoMatch | Denied | BadTopic)
        }
        const texts = removed.map((outcome) => Entry.clean(outcome.before ?? ""))
        const files = [...new Set(removed.map((outcome) => outcome.file))]
        if (removed.length === 0) {
          const message = `purged nothing: no entry's sources all lie in ${JSON.stringify("conversation" in input ? input.conversation : "")}`
          return { entries: 0, files, erased: 0, message } satisfies PurgeOutcome
        }
        // The history first: a purge stopped after it leaves the entries in place, and can be made again.
        const erased = yield* writer.erase(texts)
        const dirs = read.filter((stored) => removed.some((outcome) => MemoryScope.equals(outcome.scope, stored.scope)))
        yield* writer.commit(
          draft.writes,
          dirs.map(({ dir, scope }) => ({
            op: "purge" as const,
            scope: dir,
            file: dir,
            ...actor,
            entries: removed.filter((outcome) => MemoryScope.equals(outcome.scope, scope)).length
          }))
        )
        yield* root.updateState((state: ReviewStateDocument) => Purge.eraseState(state, texts))
        const count = removed.length
        const message = `purged ${count} entr${count === 1 ? "y" : "ies"} from ${files.join(", ")}: the text is gone from memory, the journal (${erased} line${erased === 1 ? "" : "s"} erased) and the review state, and cannot be undone`
        return { entries: count, files, erased, message } satisfies PurgeOutcome
      })
    )
  )
})
