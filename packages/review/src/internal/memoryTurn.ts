/**
 * A turn of an agent as the memory tools see it: whom they act for, the source its entries cite, the session whose
 * memory section its prompt shows, and its count of writes, one write at a time.
 */
import { Context, Effect, Ref, Semaphore } from "effect"
import type { Session } from "../MemoryPrompt.ts"

/** One turn of an agent: whom the tools act for, the source the entries they add cite, and the writes made so far. */
export interface Turn {
  readonly agentId: string
  /** What entries added in this turn cite as their source (a conversation's anchor), if the host gives it. */
  readonly source: string | undefined
  /** How many changes to memory this turn's writes (`remember`, `forget`) have made. */
  readonly writes: Ref.Ref<number>
  /** One write of the turn at a time, so that its count of changes is exact when the next one asks. */
  readonly writing: Semaphore.Semaphore
  /** The session whose memory section the agent's prompt shows, if the host gives it. */
  readonly session: Session | undefined
}

/** The turn the memory tools act in; the host provides it around each turn (`withTurn`). */
export class CurrentTurn extends Context.Service<CurrentTurn, Turn>()("@mneme/review/MemoryTools/CurrentTurn") {}

/** What a host may say of a turn besides the agent. */
export interface TurnOptions {
  /** What entries the agent adds in this turn cite as their source, such as `Transcript.defaultAnchor(id, seq)`. */
  readonly source?: string | undefined
  /** The session whose memory section the agent's prompt shows: results then say what has changed since. */
  readonly session?: Session | undefined
}

/** A new turn of `agentId`, with no changes made yet. */
export const startTurn = (agentId: string, options: TurnOptions = {}): Effect.Effect<Turn> =>
  Effect.map(Effect.all([Ref.make(0), Semaphore.make(1)]), ([writes, writing]) => ({
    agentId,
    source: options.source,
    writes,
    writing,
    session: options.session
  }))

/** Runs `effect` as one turn of `agentId`: the memory tools it calls act for that agent and share one count of writes. */
export const withTurn =
  (agentId: string, options: TurnOptions = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, CurrentTurn>> =>
    Effect.flatMap(startTurn(agentId, options), (turn) => Effect.provideService(effect, CurrentTurn, turn))
