/**
 * A conversation log read from its end, a chunk at a time: a line is decoded once it is whole, so reading the newest
 * lines of a long log holds those lines and one chunk, never the whole file.
 */
import { TranscriptError } from "@mneme/core"
import { Effect, type FileSystem, Option, type PlatformError, Stream } from "effect"

/** How many bytes of a log are read at a time, from its end. */
export const chunkSize = 64 * 1024

/** One line of a log as read from its end: its text, its size in bytes, and whether no line break ends it. */
export interface RawLine {
  readonly text: string
  readonly bytes: number
  /** The text after the file's last line break: a line written without one, or a torn write. */
  readonly unterminated: boolean
}

const newline = 0x0a
const decoder = new TextDecoder("utf-8", { fatal: true })

/** Where the bytes not read yet end, the line the last chunk cut at its start, and whether a line break was met. */
interface Backward {
  readonly end: number
  readonly carry: Uint8Array
  readonly unterminated: boolean
}

/** A line's bytes as text. */
const rawLine = (bytes: Uint8Array, unterminated: boolean, name: string): Effect.Effect<RawLine, TranscriptError> =>
  Effect.try({
    try: () => ({ text: decoder.decode(bytes), bytes: bytes.length, unterminated: unterminated && bytes.length > 0 }),
    catch: () => new TranscriptError({ reason: `${name} holds bytes that are not UTF-8 text` })
  })

/**
 * The non-blank lines of an open file of `size` bytes, newest first, read a chunk at a time from its end: a line is
 * decoded once it is whole, so only one chunk and the line it cut are held at a time.
 */
export const linesBackward = (
  file: FileSystem.File,
  size: number,
  name: string
): Stream.Stream<RawLine, PlatformError.PlatformError | TranscriptError> =>
  Stream.paginate<Backward, RawLine, PlatformError.PlatformError | TranscriptError>(
    { end: size, carry: new Uint8Array(0), unterminated: true },
    (state) =>
      Effect.gen(function* () {
        const start = Math.max(0, state.end - chunkSize)
        const read = yield* file.readAlloc(state.end - start, { position: BigInt(start) })
        const chunk = Option.getOrElse(read, () => new Uint8Array(0))
        const bytes = new Uint8Array(chunk.length + state.carry.length)
        bytes.set(chunk)
        bytes.set(state.carry, chunk.length)
        const lines: Array<RawLine> = []
        let stop = bytes.length
        for (let at = bytes.length - 1; at >= 0; at--) {
          if (bytes[at] !== newline) continue
          lines.push(yield* rawLine(bytes.subarray(at + 1, stop), state.unterminated && stop === bytes.length, name))
          stop = at
        }
        // What comes before the chunk's first line break: the file's first line, or a line the chunk's start cut.
        const front = bytes.subarray(0, stop)
        const unterminated = state.unterminated && stop === bytes.length
        if (start === 0) lines.push(yield* rawLine(front, unterminated, name))
        const filled = lines.filter((line) => line.text.trim() !== "")
        return start === 0
          ? ([filled, Option.none()] as const)
          : ([filled, Option.some({ end: start, carry: front.slice(), unterminated })] as const)
      })
  )
