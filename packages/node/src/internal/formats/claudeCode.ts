/**
 * Claude Code's session files (`~/.claude/projects/<project>/<session>.jsonl`), read as transcript lines: one JSON
 * record a line, of which the `user` and `assistant` records are the conversation, their `message.content` parts read
 * as chat content is (`chatMessages`): the person's and the assistant's words as lines said, `tool_use` and
 * `tool_result` as tool lines, thinking as no line. What is not the conversation is skipped: meta records (`isMeta`,
 * the caveats and reminders Claude Code adds), the summaries of compacted or earlier sessions, a sub-agent's side
 * chain, and every other record type (system notices, file snapshots). A slash command a person ran, and its output,
 * are read as a tool call and a tool result.
 */
import { Schema } from "effect"
import { contentLines, Content, type Draft } from "./chatMessages.ts"

/** The record types that hold the conversation. */
const conversationTypes = ["user", "assistant"] as const

const conversational: ReadonlySet<string> = new Set(conversationTypes)

const flag = Schema.optionalKey(Schema.NullOr(Schema.Boolean))

/** A user or assistant record: its message, and the marks that say it is not the conversation itself. */
const MessageRecord = Schema.Struct({
  type: Schema.Literals(conversationTypes),
  message: Schema.Struct({ role: Schema.Literals(conversationTypes), content: Content }),
  isMeta: flag,
  isSidechain: flag,
  isCompactSummary: flag,
  isVisibleInTranscriptOnly: flag
})

/** Any other record: a summary, a system notice, a file snapshot, a type Claude Code adds later. */
const OtherRecord = Schema.Struct({
  type: Schema.String.check(
    Schema.makeFilter((type) => !conversational.has(type) || `a ${type} record needs its "message"`)
  )
})

/** One record of a session file. */
export const SessionRecord = Schema.Union([MessageRecord, OtherRecord])

/** One record of a session file as one JSON text (a row). */
export const SessionRecordJson = Schema.fromJsonString(SessionRecord)

/** Keys one of which every record of a session file has, beside its `type`: how a session file is recognised. */
export const recordKeys = ["uuid", "parentUuid", "sessionId", "leafUuid", "messageId"] as const

const isMessageRecord = Schema.is(MessageRecord)

/** Tags that open a person's slash command or shell command, as Claude Code logs them. */
const commandTags = ["<command-name>", "<command-message>", "<bash-input>"]

/** Tags that open the output of a command a person ran. */
const outputTags = ["<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>"]

/** A person's line that is a command or its output, read as a tool call or a tool result. */
const asCommand = (line: Draft): Draft => {
  if (line.who !== "user" || line.kind !== undefined) return line
  const start = line.text.trimStart()
  if (commandTags.some((tag) => start.startsWith(tag))) return { ...line, kind: "tool-call" }
  if (outputTags.some((tag) => start.startsWith(tag))) return { ...line, kind: "tool-result" }
  return line
}

/** The lines of one record: none for a record that is not the conversation. */
export const recordLines = (record: typeof SessionRecord.Type): Array<Draft> => {
  if (!isMessageRecord(record)) return []
  if (record.isMeta === true || record.isSidechain === true || record.isCompactSummary === true) return []
  if (record.isVisibleInTranscriptOnly === true) return []
  const who = record.message.role === "user" ? "user" : "agent"
  return contentLines(record.message.content, { who }).map(asCommand)
}
