/**
 * The standard input of `mneme mcp`, read a line at a time before Effect's MCP server sees it. Effect's stdio
 * transport parses each chunk it reads as a whole: one line that is not JSON throws, and the chunk's other messages
 * (an `initialize` among them) are dropped, with a stack trace on stderr and no answer. Here each line is judged on its
 * own: a JSON-RPC message goes on to the server as one line, and a line that cannot be one is answered at once on
 * standard output with a JSON-RPC error (`-32700` for text that is not JSON, `-32600` for JSON that is no message),
 * so no other message is lost and a client is never left waiting.
 */
import { Effect, Layer, Result, Stdio, Stream } from "effect"

/** The longest line taken, in UTF-16 units (the limit of Effect's own line reader). */
export const maxLine = 16 * 1024 * 1024

/** A line read so far (the engine joins the pieces of a growing text without copying it each time), or past `max`. */
export interface Reading {
  readonly text: string
  readonly tooLong: boolean
}

/** Nothing read yet. */
export const empty: Reading = { text: "", tooLong: false }

/** A whole line, or one that was longer than the limit (its text dropped as it came). */
export type Frame = { readonly _tag: "Line"; readonly text: string } | { readonly _tag: "TooLong" }

const ended = (reading: Reading): Frame =>
  reading.tooLong ? { _tag: "TooLong" } : { _tag: "Line", text: reading.text }

/** A piece added to the line being read, keeping no text past `max`. */
const grown = (reading: Reading, piece: string, max: number): Reading => {
  if (reading.tooLong || piece === "") return reading
  return reading.text.length + piece.length > max
    ? { text: "", tooLong: true }
    : { text: reading.text + piece, tooLong: false }
}

/**
 * The lines `chunk` ends (split at LF, a CR before it dropped), and the line it leaves open. Each character is looked
 * at once, however the text is cut into chunks.
 */
export const split = (
  reading: Reading,
  chunk: string,
  max: number = maxLine
): readonly [reading: Reading, frames: ReadonlyArray<Frame>] => {
  const frames: Array<Frame> = []
  let current = reading
  let start = 0
  for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
    const line = ended(grown(current, chunk.slice(start, end), max))
    frames.push(
      line._tag === "Line" && line.text.endsWith("\r") ? { _tag: "Line", text: line.text.slice(0, -1) } : line
    )
    current = empty
    start = end + 1
  }
  return [grown(current, chunk.slice(start), max), frames]
}

/** The line left open when the input ends (a last message without its line end is still read), if any. */
export const finish = (reading: Reading): ReadonlyArray<Frame> =>
  reading.tooLong || reading.text !== "" ? [ended(reading)] : []

/** What to do with a line: hand it to the server, answer it with an error, or pass over it (a blank line). */
export type Verdict =
  | { readonly _tag: "Message"; readonly line: string }
  | { readonly _tag: "Answer"; readonly reply: string }
  | { readonly _tag: "Blank" }

const errorReply = (id: string | number | null, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const usableId = (id: unknown): id is string | number => typeof id === "string" || typeof id === "number"

/**
 * A frame judged: text that is not JSON gets a parse error (`-32700`, id null); a request or notification (an object
 * with a `method`) whose id is not a string or a number, or a JSON value that is neither a batch, a request, a
 * notification nor a response (an object with an `id` and a `result` or `error`), gets an invalid-request error
 * (`-32600`, with its id where it has a usable one); everything else is the server's.
 */
export const judge = (frame: Frame): Verdict => {
  if (frame._tag === "TooLong") {
    return { _tag: "Answer", reply: errorReply(null, -32700, `Parse error: a line longer than ${maxLine} characters`) }
  }
  if (frame.text.trim() === "") return { _tag: "Blank" }
  const parsed = Result.try((): unknown => JSON.parse(frame.text))
  if (Result.isFailure(parsed)) {
    return { _tag: "Answer", reply: errorReply(null, -32700, "Parse error: a line that is not JSON") }
  }
  const value = parsed.success
  if (Array.isArray(value)) return { _tag: "Message", line: frame.text }
  if (isRecord(value) && "method" in value) {
    return !("id" in value) || usableId(value.id)
      ? { _tag: "Message", line: frame.text }
      : { _tag: "Answer", reply: errorReply(null, -32600, "Invalid Request: an id must be a string or a number") }
  }
  if (isRecord(value) && "id" in value && ("result" in value || "error" in value)) {
    return { _tag: "Message", line: frame.text }
  }
  const id = isRecord(value) && usableId(value.id) ? value.id : null
  return {
    _tag: "Answer",
    reply: errorReply(id, -32600, "Invalid Request: not a JSON-RPC request, notification or response")
  }
}

/**
 * `Stdio` whose standard input gives the server one JSON-RPC message a line, and answers every other line itself on
 * standard output (see the module's comment). Everything else is the surrounding `Stdio`'s.
 */
export const layer: Layer.Layer<Stdio.Stdio, never, Stdio.Stdio> = Layer.effect(
  Stdio.Stdio,
  Effect.map(Effect.service(Stdio.Stdio), (stdio) => {
    const encoder = new TextEncoder()
    const answer = (reply: string) => Stream.run(Stream.make(reply), stdio.stdout())
    const stdin = stdio.stdin.pipe(
      Stream.decodeText,
      Stream.mapAccum(
        () => empty,
        (reading, chunk: string) => split(reading, chunk),
        { onHalt: finish }
      ),
      Stream.map(judge),
      Stream.mapEffect((verdict) =>
        verdict._tag === "Answer"
          ? Effect.as(answer(verdict.reply), [])
          : Effect.succeed(verdict._tag === "Message" ? [encoder.encode(`${verdict.line}\n`)] : [])
      ),
      Stream.flattenIterable
    )
    return Stdio.Stdio.of({ ...stdio, stdin })
  })
)
