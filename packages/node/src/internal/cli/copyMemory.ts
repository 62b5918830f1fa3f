/**
 * Memory copied from one storage port to another, for `mneme export` and `mneme import`: every agent's files and the
 * team's, the journal (its lines in order, as they were written: ids, times and all) and the review state, all
 * through the port, so either backend is the source or the target. A target that already holds memory is refused.
 *
 * Archived agents are not copied (the port does not list them), nor the conversation logs of the MCP server.
 */
import { MaskedTaggedError, MemoryFile, MemoryScope } from "@mneme/core"
import { MemoryRoot } from "@mneme/review"
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
  /** The agents' folders left out: their agent is not known (a folder of unknown origin). */
  readonly leftOut: ReadonlyArray<string>
}

type Root = MemoryRoot.MemoryRoot["Service"]

/** How many journal lines one commit appends: a long journal is appended in several, in order. */
const linesPerCommit = 1000

/** The storage port over `location`, for the scope the command runs in. */
export const open = (location: MemoryLocation.Location) =>
  Effect.map(Layer.build(MemoryLocation.rootLayer(location)), (context) => Context.get(context, MemoryRoot.MemoryRoot))

/** What `root` holds, in words (`undefined` when it holds nothing: no agent, no team file, no journal, no state). */
export const holdings = Effect.fnUntraced(function* (root: Root) {
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
  const parts = [
    ...(agents > 0 ? [Txt.plural(agents, "agent", "agents")] : []),
    ...(teamFiles > 0 ? [Txt.plural(teamFiles, "team file", "team files")] : []),
    ...(journalLines > 0 ? ["a journal"] : []),
    ...(reviewed ? ["a review state"] : [])
  ]
  return parts.length === 0 ? undefined : parts.join(", ")
})

/** Copies the memory of `source` into `target`, which must hold none (else `HoldsMemory`, with `instead`). */
export const copy = Effect.fnUntraced(function* (source: Root, target: Root, instead: string) {
  const holds = yield* holdings(target)
  if (holds !== undefined) return yield* new HoldsMemory({ root: target.root, holds, instead })
  const folders = yield* source.agents
  const scopes: Array<MemoryScope.MemoryScope> = [MemoryScope.team]
  const leftOut: Array<string> = []
  for (const folder of folders) {
    if (folder.agentId === undefined) leftOut.push(folder.dir)
    else scopes.push(MemoryScope.own(folder.agentId))
  }
  const stored = yield* Effect.forEach(scopes, (scope) => source.read(scope))
  // A file that cannot be read is not left behind in silence: the copy stops before writing anything.
  const unreadable = stored.flatMap((scope) => scope.unreadable)
  if (unreadable[0] !== undefined) return yield* Effect.fail(unreadable[0].error)
  const journal = yield* source.journal()
  const state = yield* source.readState
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
  return { agents: scopes.length - 1, files, journalLines: journal.length, leftOut } satisfies Copied
})
