/**
 * Conversation logs under a memory root, for hosts that hand mneme their turns as they end (the MCP server's
 * `review_turn`): `<root>/conversations/<conversationId>.jsonl`, one transcript line a JSON line, in the shape
 * `mneme review` reads (`{"seq": 1, "who": "user", "text": "…"}`, `name` for `other`, `kind` for a line that is not
 * words), with the agent whose conversation it is. The log gives each line its `seq`, one more than the last, under the
 * root's single writer, so two processes appending to one conversation never give one number twice.
 *
 * As the review's `Transcript` the log is read from its end, a chunk at a time, as the review pulls lines: a review of
 * the newest lines of a long conversation holds those lines and one chunk, never the whole log. A writer stopped in the
 * middle of an append leaves a torn last line (no line break, not a line): it is skipped, and the next append (under
 * the lock, so no append is under way) removes it before writing; a last line merely written without a line break
 * is read, and the next append starts a fresh line after it.
 * No log is read or written through a symbolic link, and a conversation id is a file name that cannot leave the folder.
 */
import {
  Lines,
  MaskedTaggedError,
  NotAFolder,
  OutsideRoot,
  ReadFailed,
  StorageError,
  TranscriptError,
  WriteFailed
} from "@mneme/core"
import { Agents, MemoryRoot, Platform, Transcript } from "@mneme/review"
import { Context, Effect, FileSystem, Layer, Option, Path, type PlatformError, Ref, Schema, Stream } from "effect"
import { idProblem, shown } from "./internal/conversationId.ts"
import { chunkSize, linesBackward, type RawLine } from "./internal/logBackward.ts"

/** How many bytes of a log are read at a time, from its end. */
export { chunkSize }

const encoder = new TextEncoder()

/** The folder of the logs, relative to the memory root. */
export const folder = "conversations"

/** A line of a log: a transcript line, and the agent whose conversation it is. */
export const LogLine = Schema.Struct({ ...Lines.Line.fields, agent: Schema.String })

/** A line of a log. */
export type LogLine = typeof LogLine.Type

/** A line a host hands over: who said it, its text, the speaker's name for `other`, and its kind when not words. */
export type NewLine = Omit<Lines.Line, "seq">

/** The conversation id cannot name a log, or the conversation is another agent's. */
export class BadConversation extends MaskedTaggedError<BadConversation>()("BadConversation", {
  conversation: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `conversation ${JSON.stringify(shown(this.conversation))}: ${this.detail}`
  }
}

/** A line handed over cannot be kept as it is; `line` counts the lines of one append from 1. */
export class BadLine extends MaskedTaggedError<BadLine>()("BadLine", {
  line: Schema.Number,
  detail: Schema.String
}) {
  override get message() {
    return `line ${this.line}: ${this.detail}`
  }
}

/** What one append kept: the `seq` of its first and last line (none when it was given no line). */
export interface Appended {
  readonly conversation: string
  readonly lines: number
  readonly first: number | undefined
  readonly last: number | undefined
}

/** The conversation logs of one memory root. */
export class ConversationLog extends Context.Service<
  ConversationLog,
  {
    /**
     * Appends `lines` (oldest first) to the conversation's log as the agent's, numbered on from its last line; all or
     * nothing. A conversation id that cannot be a file name, a conversation of another agent, or an `other` line
     * without a name changes nothing.
     */
    readonly append: (
      conversationId: string,
      agentId: string,
      lines: ReadonlyArray<NewLine>
    ) => Effect.Effect<Appended, BadConversation | BadLine | StorageError | TranscriptError>
    /** The conversation's lines, newest first, read from the end of its log as they are pulled. */
    readonly newestFirst: (conversationId: string) => Stream.Stream<Lines.Line, TranscriptError>
    /** The agent whose conversation it is, as its newest line says; `undefined` for a conversation with no log. */
    readonly agentOf: (conversationId: string) => Effect.Effect<string | undefined, TranscriptError>
  }
>()("@mneme/node/ConversationLog") {}

const decodeLine = Schema.decodeUnknownOption(Schema.fromJsonString(LogLine))

/** The options of the conversation logs: the memory root they are under. */
export interface Options {
  readonly root: string
}

const make = Effect.fnUntraced(function* (options: Options) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const memoryRoot = yield* MemoryRoot.MemoryRoot
  const root = path.resolve(options.root)
  const dir = path.join(root, folder)

  const refuse = (name: string, detail: string) => new StorageError({ reason: new OutsideRoot({ path: name, detail }) })

  /** The kind of what is at `absolute` (a link is not followed), `undefined` when nothing is. */
  const kindOf = (absolute: string, name: string) =>
    fs.lstat(absolute).pipe(
      Effect.map((info): FileSystem.File.Type | undefined => info.type),
      Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(undefined)),
      Effect.mapError(
        (error) => new StorageError({ reason: new ReadFailed({ file: name, detail: Platform.describeFailure(error) }) })
      )
    )

  /**
   * Where a conversation's log is (`name` relative to the root, for messages), after checking that neither it nor its
   * folder is a link, or anything but a file in a folder; with `create`, a missing folder is made.
   */
  const locate = Effect.fnUntraced(function* (conversationId: string, create: boolean) {
    const name = `${folder}/${conversationId}.jsonl`
    const absolute = path.join(dir, `${conversationId}.jsonl`)
    const folderKind = yield* kindOf(dir, folder)
    if (folderKind === "SymbolicLink") {
      return yield* refuse(folder, "is a symbolic link; conversation logs are not kept through links")
    }
    if (folderKind !== undefined && folderKind !== "Directory") {
      return yield* new StorageError({ reason: new NotAFolder({ path: dir }) })
    }
    if (folderKind === undefined) {
      if (!create) return { absolute, name, exists: false }
      yield* fs
        .makeDirectory(dir, { recursive: true })
        .pipe(
          Effect.mapError(
            (error) =>
              new StorageError({ reason: new WriteFailed({ file: folder, detail: Platform.describeFailure(error) }) })
          )
        )
    }
    const kind = yield* kindOf(absolute, name)
    if (kind === "SymbolicLink") {
      return yield* refuse(name, "is a symbolic link; conversation logs are not read or written through links")
    }
    if (kind !== undefined && kind !== "File") return yield* refuse(name, "is not a file")
    return { absolute, name, exists: kind !== undefined }
  })

  /** The log's lines as read from its end, over a file opened for the stream's life. */
  const rawNewestFirst = (absolute: string, name: string) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const file = yield* fs.open(absolute, { flag: "r" })
        const info = yield* file.stat
        return linesBackward(file, Number(info.size), name)
      })
    )

  /**
   * A line of the log as written: `undefined` for the remains of a torn write (text after the last line break that is
   * no line), a failure for any other line that is not a transcript line.
   */
  const decode = (raw: RawLine, name: string): Effect.Effect<LogLine | undefined, TranscriptError> => {
    const line = Option.getOrUndefined(decodeLine(raw.text))
    if (line !== undefined || raw.unterminated) return Effect.succeed(line)
    return Effect.fail(
      new TranscriptError({
        reason: `${name} has a line that is not a transcript line (${JSON.stringify(shown(raw.text))}): fix or remove it`
      })
    )
  }

  /** A platform failure reading a log, as the transcript's error. */
  const unreadable = (name: string) => (error: PlatformError.PlatformError | TranscriptError) =>
    error._tag === "TranscriptError"
      ? error
      : new TranscriptError({ reason: `${name} could not be read: ${Platform.describeFailure(error)}` })

  /** The log's lines, newest first, each checked to come before the one read after it. */
  const logNewestFirst = (conversationId: string): Stream.Stream<LogLine, TranscriptError> => {
    const problem = idProblem(conversationId)
    if (problem !== undefined) {
      return Stream.fail(
        new TranscriptError({ reason: `conversation ${JSON.stringify(shown(conversationId))}: ${problem}` })
      )
    }
    return Stream.unwrap(
      Effect.gen(function* () {
        const { absolute, name, exists } = yield* locate(conversationId, false).pipe(
          Effect.mapError((error) => new TranscriptError({ reason: error.message }))
        )
        if (!exists) return Stream.empty
        const newer = yield* Ref.make<LogLine | undefined>(undefined)
        const checked = (line: LogLine | undefined) =>
          Effect.flatMap(Ref.get(newer), (after): Effect.Effect<ReadonlyArray<LogLine>, TranscriptError> => {
            if (line === undefined) return Effect.succeed([])
            if (after !== undefined && line.seq >= after.seq) {
              return Effect.fail(
                new TranscriptError({
                  reason: `${name}: seq ${after.seq} follows ${line.seq}, but seq must grow from line to line`
                })
              )
            }
            return Effect.as(Ref.set(newer, line), [line])
          })
        return rawNewestFirst(absolute, name).pipe(
          Stream.mapError(unreadable(name)),
          Stream.mapEffect((raw) => Effect.flatMap(decode(raw, name), checked)),
          Stream.flattenIterable
        )
      })
    )
  }

  const transcriptLine = (line: LogLine): Lines.Line => {
    const { agent: _agent, ...rest } = line
    return rest
  }

  const append = Effect.fn("ConversationLog.append")(function* (
    conversationId: string,
    agentId: string,
    lines: ReadonlyArray<NewLine>
  ) {
    const problem = idProblem(conversationId)
    if (problem !== undefined) return yield* new BadConversation({ conversation: conversationId, detail: problem })
    for (const [index, line] of lines.entries()) {
      if (line.who === "other" && (line.name === undefined || line.name.trim() === "")) {
        return yield* new BadLine({ line: index + 1, detail: 'an "other" line needs the speaker\'s name' })
      }
    }
    return yield* memoryRoot.write(() =>
      Effect.gen(function* () {
        const { absolute, name } = yield* locate(conversationId, true)
        // The log's end: its last line, and the remains of a torn write after it, if any.
        const [end, before] = yield* rawNewestFirst(absolute, name).pipe(
          Stream.take(2),
          Stream.runCollect,
          Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed([] as Array<RawLine>)),
          Effect.mapError(unreadable(name))
        )
        const endLine = end === undefined ? undefined : yield* decode(end, name)
        const torn = end !== undefined && endLine === undefined ? end : undefined
        const last = endLine ?? (before === undefined ? undefined : yield* decode(before, name))
        if (last !== undefined && last.agent !== agentId) {
          return yield* new BadConversation({
            conversation: conversationId,
            detail: `it is a conversation of the agent ${JSON.stringify(last.agent)}: give this conversation an id of its own`
          })
        }
        const first = (last?.seq ?? 0) + 1
        const logged: Array<LogLine> = lines.map((line, index) => ({
          seq: first + index,
          who: line.who,
          ...(line.name === undefined ? {} : { name: line.name }),
          text: line.text,
          ...(line.kind === undefined ? {} : { kind: line.kind }),
          agent: agentId
        }))
        if (logged.length > 0) {
          // A line written without a line break gets one; the remains of a torn write (never acknowledged) go.
          const text =
            (end?.unterminated === true && torn === undefined ? "\n" : "") +
            logged.map((line) => JSON.stringify(line)).join("\n") +
            "\n"
          yield* Effect.scoped(
            Effect.gen(function* () {
              const file = yield* fs.open(absolute, { flag: "a" })
              if (torn !== undefined) yield* file.truncate(Number((yield* file.stat).size) - torn.bytes)
              yield* file.writeAll(encoder.encode(text))
              yield* file.sync
            })
          ).pipe(
            Effect.mapError(
              (error) =>
                new StorageError({ reason: new WriteFailed({ file: name, detail: Platform.describeFailure(error) }) })
            )
          )
        }
        return {
          conversation: conversationId,
          lines: logged.length,
          first: logged[0]?.seq,
          last: logged.at(-1)?.seq
        } satisfies Appended
      })
    )
  })

  return ConversationLog.of({
    append,
    newestFirst: (conversationId) => logNewestFirst(conversationId).pipe(Stream.map(transcriptLine)),
    agentOf: (conversationId) =>
      logNewestFirst(conversationId).pipe(
        Stream.take(1),
        Stream.runHead,
        Effect.map((line) => Option.getOrUndefined(Option.map(line, (found) => found.agent)))
      )
  })
})

/** The conversation logs under `options.root`, written as the root's single writer. */
export const layer = (
  options: Options
): Layer.Layer<ConversationLog, never, FileSystem.FileSystem | Path.Path | MemoryRoot.MemoryRoot> =>
  Layer.effect(ConversationLog, make(options))

/** The logs as the review's `Transcript` (anchors `<conversationId> #<seq>`), for hosts with agents of their own. */
export const layerTranscript: Layer.Layer<Transcript.Transcript, never, ConversationLog> = Layer.effect(
  Transcript.Transcript,
  Effect.map(ConversationLog, (log) =>
    Transcript.make({
      newestFirst: log.newestFirst,
      agentOf: (conversationId) =>
        Effect.flatMap(log.agentOf(conversationId), (agent) =>
          agent === undefined
            ? Effect.fail(
                new TranscriptError({
                  reason: `no conversation ${JSON.stringify(shown(conversationId))} is logged under the memory root`
                })
              )
            : Effect.succeed(agent)
        ),
      anchor: (conversationId, seq) => Effect.succeed(Transcript.defaultAnchor(conversationId, seq))
    })
  )
)

/**
 * The logs as the review's host ports, for the one agent `agentId` (who may write team memory): its `Transcript`
 * (`layerTranscript`) and its `Agents`.
 */
export const layerPorts = (
  agentId: string
): Layer.Layer<Transcript.Transcript | Agents.Agents, never, ConversationLog> =>
  Layer.merge(
    layerTranscript,
    Layer.succeed(Agents.Agents)({
      get: (id) => Effect.succeed(id === agentId ? { id, name: id, mayWriteTeam: true } : undefined)
    })
  )
