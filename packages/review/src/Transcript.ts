/**
 * The host's transcript, as mneme reads it: a conversation's lines newest first (and from a cursor either way), the
 * agent that owns it, and the anchor an entry cites as its source (the members of a group are `Groups`'). A host gives
 * what it has to `make`, which fills the rest; the test kit has an in-memory one.
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
    /** The lines after `cursor` (`seq` greater), oldest first. */
    readonly oldestAfter: (conversationId: string, cursor: number) => Stream.Stream<Lines.Line, TranscriptError>
    /** The lines up to `seq` (included), newest first. */
    readonly newestUpTo: (conversationId: string, seq: number) => Stream.Stream<Lines.Line, TranscriptError>
    /**
     * Whether `oldestAfter` and `newestUpTo` seek in the host's log. A review with many lines behind it then reads one
     * review's worth from its cursor instead of every line back to it, so reviewing a long backlog takes time in
     * proportion to it. Without (`make`'s own, which walk `newestFirst` back), a review reads `newestFirst` once.
     */
    readonly seeks: boolean
    /** The agent that owns a conversation (not asked of a group: `Groups.membersOf`). */
    readonly agentOf: (conversationId: string) => Effect.Effect<string, TranscriptError>
    /** The source an entry learned from a line cites (by default `<conversationId> #<seq>`). */
    readonly anchor: (conversationId: string, seq: number) => Effect.Effect<string>
  }
>()("@mneme/review/Transcript") {}

/**
 * What a host gives `make`: its lines newest first, the owner of a conversation, and the anchor a line is cited by;
 * and reads from a cursor (both, where its log can seek).
 */
export interface Host extends Pick<Transcript["Service"], "newestFirst" | "agentOf" | "anchor"> {
  readonly oldestAfter?: Transcript["Service"]["oldestAfter"] | undefined
  readonly newestUpTo?: Transcript["Service"]["newestUpTo"] | undefined
}

/**
 * The transcript over what a host gives: what it leaves out read from `newestFirst` (the lines after a cursor, the
 * lines up to one). It `seeks` when the host gives both reads from a cursor.
 */
export const make = (host: Host): Transcript["Service"] => {
  const { newestFirst } = host
  return Transcript.of({
    newestFirst,
    oldestAfter:
      host.oldestAfter ??
      ((conversationId, cursor) =>
        Stream.fromIterableEffect(
          newestFirst(conversationId).pipe(
            Stream.takeWhile((line) => line.seq > cursor),
            Stream.runCollect,
            Effect.map((lines) => lines.toReversed())
          )
        )),
    newestUpTo:
      host.newestUpTo ??
      ((conversationId, seq) => newestFirst(conversationId).pipe(Stream.dropWhile((line) => line.seq > seq))),
    seeks: host.oldestAfter !== undefined && host.newestUpTo !== undefined,
    agentOf: host.agentOf,
    anchor: host.anchor
  })
}
