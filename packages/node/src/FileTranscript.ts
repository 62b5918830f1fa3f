/**
 * A JSONL transcript file as the review's host ports: one JSON object a line, `{"seq":1,"who":"user","text":"…"}`
 * (`who` one of `user`, `agent`, `other` with a `name`), serving one conversation owned by one agent, or a group
 * conversation of member agents (an agent's line names it: `{"who":"agent","name":"ada",…}`). The whole file
 * is read and checked once, as a stream, each line parsed as soon as it ends, so a bad line fails at once with its line
 * number and what is wrong, and the file's text or bytes are never held. `read` keeps the lines; `open`, for a run of
 * `mneme review`, keeps only an index of them (each line's seq and a few numbers, and where its bytes are) and reads a
 * line from the file when the review pulls it, so a long transcript is never held in memory.
 */
import { Lines, Text, TranscriptError } from "@mneme/core"
import { Agents, Platform, Transcript } from "@mneme/review"
import { Effect, FileSystem, Layer, Option, Path, Result, Schema, SchemaIssue, Stream } from "effect"
import type { PlatformError } from "effect/PlatformError"
import * as Jsonl from "./internal/jsonl.ts"
import * as TextFile from "./internal/textFile.ts"
import * as TranscriptIndex from "./internal/transcriptIndex.ts"

const LineJson = Schema.fromJsonString(Lines.Line)

const decodeLine = Schema.decodeUnknownResult(LineJson)
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** What a transcript line looks like, for messages. */
const lineShape = `{"seq": 1, "who": "user", "text": "…"}`

const whos: ReadonlySet<unknown> = new Set(Lines.Line.fields.who.literals)
const kinds: ReadonlySet<unknown> = new Set(Lines.Kind.literals)

/**
 * The line `source` holds when it is plainly one, as `Lines.Line` decodes it (its fields, in its order, none other),
 * checked without the schema's machinery: a long transcript is hundreds of thousands of lines, and this is most of what
 * reading one costs. `undefined` for anything else, which the schema then reads, to accept it or say what is wrong.
 */
const plainLine = (source: string): Lines.Line | undefined => {
  const parsed = Result.try((): unknown => JSON.parse(source))
  if (Result.isFailure(parsed)) return undefined
  const value = parsed.success
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const { seq, who, name, text, kind } = value as Record<string, unknown>
  if (!Number.isSafeInteger(seq) || (seq as number) < 0 || !whos.has(who) || typeof text !== "string") return undefined
  if ((name !== undefined && typeof name !== "string") || (kind !== undefined && !kinds.has(kind))) return undefined
  return {
    seq,
    who,
    ...(name === undefined ? {} : { name }),
    text,
    ...(kind === undefined ? {} : { kind })
  } as Lines.Line
}

/** What is wrong with a JSONL line, or the line itself. */
const parseLine = (source: string, previous: Lines.Line | undefined): Result.Result<Lines.Line, string> => {
  const plain = plainLine(source)
  const decoded = plain === undefined ? decodeLine(source) : Result.succeed(plain)
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

/** The bytes that end a row: LF, CR, or both (CRLF). No byte of a multi-byte UTF-8 character is either. */
const LF = 0x0a
const CR = 0x0d

/** Decodes a row whole; a byte order mark is kept, as only the one that opens the text is dropped. */
const rowDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** Whether `bytes` open with a UTF-8 byte order mark. */
const opensWithBom = (bytes: Uint8Array) => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf

/** The pieces of a row that spans chunks, as one. */
const joined = (pieces: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (pieces.length === 1) return pieces[0]!
  const bytes = new Uint8Array(pieces.reduce((size, piece) => size + piece.length, 0))
  let at = 0
  for (const piece of pieces) {
    bytes.set(piece, at)
    at += piece.length
  }
  return bytes
}

/**
 * Reads the rows of a JSONL transcript as its bytes come, and gives `onLine` each line as soon as its row ends, with
 * where the line's bytes are in the source (past a leading byte order mark) and how many there are. Rows are split
 * at the byte level (LF, CRLF or CR, a CR that ends a chunk and an LF that opens the next being one line end), and
 * each row is decoded whole. The bytes must be UTF-8 text without NUL bytes, as `TextFile.read` says, and blank rows
 * are skipped; the first row that is not text, or not a line, fails with `TextFile.read`'s words or with its number,
 * and `name` names the source in every message.
 */
const readRows = <E>(
  name: string,
  bytes: Stream.Stream<Uint8Array, E>,
  onLine: (line: Lines.Line, offset: number, length: number) => void
): Effect.Effect<void, TranscriptError | E> =>
  Effect.suspend(() => {
    let row = 0
    let previous: Lines.Line | undefined
    // The row not ended yet: its pieces and where it starts; where the next chunk starts; and whether the last row
    // ended with the CR that ended its chunk (an LF opening the next chunk then ends no row).
    let pieces: Array<Uint8Array> = []
    let start = 0
    let position = 0
    let afterCr = false
    /** Reads the row of `pieces`, or gives its problem. */
    const endRow = (): TranscriptError | undefined => {
      row++
      let bytes = joined(pieces)
      let offset = start
      pieces = []
      if (row === 1 && opensWithBom(bytes)) {
        bytes = bytes.subarray(3)
        offset += 3
      }
      const text = Result.try(() => rowDecoder.decode(bytes))
      if (Result.isFailure(text)) return notText(name, "it holds bytes that are not UTF-8 text")
      if (text.success.includes("\u0000")) return notText(name, "it holds NUL bytes, as binary files do")
      if (text.success.trim() === "") return undefined
      const parsed = parseLine(text.success, previous)
      if (Result.isFailure(parsed)) return new TranscriptError({ reason: `${name} line ${row}: ${parsed.failure}` })
      previous = parsed.success
      onLine(parsed.success, offset, bytes.length)
      return undefined
    }
    /** Reads the rows `chunk` ends, or gives the first problem. */
    const take = (chunk: Uint8Array): TranscriptError | undefined => {
      let from = 0
      if (afterCr && chunk.length > 0) {
        afterCr = false
        if (chunk[0] === LF) {
          from = 1
          start++
        }
      }
      let lf = chunk.indexOf(LF, from)
      let cr = chunk.indexOf(CR, from)
      while (lf !== -1 || cr !== -1) {
        const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
        pieces.push(chunk.subarray(from, end))
        const problem = endRow()
        if (problem !== undefined) return problem
        from = end + 1
        if (chunk[end] === CR && from === chunk.length) afterCr = true
        else if (chunk[end] === CR && chunk[from] === LF) from++
        start = position + from
        if (lf !== -1 && lf < from) lf = chunk.indexOf(LF, from)
        if (cr !== -1 && cr < from) cr = chunk.indexOf(CR, from)
      }
      // Copied: the source may reuse the chunk's bytes for the next one.
      if (from < chunk.length) pieces.push(chunk.slice(from))
      position += chunk.length
      return undefined
    }
    const failOn = (problem: TranscriptError | undefined) =>
      problem === undefined ? Effect.void : Effect.fail(problem)
    return bytes.pipe(
      Stream.runForEach((chunk) => failOn(take(chunk))),
      Effect.andThen(Effect.suspend(() => failOn(endRow())))
    )
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
    return readRows(name, bytes, (line) => lines.push(line)).pipe(Effect.as(lines))
  })

/**
 * Reads and checks a JSONL transcript as its bytes come, as `readStream` does (the same lines, the same failures),
 * into an index of its lines instead of the lines: each line's seq, whether it is the user's own words, its size cut
 * with `settings` (`Text.length(Lines.cut(line, settings))`), and where its bytes are (`TranscriptIndex`).
 */
export const index = <E>(
  name: string,
  bytes: Stream.Stream<Uint8Array, E>,
  settings: Lines.CutSettings
): Effect.Effect<TranscriptIndex.FileIndex, TranscriptError | E> =>
  Effect.suspend(() => {
    const columns = TranscriptIndex.builder()
    return readRows(name, bytes, (line, offset, length) =>
      columns.add(line, Text.length(Lines.cut(line, settings)), offset, length)
    ).pipe(Effect.map(columns.done))
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

/** What the ports of one conversation say besides its lines. */
export interface Ports {
  /** The conversation the lines are. */
  readonly conversationId: string
  /** The name an entry's source cites for the conversation (by default its id): `<label> #<seq>`. */
  readonly label?: string | undefined
  /** The agent that owns the conversation; it may write team memory. */
  readonly agentId: string
  /**
   * The member agents, when the file is a group conversation (SPEC 4.7): each is reviewed on its own and may write team
   * memory; `agentId` is then not asked.
   */
  readonly members?: ReadonlyArray<string> | undefined
}

/** Options for {@link layer}. */
export interface Options extends Ports {
  /** The transcript's lines, oldest first. */
  readonly lines: ReadonlyArray<Lines.Line>
}

/**
 * The `Transcript` and `Agents` ports over one conversation of `count` lines, line `i` read by `lineAt(i)` when the
 * review pulls it; the transcript reads from a cursor too (a binary search of `seqAt`), so reviewing a long transcript
 * to its end takes time in proportion to it.
 */
const portsOver = (
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
    Layer.succeed(Transcript.Transcript)({
      newestFirst: (conversationId) => ours(conversationId, () => linesFrom(lines.count - 1, -1)),
      oldestAfter: (conversationId, cursor) =>
        ours(conversationId, () => linesFrom(TranscriptIndex.after(lines, cursor), 1)),
      newestUpTo: (conversationId, seq) =>
        ours(conversationId, () => linesFrom(TranscriptIndex.after(lines, seq) - 1, -1)),
      agentOf: (conversationId) =>
        conversationId === options.conversationId
          ? Effect.succeed(options.agentId)
          : Effect.fail(unknown(conversationId)),
      membersOf: (conversationId) =>
        conversationId === options.conversationId
          ? Effect.succeed(options.members)
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
        Effect.succeed(
          (options.members === undefined ? agentId === options.agentId : options.members.includes(agentId))
            ? { id: agentId, name: agentId, mayWriteTeam: true }
            : undefined
        )
    })
  )
}

/**
 * The `Transcript` and `Agents` ports over one conversation's lines held in memory and its one agent; the transcript
 * reads from a cursor too, so reviewing a long file to its end takes time in proportion to it.
 */
export const layer = (options: Options): Layer.Layer<Transcript.Transcript | Agents.Agents> => {
  const { lines } = options
  return portsOver(options, { count: lines.length, seqAt: (i) => lines[i]!.seq }, (i) => Effect.succeed(lines[i]!))
}

/**
 * A transcript ready for a run of reviews: the index of its lines (what the run estimates and says from), and the
 * ports that serve its lines to the review (`layer`'s, for one conversation and its agent).
 */
export interface Source {
  readonly index: TranscriptIndex.Index
  readonly layer: (ports: Ports) => Layer.Layer<Transcript.Transcript | Agents.Agents>
}

/**
 * A transcript's lines held in memory as a `Source`, their sizes cut with `settings`: for standard input, which cannot
 * be read twice.
 */
export const ofLines = (lines: ReadonlyArray<Lines.Line>, settings: Lines.CutSettings): Source => ({
  index: TranscriptIndex.ofLines(lines, settings),
  layer: (ports) => layer({ ...ports, lines })
})

/** The chunks a file is indexed in, as `FileSystem.stream` reads. */
const chunkSize = 64 * 1024

/**
 * A file's bytes from its start, read at explicit positions (the file's own cursor is left alone) into one buffer: each
 * chunk is overwritten by the next, so the stream is for a reader that is done with a chunk when it pulls the next,
 * as `readRows` is (it copies what it keeps). The file is read without a new buffer a chunk, which would stay in
 * memory until the garbage collector frees it.
 */
const bytesOf = (file: FileSystem.File): Stream.Stream<Uint8Array, PlatformError> =>
  Stream.suspend(() => {
    const buffer = new Uint8Array(chunkSize)
    return Stream.unfold(0, (position) =>
      Effect.map(file.read(buffer, { position: BigInt(position) }), (size) =>
        size === 0 ? undefined : ([buffer.subarray(0, size), position + size] as const)
      )
    )
  })

/** Whether a file's stat says it is as it was: the same size, changed last at the same time. */
const unchanged = (seen: FileSystem.File.Info, now: FileSystem.File.Info) =>
  seen.size === now.size && Option.getOrUndefined(seen.mtime)?.getTime() === Option.getOrUndefined(now.mtime)?.getTime()

/** The transcript line of `bytes`, if they still are one. */
const lineOf = (bytes: Uint8Array): Lines.Line | undefined => {
  const text = Result.try(() => rowDecoder.decode(bytes))
  if (Result.isFailure(text)) return undefined
  return Result.getOrUndefined(parseLine(text.success, undefined))
}

/**
 * Opens a JSONL transcript file for a run of reviews, as a `Source` that does not hold its lines: the file is read
 * and checked once, as `read` reads it, into an index of its lines (see `index`, sizes cut with `settings`), and kept
 * open for as long as the scope is; a review's reads then read each line from the file as the review pulls it. A
 * file that changed since it was indexed (its size or its time of change differ, or a line is no longer where the
 * index says) fails the read that finds it, with a `TranscriptError` that says so: the reviews before it are kept,
 * and none moves its cursor past lines it did not read. The file is read through the one handle, so a file replaced
 * under its name meanwhile is still read as it was indexed. What is not a file (a pipe, a device), and a file that
 * cannot be opened or read, is read by `read`, held in memory, and its failures are `read`'s.
 */
export const open = Effect.fn("FileTranscript.open")(function* (file: string, settings: Lines.CutSettings) {
  const fs = yield* FileSystem.FileSystem
  const opened = yield* fs.open(file).pipe(
    Effect.flatMap((handle) =>
      Effect.flatMap(handle.stat, (seen) =>
        seen.type === "File"
          ? Effect.map(index(file, bytesOf(handle), settings), (lines) => ({ handle, seen, lines }))
          : Effect.succeed(undefined)
      )
    ),
    Effect.catchTag("PlatformError", () => Effect.succeed(undefined))
  )
  if (opened === undefined) return ofLines(yield* read(file), settings)
  const { handle, seen, lines } = opened
  const changed = new TranscriptError({
    reason: `${file} changed while it was being reviewed; run the review again to go on from where it stopped`
  })
  const lineAt = (i: number): Effect.Effect<Lines.Line, TranscriptError> =>
    handle.readAlloc(lines.lengthAt(i), { position: BigInt(lines.offsetAt(i)) }).pipe(
      // Read, then checked: bytes read before a stat that finds the file as it was are the bytes indexed.
      Effect.flatMap((bytes) => Effect.map(handle.stat, (now) => (unchanged(seen, now) ? bytes : Option.none()))),
      Effect.mapError(
        (error) =>
          new TranscriptError({
            reason: new TextFile.Unreadable({ file, problem: `cannot be read: ${Platform.describeFailure(error)}` })
              .message
          })
      ),
      Effect.flatMap((bytes) => {
        const line = Option.isSome(bytes) && bytes.value.length === lines.lengthAt(i) ? lineOf(bytes.value) : undefined
        return line?.seq === lines.seqAt(i) ? Effect.succeed(line) : Effect.fail(changed)
      })
    )
  return { index: lines, layer: (ports) => portsOver(ports, lines, lineAt) } satisfies Source
})
