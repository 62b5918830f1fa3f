/**
 * The `Transcript` and `Agents` ports over one conversation of a transcript file, its lines read by index as the review
 * pulls them, and `Groups` when the file is a group conversation.
 */
import { type Lines, TranscriptError } from "@mneme/core"
import { Agents, Groups, Transcript } from "@mneme/review"
import { Effect, Layer, Stream } from "effect"
import * as TranscriptIndex from "../transcriptIndex.ts"

/** What the ports of one conversation say besides its lines. */
export interface Ports {
  /** The conversation the lines are. */
  readonly conversationId: string
  /** The name an entry's source cites for the conversation (by default its id): `<label> #<seq>`. */
  readonly label?: string | undefined
  /** The agent that owns the conversation; it may write team memory. */
  readonly agentId: string
  /**
   * The member agents, when the file is a group conversation (docs/spec.md 4.7): each is reviewed on its own and may write team
   * memory; `agentId` is then not asked.
   */
  readonly members?: ReadonlyArray<string> | undefined
}

/**
 * The `Transcript` and `Agents` ports over one conversation of `count` lines (and `Groups`, of a group), line `i` read
 * by `lineAt(i)` when the review pulls it; the transcript reads from a cursor too (a binary search of `seqAt`), so
 * reviewing a long transcript to its end takes time in proportion to it.
 */
export const portsOver = (
  options: Ports,
  lines: Pick<TranscriptIndex.Index, "count" | "seqAt">,
  lineAt: (i: number) => Effect.Effect<Lines.Line, TranscriptError>
): Layer.Layer<Transcript.Transcript | Agents.Agents> => {
  /** The lines from `from` on, oldest first (`step` 1), or from `from` down, newest first (`step` -1). */
  const linesFrom = (from: number, step: 1 | -1): Stream.Stream<Lines.Line, TranscriptError> =>
    Stream.unfold(from, (i) =>
      i < 0 || i >= lines.count ? Effect.succeed(undefined) : Effect.map(lineAt(i), (line) => [line, i + step] as const)
    )
  const unknown = (conversationId: string) =>
    new TranscriptError({ reason: `no conversation ${JSON.stringify(conversationId)} in this transcript file` })
  const ours = (conversationId: string, stream: () => Stream.Stream<Lines.Line, TranscriptError>) =>
    conversationId === options.conversationId ? stream() : Stream.fail(unknown(conversationId))
  return Layer.mergeAll(
    Layer.succeed(Transcript.Transcript)(
      Transcript.make({
        newestFirst: (conversationId) => ours(conversationId, () => linesFrom(lines.count - 1, -1)),
        oldestAfter: (conversationId, cursor) =>
          ours(conversationId, () => linesFrom(TranscriptIndex.after(lines, cursor), 1)),
        newestUpTo: (conversationId, seq) =>
          ours(conversationId, () => linesFrom(TranscriptIndex.after(lines, seq) - 1, -1)),
        agentOf: (conversationId) =>
          conversationId === options.conversationId
            ? Effect.succeed(options.agentId)
            : Effect.fail(unknown(conversationId)),
        anchor: (conversationId, seq) =>
          Effect.succeed(
            Transcript.defaultAnchor(
              conversationId === options.conversationId ? (options.label ?? conversationId) : conversationId,
              seq
            )
          )
      })
    ),
    // A group's members are its own port: a conversation one agent owns needs none (`Groups`' default).
    options.members === undefined
      ? Layer.empty
      : Groups.layer((conversationId) =>
          conversationId === options.conversationId
            ? Effect.succeed(options.members)
            : Effect.fail(unknown(conversationId))
        ),
    Layer.succeed(Agents.Agents)({
      get: (agentId) =>
        Effect.succeed(
          (options.members === undefined ? agentId === options.agentId : options.members.includes(agentId))
            ? { id: agentId, name: agentId, mayWriteTeam: true }
            : undefined
        )
    })
  )
}
