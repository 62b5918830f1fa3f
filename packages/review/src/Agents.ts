/**
 * The host's agents, as mneme needs them: a name and role for the prompt, whether the agent still exists, and
 * whether it may write team memory. A host provides this port; the test kit has an in-memory one.
 */
import { Context, Effect } from "effect"

/** What the review needs to know of an agent. */
export interface AgentInfo {
  readonly id: string
  readonly name: string
  readonly role?: string
  /** Whether the agent may write team memory. */
  readonly mayWriteTeam: boolean
}

/** The host's agents. */
export class Agents extends Context.Service<
  Agents,
  {
    /** The agent with this id, or `undefined` when it was deleted or is unknown. */
    readonly get: (agentId: string) => Effect.Effect<AgentInfo | undefined>
  }
>()("@mneme/review/Agents") {}
