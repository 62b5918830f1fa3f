/**
 * A transcript file as the review's host ports, serving one conversation owned by one agent, or a group conversation of
 * member agents (an agent's line names it: `{"who":"agent","name":"ada",…}`). The file is in one of the shapes of
 * `TranscriptFormat` (mneme's own JSONL, `{"seq":1,"who":"user","text":"…"}` a line; chat messages; a Claude Code
 * session; plain chat text), recognised from its content or named. The whole file is read and checked once, as a
 * stream, each row parsed as soon as it ends, so a bad row fails at once with its line number and what is wrong, and
 * the file's text or bytes are never held. `read` keeps the lines; `open`, for a run of `mneme review`, keeps only an
 * index of them (each line's seq and a few numbers, and where its bytes are) and reads a line from the file when the
 * review pulls it, so a long transcript is never held in memory (chat messages in one JSON array, a single JSON
 * text, are held).
 */
import { Lines, Text, TranscriptError } from "@mneme/core"
import { Agents, Platform, Transcript } from "@mneme/review"
import { Effect, FileSystem, Layer, Option, Path, Result, Schema, SchemaIssue, Stream } from "effect"
import type { PlatformError } from "effect/PlatformError"
import * as TextFile from "./internal/textFile.ts"
import * as TranscriptIndex from "./internal/transcriptIndex.ts"
import * as TranscriptFormat from "./TranscriptFormat.ts"

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

/** How a transcript is read: its shape (recognised from its content unless named), and the names chat text calls the agent. */
export type ReadOptions = TranscriptFormat.Options

/**
 * Parses a transcript's text (blank lines skipped), oldest first, in its shape (see `TranscriptFormat`); the first bad
 * line fails with its number.
 */
export const parse = (
  file: string,
  content: string,
  options: ReadOptions = {}
): Result.Result<ReadonlyArray<Lines.Line>, TranscriptError> => {
  const reader = TranscriptFormat.reader(options, parseLine)
  const rows = content.split(/\r\n|\r|\n/)
  const lines: Array<Lines.Line> = []
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] ?? ""
    if (row.trim() === "") continue
    const read = reader.row(row)
    if (read === "array") {
      return Result.mapError(
        TranscriptFormat.readArray(rows.slice(index).join("\n"), options.format === "chat"),
        (problem) => new TranscriptError({ reason: `${file}: ${problem}` })
      )
    }
    if (Result.isFailure(read))
      return Result.fail(new TranscriptError({ reason: `${file} line ${index + 1}: ${read.failure}` }))
    lines.push(...read.success)
  }
  return Result.succeed(lines)
}

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

/** What reading a transcript's rows found besides its lines: its shape, and the lines of chat messages in one array. */
interface Scanned {
  /** The shape the rows were read in; `undefined` when there was no row that is not blank. */
  readonly reading: TranscriptFormat.Reading | undefined
  /** Chat messages in one JSON array: its lines (not given to `onLine`), and where the array's bytes are. */
  readonly array:
    { readonly lines: ReadonlyArray<Lines.Line>; readonly offset: number; readonly length: number } | undefined
}

/** How the rows of a transcript are read: its shape, and whether it is a file still being written. */
export interface ScanOptions extends ReadOptions {
  /**
   * The file is being written as it is read (`mneme watch`): a last row without a line end that does not read yet is
   * the start of a row not written whole, and is left for a later read instead of failing.
   */
  readonly growing?: boolean | undefined
}

/**
 * Reads the rows of a transcript as its bytes come, and gives `onLine` each line as soon as its row ends, with where
 * the row's bytes are in the source (past a leading byte order mark) and how many there are (a row of several lines
 * gives each the same). Rows are split at the byte level (LF, CRLF or CR, a CR that ends a chunk and an LF that opens
 * the next being one line end), and each row is decoded whole and read in the file's shape (`TranscriptFormat`). The
 * bytes must be UTF-8 text without NUL bytes, as `TextFile.read` says, and blank rows are skipped; the first row that
 * is not text, or does not read, fails with `TextFile.read`'s words or with its number, and `name` names the source in
 * every message. Chat messages in one JSON array are read whole once the bytes end, and given back instead.
 */
const readRows = <E>(
  name: string,
  bytes: Stream.Stream<Uint8Array, E>,
  options: ScanOptions,
  onLine: (line: Lines.Line, offset: number, length: number) => void
): Effect.Effect<Scanned, TranscriptError | E> =>
  Effect.suspend(() => {
    const reader = TranscriptFormat.reader(options, parseLine)
    let row = 0
    // The rows of a JSON array, from the one that opens it, and where that one starts.
    let array: Array<string> | undefined
    let arrayOffset = 0
    // The row not ended yet: its pieces and where it starts; where the next chunk starts; and whether the last row
    // ended with the CR that ended its chunk (an LF opening the next chunk then ends no row).
    let pieces: Array<Uint8Array> = []
    let start = 0
    let position = 0
    let afterCr = false
    /** Reads the row of `pieces` (`last`: the one the bytes' end ends, with no line end), or gives its problem. */
    const endRow = (last: boolean): TranscriptError | undefined => {
      row++
      let bytes = joined(pieces)
      let offset = start
      pieces = []
      if (row === 1 && opensWithBom(bytes)) {
        bytes = bytes.subarray(3)
        offset += 3
      }
      const text = Result.try(() => rowDecoder.decode(bytes))
      if (Result.isFailure(text)) {
        return last && options.growing === true ? undefined : notText(name, "it holds bytes that are not UTF-8 text")
      }
      if (text.success.includes("\u0000")) return notText(name, "it holds NUL bytes, as binary files do")
      if (array !== undefined) {
        array.push(text.success)
        return undefined
      }
      if (text.success.trim() === "") return undefined
      const read = reader.row(text.success)
      if (read === "array") {
        array = [text.success]
        arrayOffset = offset
        return undefined
      }
      if (Result.isFailure(read)) {
        if (last && options.growing === true) return undefined
        return new TranscriptError({ reason: `${name} line ${row}: ${read.failure}` })
      }
      for (const line of read.success) onLine(line, offset, bytes.length)
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
        const problem = endRow(false)
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
    /** The lines of the JSON array, once its bytes have ended. */
    const arrayRead = (rows: ReadonlyArray<string>) =>
      Result.match(TranscriptFormat.readArray(rows.join("\n"), options.format === "chat"), {
        onFailure: (problem) => Effect.fail(new TranscriptError({ reason: `${name}: ${problem}` })),
        onSuccess: (lines) =>
          Effect.succeed({ lines, offset: arrayOffset, length: position - arrayOffset } satisfies Scanned["array"])
      })
    return bytes.pipe(
      Stream.runForEach((chunk) => failOn(take(chunk))),
      Effect.andThen(Effect.suspend(() => failOn(endRow(true)))),
      Effect.andThen(
        Effect.suspend(() =>
          Effect.map(array === undefined ? Effect.succeed(undefined) : arrayRead(array), (read) => ({
            reading: reader.reading(),
            array: read
          }))
        )
      )
    )
  })

/**
 * Reads and parses a transcript as its bytes come (a file, standard input), oldest first, as `parse` reads a text:
 * each row is parsed as soon as it ends, so only the lines are held, never the whole text or its bytes (but for chat
 * messages in one JSON array, which is one text). Like `TextFile.read`, the bytes must be UTF-8 text without NUL
 * bytes (a leading byte order mark is dropped); the first bad line fails with its number, and `name` names the source
 * in every message.
 */
export const readStream = <E>(
  name: string,
  bytes: Stream.Stream<Uint8Array, E>,
  options: ReadOptions = {}
): Effect.Effect<ReadonlyArray<Lines.Line>, TranscriptError | E> =>
  Effect.suspend(() => {
    const lines: Array<Lines.Line> = []
    return readRows(name, bytes, options, (line) => lines.push(line)).pipe(
      Effect.map((scanned) => scanned.array?.lines ?? lines)
    )
  })

/** A transcript read as an index of its lines, and the shape it was read in. */
interface Indexed {
  readonly index: TranscriptIndex.FileIndex
  readonly reading: TranscriptFormat.Reading | undefined
  /** The lines, for chat messages in one JSON array (which are not read a row at a time). */
  readonly lines: ReadonlyArray<Lines.Line> | undefined
}

/** Indexes a transcript's rows (see `index`), saying the shape it was read in. */
const scan = <E>(
  name: string,
  bytes: Stream.Stream<Uint8Array, E>,
  settings: Lines.CutSettings,
  options: ScanOptions
): Effect.Effect<Indexed, TranscriptError | E> =>
  Effect.suspend(() => {
    const columns = TranscriptIndex.builder()
    const add = (line: Lines.Line, offset: number, length: number) =>
      columns.add(line, Text.length(Lines.cut(line, settings)), offset, length)
    return readRows(name, bytes, options, add).pipe(
      Effect.map((scanned) => {
        for (const line of scanned.array?.lines ?? []) add(line, scanned.array!.offset, scanned.array!.length)
        return { index: columns.done(), reading: scanned.reading, lines: scanned.array?.lines }
      })
    )
  })

/**
 * Reads and checks a transcript as its bytes come, as `readStream` does (the same lines, the same failures), into an
 * index of its lines instead of the lines: each line's seq, whether it is the user's own words, its size cut with
 * `settings` (`Text.length(Lines.cut(line, settings))`), and where the bytes of its row are (`TranscriptIndex`; for
 * chat messages in one JSON array, the array's).
 */
export const index = <E>(
  name: string,
  bytes: Stream.Stream<Uint8Array, E>,
  settings: Lines.CutSettings,
  options: ReadOptions = {}
): Effect.Effect<TranscriptIndex.FileIndex, TranscriptError | E> =>
  Effect.map(scan(name, bytes, settings, options), (indexed) => indexed.index)

/**
 * Reads and parses a transcript file as a stream (see `readStream`), oldest first. A file that cannot be read
 * says why in words: a folder, a file that does not exist, a file that is not text. Those words are `TextFile.read`'s:
 * a file that cannot be streamed is tried once more whole, which names the problem.
 */
export const read = Effect.fn("FileTranscript.read")(function* (file: string, options: ReadOptions = {}) {
  const fs = yield* FileSystem.FileSystem
  return yield* readStream(file, fs.stream(file), options).pipe(
    Effect.catchTag("PlatformError", () =>
      TextFile.read(file, "transcript file").pipe(
        Effect.mapError((error) => new TranscriptError({ reason: error.message })),
        Effect.flatMap((content) => Effect.fromResult(parse(file, content, options)))
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
   * The member agents, when the file is a group conversation (docs/spec.md 4.7): each is reviewed on its own and may write team
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
      })
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

/**
 * Whether a file's stat says it is as it was: the same size, changed last at the same time; or, for a file being
 * written (`growing`), no shorter.
 */
const unchanged = (seen: FileSystem.File.Info, now: FileSystem.File.Info, growing: boolean) =>
  growing
    ? now.size >= seen.size
    : seen.size === now.size &&
      Option.getOrUndefined(seen.mtime)?.getTime() === Option.getOrUndefined(now.mtime)?.getTime()

/** Which of its row's lines line `i` is: how many lines before it share its row. */
const partOf = (lines: TranscriptIndex.FileIndex, i: number): number => {
  let first = i
  while (first > 0 && lines.offsetAt(first - 1) === lines.offsetAt(i)) first--
  return i - first
}

/**
 * Opens a transcript file for a run of reviews, as a `Source` that does not hold its lines: the file is read and
 * checked once, as `read` reads it, into an index of its lines (see `index`, sizes cut with `settings`), and kept open
 * for as long as the scope is; a review's reads then read each line's row from the file as the review pulls it. A
 * file that changed since it was indexed (its size or its time of change differ, or a line is no longer where the
 * index says) fails the read that finds it, with a `TranscriptError` that says so: the reviews before it are kept,
 * and none moves its cursor past lines it did not read. A file being written (`options.growing`) may grow meanwhile:
 * only what was indexed is read, and only a file now shorter, or a line no longer where it was, fails. The file is
 * read through the one handle, so a file replaced under its name meanwhile is still read as it was indexed. Chat
 * messages in one JSON array are held in memory. What is not a file (a pipe, a device), and a file that cannot be
 * opened or read, is read by `read`, held in memory, and its failures are `read`'s.
 */
export const open = Effect.fn("FileTranscript.open")(function* (
  file: string,
  settings: Lines.CutSettings,
  options: ScanOptions = {}
) {
  const fs = yield* FileSystem.FileSystem
  const opened = yield* fs.open(file).pipe(
    Effect.flatMap((handle) =>
      Effect.flatMap(handle.stat, (seen) =>
        seen.type === "File"
          ? Effect.map(scan(file, bytesOf(handle), settings, options), (indexed) => ({ handle, seen, indexed }))
          : Effect.succeed(undefined)
      )
    ),
    Effect.catchTag("PlatformError", () => Effect.succeed(undefined))
  )
  if (opened === undefined) return ofLines(yield* read(file, options), settings)
  const { handle, seen, indexed } = opened
  const { index: lines, reading } = indexed
  if (indexed.lines !== undefined) return ofLines(indexed.lines, settings)
  const format: TranscriptFormat.Format = reading === undefined || reading === "chat-array" ? "mneme" : reading
  const growing = options.growing === true
  const changed = new TranscriptError({
    reason: `${file} changed while it was being reviewed; run the review again to go on from where it stopped`
  })
  /** The line of the bytes of line `i`'s row, if they still hold it. */
  const lineIn = (bytes: Uint8Array, i: number): Lines.Line | undefined => {
    const text = Result.try(() => rowDecoder.decode(bytes))
    if (Result.isFailure(text)) return undefined
    const part = partOf(lines, i)
    const again = TranscriptFormat.rowAgain(format, text.success, lines.seqAt(i) - part, options, (row) =>
      parseLine(row, undefined)
    )
    const line = Result.isSuccess(again) ? again.success[part] : undefined
    return line?.seq === lines.seqAt(i) ? line : undefined
  }
  const lineAt = (i: number): Effect.Effect<Lines.Line, TranscriptError> =>
    handle.readAlloc(lines.lengthAt(i), { position: BigInt(lines.offsetAt(i)) }).pipe(
      // Read, then checked: bytes read before a stat that finds the file as it was are the bytes indexed.
      Effect.flatMap((bytes) =>
        Effect.map(handle.stat, (now) => (unchanged(seen, now, growing) ? bytes : Option.none()))
      ),
      Effect.mapError(
        (error) =>
          new TranscriptError({
            reason: new TextFile.Unreadable({ file, problem: `cannot be read: ${Platform.describeFailure(error)}` })
              .message
          })
      ),
      Effect.flatMap((bytes) => {
        const line =
          Option.isSome(bytes) && bytes.value.length === lines.lengthAt(i) ? lineIn(bytes.value, i) : undefined
        return line === undefined ? Effect.fail(changed) : Effect.succeed(line)
      })
    )
  return { index: lines, layer: (ports) => portsOver(ports, lines, lineAt) } satisfies Source
})
