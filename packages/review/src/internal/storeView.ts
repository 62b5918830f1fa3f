/**
 * What the memory store shows of memory, read and never changed: a scope with the topic files its index does not link,
 * every entry an agent sees with its sizes and the limits, and the agents of a root with their sizes.
 */
import { Entry, type MemoryConfig, MemoryScope, type StorageError } from "@mneme/core"
import { Effect } from "effect"
import type { MemoryRoot, ReadOptions, StoredFile, StoredScope } from "../MemoryRoot.ts"

/** A scope as stored, and its topic files that MEMORY.md's index does not link. */
export interface ScopeView extends StoredScope {
  readonly unlinked: ReadonlyArray<StoredFile>
}

/** One entry of an agent's view. */
export interface ViewEntry {
  readonly scope: "own" | "team"
  readonly topic: string | undefined
  readonly text: string
  readonly added: string | undefined
  readonly by: string | undefined
  readonly source: string | undefined
}

/** What a host can see of an agent's memory (docs/spec.md 4.6, without the last review). */
export interface View {
  readonly agentId: string
  readonly entries: ReadonlyArray<ViewEntry>
  /** MEMORY.md sizes in characters. */
  readonly sizes: { readonly own: number; readonly team: number }
  readonly limits: { readonly entry: number; readonly memory: number; readonly topic: number; readonly topics: number }
}

/** An agent of the root: its folder, its MEMORY.md's size and its number of topics (unknown for a folder of unknown origin). */
export interface AgentSummary {
  readonly agentId: string | undefined
  /** The folder, relative to the root. */
  readonly dir: string
  readonly size: number | undefined
  readonly topics: number | undefined
}

/** A scope with its unlinked topic files. */
export const scopeView = (stored: StoredScope): ScopeView => {
  const links = new Set(stored.files.find((file) => file.topic === undefined)?.parsed.links.map((link) => link.topic))
  return { ...stored, unlinked: stored.files.filter((file) => file.topic !== undefined && !links.has(file.topic)) }
}

/** The entries of a scope as an agent's view lists them. */
const entriesOf = (scope: ScopeView): ReadonlyArray<ViewEntry> =>
  scope.files.flatMap((file) =>
    file.parsed.entries.map((entry): ViewEntry => ({
      scope: MemoryScope.side(scope.scope),
      topic: file.topic,
      text: entry.text,
      added: Entry.metaValue(entry.meta, "added"),
      by: Entry.metaValue(entry.meta, "by"),
      source: Entry.metaValue(entry.meta, "source")
    }))
  )

/** The size of a scope's MEMORY.md, 0 when it has none. */
const memorySize = (scope: ScopeView): number => scope.files.find((file) => file.topic === undefined)?.size ?? 0

/** Every entry an agent sees, own then team, its MEMORY.md sizes and the limits of `settings`. */
export const agentView = (agentId: string, own: ScopeView, team: ScopeView, settings: MemoryConfig.Settings): View => ({
  agentId,
  entries: [...entriesOf(own), ...entriesOf(team)],
  sizes: { own: memorySize(own), team: memorySize(team) },
  limits: {
    entry: settings.entryMax,
    memory: settings.memoryMax,
    topic: settings.topicMax,
    topics: settings.topicsMax
  }
})

/** The agents of a root, each own scope read with `options` for its size and topic count. */
export const agentSummaries = (
  root: MemoryRoot["Service"],
  options: ReadOptions
): Effect.Effect<ReadonlyArray<AgentSummary>, StorageError> =>
  Effect.flatMap(root.agents, (folders) =>
    Effect.forEach(folders, ({ agentId, dir }) =>
      agentId === undefined
        ? Effect.succeed<AgentSummary>({ agentId, dir, size: undefined, topics: undefined })
        : Effect.map(root.read(MemoryScope.own(agentId), options), (stored): AgentSummary => ({
            agentId,
            dir,
            size: stored.files.find((file) => file.topic === undefined)?.size ?? 0,
            topics: stored.files.length - 1 + stored.unreadable.length
          }))
    )
  )
