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
import { Effect, FileSystem, Layer, Option, Path, Result, Stream } from "effect"
import type { PlatformError } from "effect/PlatformError"
import * as TextFile from "./internal/textFile.ts"
import * as TranscriptIndex from "./internal/transcriptIndex.ts"
import * as TranscriptFormat from "./TranscriptFormat.ts"
import { parseLine, readRows, rowDecoder, type ScanOptions } from "./internal/fileTranscript/rows.ts"
import { type Ports, portsOver } from "./internal/fileTranscript/ports.ts"

export type { ScanOptions } from "./internal/fileTranscript/rows.ts"
export type { Ports } from "./internal/fileTranscript/ports.ts"

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

/** Options for {@link layer}. */
export interface Options extends Ports {
  /** The transcript's lines, oldest first. */
  readonly lines: ReadonlyArray<Lines.Line>
}

/**
 * The `Transcript` and `Agents` ports over one conversation's lines held in memory and its one agent (its members and
 * `Groups`, for a group); the transcript reads from a cursor too, so reviewing a long file to its end takes time in
 * proportion to it.
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
