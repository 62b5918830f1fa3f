/**
 * The shapes of transcript files mneme reads (`mneme review`, `mneme watch`, the panel), each parsed with Schema into
 * transcript lines:
 * - `mneme`: mneme's own JSONL, one `{"seq": 1, "who": "user", "text": "…"}` a line;
 * - `chat`: chat messages as chat APIs take them, one `{"role": "user", "content": "…"}` a line or one JSON array of
 *   them (OpenAI's and Anthropic's: `content` a text or a list of parts; system messages left out; tool calls and
 *   tool results read as tool lines, which the review never keeps);
 * - `claude-code`: a Claude Code session file, its user and assistant records (tool use and tool results as tool lines;
 *   meta records, summaries and other records skipped);
 * - `text`: plain chat text, one `Name: text` a line.
 *
 * A file's shape is recognised from its first row that is not blank, or named. The lines of every shape but mneme's own
 * are numbered 1, 2, 3… in the order they come, so a file that grows keeps its numbers (and a cursor over it holds).
 * A row of a shape's JSONL may give several lines (a message's words and its tool calls), or none (a system message).
 */
import { Lines } from "@mneme/core"
import { Result, Schema, SchemaIssue } from "effect"
import * as ChatMessages from "./internal/formats/chatMessages.ts"
import * as ChatText from "./internal/formats/chatText.ts"
import * as ClaudeCode from "./internal/formats/claudeCode.ts"

/** The names of the shapes, as `--format` takes them. */
export const names = ["mneme", "chat", "claude-code", "text"] as const

/** A shape of transcript file. */
export const Format = Schema.Literals(names)

/** A shape of transcript file. */
export type Format = typeof Format.Type

/** Each shape as a message names it. */
export const described: Record<Format, string> = {
  mneme: `mneme JSONL ({"seq": 1, "who": "user", "text": "…"} a line)`,
  chat: `chat messages ({"role": "user", "content": "…"} a line, or one JSON array of them)`,
  "claude-code": "a Claude Code session file (JSONL of user and assistant records)",
  text: "plain chat text (Name: text a line)"
}

/** What a reader is told besides the shape. */
export interface Options {
  /** The shape, when it is not to be recognised from the content. */
  readonly format?: Format | undefined
  /** Further names that chat text calls the agent by (`Ada: …`), beside `Assistant`, `AI` and the like. */
  readonly agentNames?: ReadonlyArray<string> | undefined
}

/** What a file that fits no shape says, after the number of its first row that is not blank. */
export const fitsNone =
  "fits none of the transcript formats: " +
  names.map((name) => `${described[name]} (--format ${name})`).join(", ") +
  "; name one with --format to see what is wrong with this line"

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** What a schema found wrong, in words: `"role": Expected …`, or the issue's message when it is about the whole. */
const problemOf = (error: Schema.SchemaError, shape: string): string => {
  const issue = formatIssue(error.issue).issues[0]
  const path = issue?.path ?? []
  if (path.length === 0) return `not ${shape}: ${issue?.message ?? "it does not read"}`
  return `not ${shape}: "${path.map(String).join(".")}": ${issue?.message ?? "it does not read"}`
}

const decodeObject = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))

/** How a reader reads a file: one of the shapes by its rows, or (chat messages in one JSON array) the text whole. */
export type Reading = Format | "chat-array"

/**
 * The shape a file's first row that is not blank says it is, or `undefined` when it fits none: a JSON object with
 * `seq` or `who` is mneme's; with `role`, a chat message; with `type` and an id of Claude Code's records
 * (`uuid`, `sessionId`…), a session file; a JSON array opens chat messages in one array; `Name: text`, chat text.
 */
export const recognise = (row: string): Reading | undefined => {
  const start = row.trimStart()
  if (start.startsWith("[")) return "chat-array"
  if (start.startsWith("{")) {
    const object = decodeObject(start)
    if (object._tag === "None") return undefined
    const has = (key: string) => Object.hasOwn(object.value, key)
    if (has("seq") || has("who")) return "mneme"
    if (has("role")) return "chat"
    if (typeof object.value["type"] === "string" && ClaudeCode.recordKeys.some(has)) return "claude-code"
    return undefined
  }
  return ChatText.fits(row) ? "text" : undefined
}

const decodeMessage = Schema.decodeUnknownResult(ChatMessages.MessageJson)
const decodeRecord = Schema.decodeUnknownResult(ClaudeCode.SessionRecordJson)
const decodeMessages = Schema.decodeUnknownResult(ChatMessages.MessagesJson)

/** The names chat text calls the agent by, lower case. */
const agentNamesOf = (options: Options): ReadonlySet<string> =>
  new Set([...ChatText.agentNames, ...(options.agentNames ?? []).map((name) => name.toLowerCase())])

/**
 * The lines of one row of a shape other than mneme's, without their numbers, or what is wrong with the row. `agents`
 * are the names chat text calls the agent by, lower case.
 */
export const draftsOf = (
  format: Exclude<Format, "mneme">,
  row: string,
  agents: ReadonlySet<string>
): Result.Result<ReadonlyArray<ChatMessages.Draft>, string> => {
  switch (format) {
    case "chat": {
      const message = decodeMessage(row)
      return Result.isSuccess(message)
        ? Result.succeed(ChatMessages.messageLines(message.success))
        : Result.fail(problemOf(message.failure, "a chat message"))
    }
    case "claude-code": {
      const record = decodeRecord(row)
      return Result.isSuccess(record)
        ? Result.succeed(ClaudeCode.recordLines(record.success))
        : Result.fail(problemOf(record.failure, "a Claude Code session record"))
    }
    case "text": {
      const read = ChatText.rowLine(row, agents)
      return "problem" in read ? Result.fail(read.problem) : Result.succeed(read.line === undefined ? [] : [read.line])
    }
  }
}

/** A row's lines numbered on from `last` (the number of the line before them). */
const numbered = (drafts: ReadonlyArray<ChatMessages.Draft>, last: number): Array<Lines.Line> =>
  drafts.map((draft, i) => ({ seq: last + 1 + i, ...draft }))

/**
 * Reads the rows of one file in order: each row that is not blank gives its lines, numbered, or what is wrong with it
 * (the caller puts the row's number before it). The first row says which shape the file is, unless `options.format`
 * does; a file of chat messages in one JSON array is `"chat-array"`, to be read whole with `readArray`.
 */
export interface Reader {
  /** The shape being read, once a row has said it. */
  readonly reading: () => Reading | undefined
  /**
   * The lines of the next row that is not blank, or what is wrong with it. `mneme` is mneme's own row reader: it is
   * given the line before, and checks the seq grows.
   */
  readonly row: (text: string) => Result.Result<ReadonlyArray<Lines.Line>, string> | "array"
}

/**
 * A reader of one file's rows; `mneme` reads a row of mneme's own JSONL (it is `FileTranscript`'s, which keeps its
 * fast path), given the line before.
 */
export const reader = (
  options: Options,
  mneme: (text: string, previous: Lines.Line | undefined) => Result.Result<Lines.Line, string>
): Reader => {
  let reading: Reading | undefined = options.format
  let first = true
  let previous: Lines.Line | undefined
  let last = 0
  const agents = agentNamesOf(options)
  return {
    reading: () => reading,
    row: (text) => {
      const opening = first
      first = false
      if (reading === undefined) {
        reading = recognise(text)
        if (reading === undefined) return Result.fail(fitsNone)
      }
      // Chat messages named with --format may be one JSON array too.
      if (opening && reading === "chat" && text.trimStart().startsWith("[")) reading = "chat-array"
      if (reading === "chat-array") return "array"
      if (reading === "mneme") {
        const line = mneme(text, previous)
        if (Result.isFailure(line)) return Result.fail(line.failure)
        previous = line.success
        return Result.succeed([line.success])
      }
      const drafts = draftsOf(reading, text, agents)
      if (Result.isFailure(drafts)) return Result.fail(drafts.failure)
      const lines = numbered(drafts.success, last)
      last += lines.length
      return Result.succeed(lines)
    }
  }
}

/**
 * The lines of one row of a file of `format` read again on their own (a review reading a line of an indexed file),
 * numbered from `first`; mneme's own rows keep their seq.
 */
export const rowAgain = (
  format: Format,
  row: string,
  first: number,
  options: Options,
  mneme: (text: string) => Result.Result<Lines.Line, string>
): Result.Result<ReadonlyArray<Lines.Line>, string> => {
  if (format === "mneme") return Result.map(mneme(row), (line) => [line])
  return Result.map(draftsOf(format, row, agentNamesOf(options)), (drafts) => numbered(drafts, first - 1))
}

/**
 * Chat messages in one JSON array, read whole: their lines numbered 1, 2, 3…, or what is wrong with the text. An empty
 * array is chat messages only when `named` (with --format chat): recognised from the content, it says nothing.
 */
export const readArray = (text: string, named: boolean): Result.Result<ReadonlyArray<Lines.Line>, string> => {
  const messages = decodeMessages(text)
  if (Result.isFailure(messages)) {
    const issue = formatIssue(messages.failure.issue).issues[0]
    const path = issue?.path ?? []
    const message = issue?.message ?? "it does not read"
    if (typeof path[0] !== "number") return Result.fail(`not one JSON array of chat messages: ${message}`)
    const field = path.length > 1 ? `"${path.slice(1).map(String).join(".")}": ` : ""
    return Result.fail(`message ${path[0] + 1} of the array is not a chat message: ${field}${message}`)
  }
  if (messages.success.length === 0 && !named) return Result.fail(`an empty JSON array ${fitsNone}`)
  return Result.succeed(numbered(messages.success.flatMap(ChatMessages.messageLines), 0))
}
