/**
 * Whose memory a file belongs to (docs/spec.md, "Words"): an agent's own, or the team's, which every agent reads. One type
 * for every part of mneme that names a scope; `MemoryScope`, so that effect's `Scope` (a resource's lifetime) keeps its
 * own name beside it.
 */

/** An agent's own memory. */
export interface Own {
  readonly kind: "agent"
  readonly agentId: string
}

/** The team's memory. */
export interface Team {
  readonly kind: "team"
}

/** Whose memory. */
export type MemoryScope = Own | Team

/** The agent's own memory. */
export const own = (agentId: string): MemoryScope => ({ kind: "agent", agentId })

/** The team's memory. */
export const team: MemoryScope = { kind: "team" }

/** Whether two scopes are the same. */
export const equals = (a: MemoryScope, b: MemoryScope): boolean =>
  a.kind === "team" ? b.kind === "team" : b.kind === "agent" && a.agentId === b.agentId

/** How a scope is named to people and in prompts: `own` or `team`, seen from its agent. */
export const side = (scope: MemoryScope): "own" | "team" => (scope.kind === "team" ? "team" : "own")
