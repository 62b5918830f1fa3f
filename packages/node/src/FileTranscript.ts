/**
 * A JSONL transcript file as the review's host ports: one JSON object a line, `{"seq":1,"who":"user","text":"…"}`
 * (`who` one of `user`, `agent`, `other` with a `name`), serving one conversation owned by one agent. The whole file
 * is read and checked once, so a bad line fails at once with its line number and what is wrong; it is read as a
 * stream, a line parsed as soon as it ends, so only the lines are held (once), never the file's text or bytes.
 */
import { Lines, TranscriptError } from "@mneme/core"
import { Agents, Transcript } from "@mneme/review"
import { Effect, FileSystem, Layer, Path, Result, Schema, SchemaIssue, Stream } from "effect"
import * as Jsonl from "./internal/jsonl.ts"
import * as TextFile from "./internal/textFile.ts"

const LineJson = Schema.fromJsonString(Lines.Line)

const decodeLine = Schema.decodeUnknownResult(LineJson)
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** What is wrong with a JSONL line, or the line itself. */
/** What a transcript line looks like, for messages. */
const lineShape = `{"seq": 1, "who": "user", "text": "…"}`

const parseLine = (source: string, previous: Lines.Line | undefined): Result.Result<Lines.Line, string> => {
  const decoded = decodeLine(source)
  if (Result.isFailure(decoded)) {
    const issue = formatIssue(decoded.failure.issue).issues[0]
    const path = issue?.path ?? []
    // Not a JSON object at all: say what a line is, not what the JSON reader expected.
    if (path.length === 0) return Result.fail(`not a transcript line: each line is one JSON object, ${lineShape}`)
    return Result.fail(`"${path.map(String).join(".")}": ${issue?.message ?? "not a transcript line"}`)
  }
  const line = decoded.success
  if (line.who === "other" && (line.name === undefined || line.name.trim() === "")) {
    return Result.fail(`an "other" line needs a "name"`)
  }
  if (previous !== undefined && line.seq <= previous.seq) {
    return Result.fail(`"seq" ${line.seq} does not follow ${previous.seq}: seq must grow from line to line`)
  }
  return Result.succeed(line)
}

/** Parses a JSONL transcript (blank lines skipped), oldest first; the first bad line fails with its number. */
export const parse = (file: string, content: string): Result.Result<ReadonlyArray<Lines.Line>, TranscriptError> =>
  Result.mapError(
    Jsonl.parse(content, parseLine),
    ({ line, error }) => new TranscriptError({ reason: `${file} line ${line}: ${error}` })
  )

/** The bytes of `name` are not text: `TextFile.read`'s words. */
const notText = (name: string, problem: string) =>
  new TranscriptError({
    reason: new TextFile.Unreadable({ file: name, problem: `is not a text file: ${problem}` }).message
  })

/**
 * Reads and parses a JSONL transcript as its bytes come (a file, standard input), oldest first, as `parse` reads a
 * text: each line is parsed as soon as it ends, so only the lines are held, never the whole text or its bytes. Like
 * `TextFile.read`, the bytes must be UTF-8 text without NUL bytes (a leading byte order mark is dropped); the first
 * bad line fails with its number, and `name` names the source in every message.
 */
export const readStream = <E>(
  name: string,
  bytes: Stream.Stream<Uint8Array, E>
): Effect.Effect<ReadonlyArray<Lines.Line>, TranscriptError | E> =>
  Effect.suspend(() => {
    const lines: Array<Lines.Line> = []
    const decoder = new TextDecoder("utf-8", { fatal: true })
    let row = 0
    // The row not ended yet, and whether the text so far ends with a CR (whose LF may open the next chunk).
    let open = ""
    let afterCr = false
    /** Parses the rows `text` ends (all of them at the `end`), or gives the first problem. */
    const rows = (text: string, end: boolean): TranscriptError | undefined => {
      if (text.includes("\u0000")) return notText(name, "it holds NUL bytes, as binary files do")
      const rest = afterCr && text.startsWith("\n") ? text.slice(1) : text
      if (text !== "") afterCr = text.endsWith("\r")
      const ended = rest.split(/\r\n|\r|\n/)
      ended[0] = open + ended[0]
      open = end ? "" : (ended.pop() ?? "")
      for (const source of ended) {
        row++
        if (source.trim() === "") continue
        const parsed = parseLine(source, lines.at(-1))
        if (Result.isFailure(parsed)) return new TranscriptError({ reason: `${name} line ${row}: ${parsed.failure}` })
        lines.push(parsed.success)
      }
      return undefined
    }
    const take = (chunk: Uint8Array | undefined) =>
      Effect.try({
        try: () => (chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true })),
        catch: () => notText(name, "it holds bytes that are not UTF-8 text")
      }).pipe(
        Effect.flatMap((text) => {
          const problem = rows(text, chunk === undefined)
          return problem === undefined ? Effect.void : Effect.fail(problem)
        })
      )
    return bytes.pipe(Stream.runForEach(take), Effect.andThen(take(undefined)), Effect.as(lines))
  })

/**
 * Reads and parses a JSONL transcript file as a stream (see `readStream`), oldest first. A file that cannot be read
 * says why in words: a folder, a file that does not exist, a file that is not text. Those words are `TextFile.read`'s:
 * a file that cannot be streamed is tried once more whole, which names the problem.
 */
export const read = Effect.fn("FileTranscript.read")(function* (file: string) {
  const fs = yield* FileSystem.FileSystem
  return yield* readStream(file, fs.stream(file)).pipe(
    Effect.catchTag("PlatformError", () =>
      TextFile.read(file, "transcript file").pipe(
        Effect.mapError((error) => new TranscriptError({ reason: error.message })),
        Effect.flatMap((content) => Effect.fromResult(parse(file, content)))
      )
    )
  )
})

/** The name a transcript file goes by: its base name without the extension. */
export const labelOf = (path: Path.Path, file: string): string => path.basename(file, path.extname(file))

/**
 * The conversation id a transcript file stands for by default: its name and a short hash of the agent and the file's
 * absolute path, so two files of the same name, or one file reviewed for two agents, never share a cursor.
 */
export const conversationOf = (
  path: Path.Path,
  file: string,
  agentId: string,
  sha256: (text: string) => string
): string => `${labelOf(path, file)}-${sha256(`${agentId}\u0000${path.resolve(file)}`).slice(0, 12)}`

/** Options for {@link layer}. */
export interface Options {
  /** The transcript's lines, oldest first. */
  readonly lines: ReadonlyArray<Lines.Line>
  /** The conversation these lines are. */
  readonly conversationId: string
  /** The name an entry's source cites for the conversation (by default its id): `<label> #<seq>`. */
  readonly label?: string | undefined
  /** The agent that owns the conversation; it may write team memory. */
  readonly agentId: string
}

/**
 * The `Transcript` and `Agents` ports over one conversation's lines and its one agent; the transcript reads from a
 * cursor too, so reviewing a long file to its end takes time in proportion to it.
 */
export const layer = (options: Options): Layer.Layer<Transcript.Transcript | Agents.Agents> => {
  const { lines } = options
  /** The lines from index `from` on, oldest first, or down from index `from - 1`, newest first: no copy. */
  const forward = (from: number): Iterable<Lines.Line> => ({
    *[Symbol.iterator]() {
      for (let i = from; i < lines.length; i++) yield lines[i]!
    }
  })
  const backward = (before: number): Iterable<Lines.Line> => ({
    *[Symbol.iterator]() {
      for (let i = before - 1; i >= 0; i--) yield lines[i]!
    }
  })
  /** The index of the first line whose seq is above `seq` (the lines are in seq order). */
  const after = (seq: number) => {
    let low = 0
    let high = lines.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (lines[middle]!.seq <= seq) low = middle + 1
      else high = middle
    }
    return low
  }
  const unknown = (conversationId: string) =>
    new TranscriptError({ reason: `no conversation ${JSON.stringify(conversationId)} in this transcript file` })
  return Layer.mergeAll(
    Layer.succeed(Transcript.Transcript)({
      newestFirst: (conversationId) =>
        conversationId === options.conversationId
          ? Stream.fromIterable(backward(lines.length))
          : Stream.fail(unknown(conversationId)),
      oldestAfter: (conversationId, cursor) =>
        conversationId === options.conversationId
          ? Stream.fromIterable(forward(after(cursor)))
          : Stream.fail(unknown(conversationId)),
      newestUpTo: (conversationId, seq) =>
        conversationId === options.conversationId
          ? Stream.fromIterable(backward(after(seq)))
          : Stream.fail(unknown(conversationId)),
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
    }),
    Layer.succeed(Agents.Agents)({
      get: (agentId) =>
        Effect.succeed(agentId === options.agentId ? { id: agentId, name: agentId, mayWriteTeam: true } : undefined)
    })
  )
}
