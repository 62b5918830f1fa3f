/**
 * Chat messages in the shapes chat APIs use (OpenAI's Chat Completions and Anthropic's Messages), read as transcript
 * lines: a message's `content` is a text or a list of parts; the words of the user and of the assistant are lines
 * said, a tool call (OpenAI's `tool_calls`, Anthropic's `tool_use`) and a tool result (a `tool` message, Anthropic's
 * `tool_result`) are tool lines, which the review never keeps; system and developer messages, images, documents and
 * the model's thinking are no line at all. Claude Code's session records carry the same content (see `claudeCode`).
 */
import type { Lines } from "@mneme/core"
import { Option, Schema } from "effect"

/** A transcript line but for its number, which the reader gives. */
export type Draft = Omit<Lines.Line, "seq">

/** The part types that carry words: a text of a message. */
const textTypes = ["text", "input_text", "output_text"] as const

/** The part types that call a tool. */
const toolUseTypes = ["tool_use", "server_tool_use"] as const

/** The part types that carry a tool's result. */
const toolResultTypes = ["tool_result", "web_search_tool_result"] as const

/** Every part type read here; any other (an image, a document, thinking) is no line. */
const known: ReadonlySet<string> = new Set<string>([...textTypes, "refusal", ...toolUseTypes, ...toolResultTypes])

/** A part of a text. */
const TextPart = Schema.Struct({ type: Schema.Literals(textTypes), text: Schema.String })

/** A refusal of the model (OpenAI): said by the assistant. */
const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })

/** A part that is not words: an image, a document, the model's thinking. */
const OtherPart = Schema.Struct({
  type: Schema.String.check(Schema.makeFilter((type) => !known.has(type) || `a ${type} part needs its fields`))
})

/** A part of a tool's result. */
const ResultPart = Schema.Union([TextPart, OtherPart])

/** A tool call (Anthropic's `tool_use`). */
const ToolUsePart = Schema.Struct({
  type: Schema.Literals(toolUseTypes),
  name: Schema.String,
  input: Schema.optionalKey(Schema.Unknown)
})

/** A tool's result (Anthropic's `tool_result`): a text or a list of parts. */
const ToolResultPart = Schema.Struct({
  type: Schema.Literals(toolResultTypes),
  content: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(ResultPart)]))),
  is_error: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
})

/** A part of a message's content. */
const Part = Schema.Union([TextPart, RefusalPart, ToolUsePart, ToolResultPart, OtherPart])

/** A message's content: a text, a list of parts, or none. */
export const Content = Schema.NullOr(Schema.Union([Schema.String, Schema.Array(Part)]))

/** What a message's content is. */
export type Content = typeof Content.Type

/** An OpenAI tool call: a function's name and its arguments (a JSON text). */
const FunctionCall = Schema.Struct({ name: Schema.String, arguments: Schema.optionalKey(Schema.Unknown) })

/** An OpenAI tool call of an assistant message. */
const ToolCall = Schema.Struct({ function: FunctionCall })

/** The roles of a chat message. */
const roles = ["system", "developer", "user", "assistant", "tool", "function"] as const

/** One chat message, OpenAI's or Anthropic's. */
export const Message = Schema.Struct({
  role: Schema.Literals(roles),
  content: Schema.optionalKey(Content),
  name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ToolCall))),
  function_call: Schema.optionalKey(Schema.NullOr(FunctionCall))
})

/** One chat message. */
export type Message = typeof Message.Type

/** A chat message as one JSON text (a row of a JSONL file). */
export const MessageJson = Schema.fromJsonString(Message)

/** Chat messages as one JSON array. */
export const MessagesJson = Schema.fromJsonString(Schema.Array(Message))

const decodeJsonValue = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Unknown))

/** A tool call as its line says it: `{"tool": name, "params": …}`, the arguments read as JSON where they are. */
const callText = (name: string, params: unknown): string => {
  const value = typeof params === "string" ? Option.getOrElse(decodeJsonValue(params), () => params) : params
  return JSON.stringify(value === undefined ? { tool: name } : { tool: name, params: value })
}

/** The text of a tool's result: its text, or its text parts joined. */
const resultText = (content: string | ReadonlyArray<{ readonly type: string }> | null | undefined): string =>
  typeof content === "string"
    ? content
    : (content ?? []).flatMap((part) => (isText(part) ? [part.text] : [])).join("\n")

const isText = Schema.is(TextPart)
const isRefusal = Schema.is(RefusalPart)
const isToolUse = Schema.is(ToolUsePart)
const isToolResult = Schema.is(ToolResultPart)

/** Who says a message's words, and the speaker's name where a person's message gives one. */
export interface Speaker {
  readonly who: "user" | "agent"
  readonly name?: string | undefined
}

/**
 * The lines of a message's content said by `speaker`, in the order of its parts: the texts next to each other as one
 * line, each tool call and each tool result a tool line of its own. Texts of white space only are left out.
 */
export const contentLines = (content: Content | undefined, speaker: Speaker): Array<Draft> => {
  const lines: Array<Draft> = []
  const named = speaker.who === "user" && speaker.name !== undefined && speaker.name.trim() !== ""
  let words: Array<string> = []
  const flush = () => {
    const text = words.join("\n")
    words = []
    if (text.trim() !== "") lines.push({ who: speaker.who, ...(named ? { name: speaker.name! } : {}), text })
  }
  if (typeof content === "string") words.push(content)
  for (const part of typeof content === "string" || content === null || content === undefined ? [] : content) {
    if (isText(part) || isRefusal(part)) {
      const text = isText(part) ? part.text : part.refusal
      if (text.trim() !== "") words.push(text)
    } else if (isToolUse(part)) {
      flush()
      lines.push({ who: speaker.who, kind: "tool-call", text: callText(part.name, part.input) })
    } else if (isToolResult(part)) {
      flush()
      const text = resultText(part.content)
      lines.push({ who: speaker.who, kind: "tool-result", text: part.is_error === true ? `error: ${text}` : text })
    }
  }
  flush()
  return lines
}

/**
 * The lines of one chat message: a user's (named when the message names its author) or the assistant's words, its
 * tool calls and tool results as tool lines; none for a system or developer message.
 */
export const messageLines = (message: Message): Array<Draft> => {
  switch (message.role) {
    case "system":
    case "developer":
      return []
    case "user":
      return contentLines(message.content, { who: "user", name: message.name ?? undefined })
    case "assistant": {
      const calls = (message.tool_calls ?? []).map((call) => call.function)
      if (message.function_call !== undefined && message.function_call !== null) calls.push(message.function_call)
      return [
        ...contentLines(message.content, { who: "agent" }),
        ...calls.map((call): Draft => ({ who: "agent", kind: "tool-call", text: callText(call.name, call.arguments) }))
      ]
    }
    case "tool":
    case "function": {
      return [{ who: "agent", kind: "tool-result", text: resultText(message.content) }]
    }
  }
}
