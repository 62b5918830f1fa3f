/**
 * The memory section of an agent's system prompt (docs/spec.md 7), over the memory store: the agent's own MEMORY.md and the
 * team's within `memorySectionBudget` characters, masked for secrets, with a short text on the memory tools (rendered
 * by `MemorySection`, pure). `section(agentId)` is memory as it is now; `session(agentId)` freezes it for the life of
 * one of the host's sessions (a conversation), so the system prompt stays byte-identical and a provider's prefix cache
 * holds while memory changes underneath; the next session sees the new memory. The settings are read once, when the
 * layer is built.
 */
import { MemoryConfig, type MemoryFile, MemoryScope, MemorySection, type StorageError } from "@mneme/core"
import { Context, Effect, Layer } from "effect"
import { Agents } from "./Agents.ts"
import { MemoryStore, type ScopeView } from "./MemoryStore.ts"

/** The memory section of one of the host's sessions, as it was when the session started. */
export interface Session {
  readonly agentId: string
  /** The section's text: the same bytes for the whole session, whatever memory becomes meanwhile. */
  readonly section: string
  /**
   * The entries of both MEMORY.md files when the section was frozen: the memory tools, given the session
   * (`MemoryTools.withTurn`), tell the agent what has changed in them since.
   */
  readonly entries: { readonly own: ReadonlyArray<string>; readonly team: ReadonlyArray<string> }
}

/** The texts of the entries of a scope's MEMORY.md. */
export const memoryEntries = (stored: ScopeView): ReadonlyArray<string> =>
  stored.files.find((file) => file.topic === undefined)?.parsed.entries.map((entry) => entry.text) ?? []

/** A scope's MEMORY.md and its topics' sizes, as the section shows them. */
const memoryOf = (stored: ScopeView): MemorySection.Memory => {
  const memory = stored.files.find((file) => file.topic === undefined)
  return {
    file: memory?.file ?? `${stored.dir}/MEMORY.md`,
    size: memory?.size ?? 0,
    parsed: memory?.parsed ?? { lines: [], entries: [], links: [] },
    topics: new Map(
      stored.files.flatMap((file) =>
        file.topic === undefined
          ? []
          : [[file.topic, { entries: file.parsed.entries.length, size: file.size }] as const]
      )
    )
  }
}

/** What a section was rendered from besides the agent's MEMORY.md as parsed, and its text. */
interface Rendered {
  readonly team: MemoryFile.Parsed
  readonly mayWriteTeam: boolean
  /** Both files' names and sizes, and their topics' sizes. */
  readonly sizes: string
  readonly text: string
}

/** The names and sizes a section shows of both files and their topics, as one key. */
const sizesOf = (input: MemorySection.Input): string =>
  JSON.stringify([input.own, input.team].map((memory) => [memory.file, memory.size, [...memory.topics]]))

const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const agents = yield* Agents
  const settings = yield* MemoryConfig.MemoryConfig
  // The last section rendered from each MEMORY.md as parsed: the store keeps an unchanged file's parse, so memory
  // that has not changed is not masked and rendered again.
  const rendered = new WeakMap<MemoryFile.Parsed, Rendered>()

  /** The agent's section as memory is now, and the scopes it was rendered from. */
  const render = Effect.fnUntraced(function* (agentId: string) {
    const [own, team] = yield* Effect.all([store.load(MemoryScope.own(agentId)), store.load(MemoryScope.team)], {
      concurrency: "unbounded"
    })
    const agent = yield* agents.get(agentId)
    const input: MemorySection.Input = {
      own: memoryOf(own),
      team: memoryOf(team),
      mayWriteTeam: agent?.mayWriteTeam ?? false
    }
    const sizes = sizesOf(input)
    const last = rendered.get(input.own.parsed)
    if (last?.team === input.team.parsed && last.mayWriteTeam === input.mayWriteTeam && last.sizes === sizes) {
      return { text: last.text, own, team }
    }
    const text = MemorySection.render(input, settings)
    rendered.set(input.own.parsed, { team: input.team.parsed, mayWriteTeam: input.mayWriteTeam, sizes, text })
    return { text, own, team }
  })

  const section = Effect.fn("MemoryPrompt.section")(function* (agentId: string) {
    return (yield* render(agentId)).text
  })

  const session = Effect.fn("MemoryPrompt.session")(function* (agentId: string) {
    const { text, own, team } = yield* render(agentId)
    const session: Session = {
      agentId,
      section: text,
      entries: Object.freeze({ own: memoryEntries(own), team: memoryEntries(team) })
    }
    return Object.freeze(session)
  })

  return MemoryPrompt.of({ section, session })
})

/** The memory section of agents' system prompts. */
export class MemoryPrompt extends Context.Service<
  MemoryPrompt,
  {
    /** The agent's memory section as memory is now. */
    readonly section: (agentId: string) => Effect.Effect<string, StorageError>
    /**
     * A session of the agent: its memory section frozen as memory is now. The host keeps it for the session's life
     * (a conversation) and builds every system prompt of that session from it; a new session sees the new memory.
     */
    readonly session: (agentId: string) => Effect.Effect<Session, StorageError>
  }
>()("@mneme/review/MemoryPrompt") {
  /** The section over the memory store, with the `MemoryConfig` in force when it is built. */
  static readonly layer: Layer.Layer<MemoryPrompt, never, MemoryStore | Agents> = Layer.effect(MemoryPrompt, make)
}

/** The section over the memory store. */
export const layer = MemoryPrompt.layer
