/**
 * The host's group conversations (docs/spec.md 4.7), a port of its own: the member agents of a conversation several
 * agents take part in. It has a default, no conversation is a group, so a host without groups provides nothing and
 * every conversation is one agent's (`Transcript.agentOf`); a host with groups provides `layer(membersOf)`.
 */
import type { TranscriptError } from "@mneme/core"
import { Context, Effect, Layer } from "effect"

/** What the port gives. */
export interface Service {
  /**
   * The member agents of a group conversation, or `undefined` for a conversation one agent owns. In a group's lines an
   * agent's line names the agent by id (`who: "agent", name: <agentId>`) and a person's line names the person
   * (`who: "user", name`). Each member is reviewed on its own, with its own cursor.
   */
  readonly membersOf: (conversationId: string) => Effect.Effect<ReadonlyArray<string> | undefined, TranscriptError>
}

/** The groups of a host that has none: no conversation is a group. */
export const none: Service = { membersOf: () => Effect.succeed(undefined) }

/** The host's groups; `none` unless a host provides its own. */
export class Groups extends Context.Reference<Service>("@mneme/review/Groups", { defaultValue: () => none }) {}

/** The groups a host's `membersOf` tells. */
export const make = (membersOf: Service["membersOf"]): Service => Groups.of({ membersOf })

/** Provides the groups a host's `membersOf` tells. */
export const layer = (membersOf: Service["membersOf"]): Layer.Layer<never> => Layer.succeed(Groups, make(membersOf))
