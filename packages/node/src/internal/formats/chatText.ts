/**
 * Plain chat text, one `Name: text` a line: the speaker's name (1 to 40 letters, digits, spaces, `.`, `_`, `-` or
 * `'`, starting with a letter or digit), a colon, and what they said. `User`, `Human`, `You` and `Me` are the user;
 * `Assistant`, `AI`, `Agent`, `Bot`, `Model` and the names of well-known assistants (and any name the caller adds) are
 * the agent; `System` lines are no line; anyone else is a person of the conversation, named.
 */
import { Schema } from "effect"
import type { Draft } from "./chatMessages.ts"

/**
 * A row of chat text: a name and a colon first. The name is at most 40 characters, so the pattern reads at most 41 of
 * a row whatever its length.
 */
const speakerPattern = /^[\p{L}\p{N}][\p{L}\p{M}\p{N} ._'’-]{0,39}:/u

/** A row of chat text. */
export const ChatTextRow = Schema.String.check(
  Schema.isPattern(speakerPattern, { expected: "a line of the form Name: text (a name of at most 40 characters)" })
)

const decodeRow = Schema.decodeUnknownResult(ChatTextRow)

/** Names that are the user. */
const userNames: ReadonlySet<string> = new Set(["user", "human", "you", "me"])

/** Names that are the agent. */
export const agentNames: ReadonlyArray<string> = [
  "assistant",
  "ai",
  "agent",
  "bot",
  "chatbot",
  "model",
  "claude",
  "chatgpt",
  "gpt",
  "gemini",
  "copilot"
]

/** Whether `row` reads as a line of chat text. */
export const fits = (row: string): boolean => speakerPattern.test(row)

/**
 * The line of a row of chat text (none for a system line, or a name with nothing said), or what is wrong with it.
 * `agents` are the names of the agent, lower case.
 */
export const rowLine = (
  row: string,
  agents: ReadonlySet<string>
): { readonly line: Draft | undefined } | { readonly problem: string } => {
  const decoded = decodeRow(row)
  if (decoded._tag === "Failure") return { problem: "not a line of chat text: each line is Name: text" }
  const colon = row.indexOf(":")
  const name = row.slice(0, colon).trim()
  const text = row.slice(colon + 1).trim()
  const key = name.toLowerCase()
  if (key === "system" || text === "") return { line: undefined }
  if (userNames.has(key)) return { line: { who: "user", text } }
  if (agents.has(key)) return { line: { who: "agent", text } }
  return { line: { who: "user", name, text } }
}
