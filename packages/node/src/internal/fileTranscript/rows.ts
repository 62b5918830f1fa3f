/**
 * A transcript's rows as its bytes come: split at line ends, each decoded whole and read in the file's shape
 * (`TranscriptFormat`) as soon as it ends, the first row that is not text or does not read failing with its number.
 */
import { Lines, TranscriptError } from "@mneme/core"
import { Effect, Result, Schema, SchemaIssue, Stream } from "effect"
import * as TextFile from "../textFile.ts"
import * as TranscriptFormat from "../../TranscriptFormat.ts"

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
export const parseLine = (source: string, previous: Lines.Line | undefined): Result.Result<Lines.Line, string> => {
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

/** The bytes of `name` are not text: `TextFile.read`'s words. */
const notText = (name: string, problem: string) =>
  new TranscriptError({
    reason: new TextFile.Unreadable({ file: name, problem: `is not a text file: ${problem}` }).message
  })

/** The bytes that end a row: LF, CR, or both (CRLF). No byte of a multi-byte UTF-8 character is either. */
const LF = 0x0a
const CR = 0x0d

/** Decodes a row whole; a byte order mark is kept, as only the one that opens the text is dropped. */
export const rowDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

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
export interface Scanned {
  /** The shape the rows were read in; `undefined` when there was no row that is not blank. */
  readonly reading: TranscriptFormat.Reading | undefined
  /** Chat messages in one JSON array: its lines (not given to `onLine`), and where the array's bytes are. */
  readonly array:
    { readonly lines: ReadonlyArray<Lines.Line>; readonly offset: number; readonly length: number } | undefined
}

/** How the rows of a transcript are read: its shape, and whether it is a file still being written. */
export interface ScanOptions extends TranscriptFormat.Options {
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
export const readRows = <E>(
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
