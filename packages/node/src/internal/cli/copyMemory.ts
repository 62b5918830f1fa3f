/**
 * Memory copied from one storage port to another, for `mneme export` and `mneme import`: every agent's files and the
 * team's, the journal (its lines in order, as they were written: ids, times and all), the review state and each
 * scope's entries waiting for a person (as they are, with no second `hold` line: the journal carries theirs), all
 * through the port, so either backend is the source or the target. A target that already holds memory is refused.
 *
 * Archived agents are not copied (the port does not list them), nor the conversation logs of the MCP server.
 */
import { MaskedTaggedError, MemoryFile, MemoryScope } from "@mneme/core"
import { MemoryPending, MemoryRoot } from "@mneme/review"
import { Context, Effect, Layer, Schema } from "effect"
import * as Txt from "../text.ts"
import * as MemoryLocation from "./memoryLocation.ts"

/** The target of a copy already holds memory: nothing was copied. */
export class HoldsMemory extends MaskedTaggedError<HoldsMemory>()("HoldsMemory", {
  root: Schema.String,
  holds: Schema.String,
  instead: Schema.String
}) {
  override get message() {
    return `${this.root} already holds memory (${this.holds}): nothing was written to it. ${this.instead}`
  }
}

/** What a copy moved. */
export interface Copied {
  readonly agents: number
  readonly files: number
  readonly journalLines: number
  /** The entries waiting for a person, over every scope. */
  readonly pending: number
  /** The agents' folders left out: their agent is not known (a folder of unknown origin). */
  readonly leftOut: ReadonlyArray<string>
}

type Root = MemoryRoot.MemoryRoot["Service"]

/** A memory root, and the entries waiting for a person kept in it. */
export interface Memory {
  readonly root: Root
  readonly pending: MemoryPending.MemoryPending["Service"]
}

/** How many journal lines one commit appends: a long journal is appended in several, in order. */
const linesPerCommit = 1000

/** The storage port over `location`, for the scope the command runs in. */
export const open = (location: MemoryLocation.Location) =>
  Effect.map(Layer.build(MemoryLocation.rootLayer(location)), (context): Memory => ({
    root: Context.get(context, MemoryRoot.MemoryRoot),
    pending: Context.get(context, MemoryPending.MemoryPending)
  }))

/** The scopes of `root`: the team's, then each agent's whose folder records its id (the others, left out). */
const scopesOf = Effect.fnUntraced(function* (root: Root) {
  const scopes: Array<MemoryScope.MemoryScope> = [MemoryScope.team]
  const leftOut: Array<string> = []
  for (const folder of yield* root.agents) {
    if (folder.agentId === undefined) leftOut.push(folder.dir)
    else scopes.push(MemoryScope.own(folder.agentId))
  }
  return { scopes, leftOut }
})

/**
 * What `memory` holds, in words (`undefined` when it holds nothing: no agent, no team file, no journal, no state, no
 * entry waiting for a person).
 */
export const holdings = Effect.fnUntraced(function* ({ pending, root }: Memory) {
  const agents = (yield* root.agents).length
  const teamFiles = (yield* root.read(MemoryScope.team)).files.filter((file) => file.exists).length
  const journalLines = (yield* root.journal({ limit: 1 })).length
  const state = yield* root.readState
  const reviewed =
    Object.keys(state.cursors).length +
      Object.keys(state.failures).length +
      Object.keys(state.lastReviews).length +
      Object.keys(state.dropped ?? {}).length >
    0
  const { scopes } = yield* scopesOf(root)
  const waiting = (yield* Effect.forEach(scopes, (scope) => pending.list(scope))).flat().length
  const parts = [
    ...(agents > 0 ? [Txt.plural(agents, "agent", "agents")] : []),
    ...(teamFiles > 0 ? [Txt.plural(teamFiles, "team file", "team files")] : []),
    ...(journalLines > 0 ? ["a journal"] : []),
    ...(reviewed ? ["a review state"] : []),
    ...(waiting > 0 ? [Txt.plural(waiting, "entry waiting for a person", "entries waiting for a person")] : [])
  ]
  return parts.length === 0 ? undefined : parts.join(", ")
})

/** Copies the memory of `source` into `target`, which must hold none (else `HoldsMemory`, with `instead`). */
export const copy = Effect.fnUntraced(function* (from: Memory, into: Memory, instead: string) {
  const holds = yield* holdings(into)
  if (holds !== undefined) return yield* new HoldsMemory({ root: into.root.root, holds, instead })
  const source = from.root
  const target = into.root
  const { leftOut, scopes } = yield* scopesOf(source)
  const stored = yield* Effect.forEach(scopes, (scope) => source.read(scope))
  // A file that cannot be read is not left behind in silence: the copy stops before writing anything.
  const unreadable = stored.flatMap((scope) => scope.unreadable)
  if (unreadable[0] !== undefined) return yield* Effect.fail(unreadable[0].error)
  const journal = yield* source.journal()
  const state = yield* source.readState
  const waiting = yield* Effect.forEach(scopes, (scope) => from.pending.list(scope))
  const files = yield* target.write((writer) =>
    Effect.gen(function* () {
      const writes: Array<MemoryRoot.FileWrite> = []
      for (const scope of stored) {
        // Read first, as every writer does: the target records whose folder it is, and names it its own way.
        const there = yield* writer.read(scope.scope)
        for (const file of scope.files) {
          if (!file.exists) continue
          const name = file.file.slice(file.file.lastIndexOf("/") + 1)
          writes.push({ file: `${there.dir}/${name}`, content: MemoryFile.render(file.parsed.lines) })
        }
      }
      // The lines as they are: a record that carries its version, id and time keeps them.
      const records: ReadonlyArray<MemoryRoot.JournalRecord> = journal
      yield* writer.commit(writes, records.slice(0, linesPerCommit))
      for (let start = linesPerCommit; start < records.length; start += linesPerCommit) {
        yield* writer.commit([], records.slice(start, start + linesPerCommit))
      }
      return writes.length
    })
  )
  yield* target.updateState(() => state)
  yield* Effect.forEach(scopes, (scope, i) => into.pending.restore(scope, waiting[i]!), { discard: true })
  return {
    agents: scopes.length - 1,
    files,
    journalLines: journal.length,
    pending: waiting.flat().length,
    leftOut
  } satisfies Copied
})
