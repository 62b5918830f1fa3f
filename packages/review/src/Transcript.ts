/**
 * The host's transcript, as mneme reads it: a conversation's lines newest first, the agent that owns it (or the member
 * agents of a group), and the anchor an entry cites as its source. A host provides this port; the test kit has an in-memory one.
 */
import { Context, Effect, Stream } from "effect"
import type { Lines, TranscriptError } from "@mneme/core"

/** The anchor an entry cites for a line when the host gives none of its own: `<conversationId> #<seq>`. */
export const defaultAnchor = (conversationId: string, seq: number): string => `${conversationId} #${seq}`

/** The host's transcript. */
export class Transcript extends Context.Service<
  Transcript,
  {
    /**
     * A conversation's lines, newest first; the review pulls only as many as it needs. A tool call, a tool result or
     * quoted memory carries its `kind` (`Lines.Kind`): the review never keeps what such a line says.
     */
    readonly newestFirst: (conversationId: string) => Stream.Stream<Lines.Line, TranscriptError>
    /**
     * Optional, with `newestUpTo`: the lines after `cursor` (`seq` greater), oldest first. A review with many lines
     * behind it then reads one review's worth from its cursor instead of every line back to it, so reviewing a long
     * backlog takes time in proportion to it. A host that can seek in its log gives both.
     */
    readonly oldestAfter?: (conversationId: string, cursor: number) => Stream.Stream<Lines.Line, TranscriptError>
    /** Optional, with `oldestAfter`: the lines up to `seq` (included), newest first. */
    readonly newestUpTo?: (conversationId: string, seq: number) => Stream.Stream<Lines.Line, TranscriptError>
    /** The agent that owns a conversation (not asked of a group). */
    readonly agentOf: (conversationId: string) => Effect.Effect<string, TranscriptError>
    /**
     * Optional: the member agents of a group conversation (docs/spec.md 4.7), or `undefined` for a conversation one agent owns.
     * In a group's lines an agent's line names the agent by id (`who: "agent", name: <agentId>`) and a person's line
     * names the person (`who: "user", name`). Each member is reviewed on its own, with its own cursor.
     */
    readonly membersOf?: (conversationId: string) => Effect.Effect<ReadonlyArray<string> | undefined, TranscriptError>
    /** The source an entry learned from a line cites (by default `<conversationId> #<seq>`). */
    readonly anchor: (conversationId: string, seq: number) => Effect.Effect<string>
  }
>()("@mneme/review/Transcript") {}
