/**
 * The MCP server's tools as a client's model is told of them: the memory tools with the agent named in each result,
 * `show` and `review_turn`, their parameters and results, described with the limits in force.
 */
import { Lines, MaskedTaggedError, MemoryConfig, Text } from "@mneme/core"
import { MemoryRoot, MemoryTools } from "@mneme/review"
import { Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"

/** Why a tool changed nothing: the memory tools' reasons, and a turn's lines that could not be kept. */
export const Reason = Schema.Literals([...MemoryTools.Reason.literals, "BadConversation", "BadLine", "TranscriptError"])

/** A tool's failure result: the agent, why, a message the model can act on, the entries a match could mean. */
export class ToolError extends MaskedTaggedError<ToolError>()("MemoryToolError", {
  agent: Schema.String,
  reason: Reason,
  message: Schema.String,
  candidates: Schema.optionalKey(Schema.Array(Schema.String))
}) {}

/** What `remember` and `forget` answer. */
export const Changed = Schema.Struct({ agent: Schema.String, ...MemoryTools.Changed.fields })

/** What `recall` answers. */
export const Recalled = Schema.Struct({ agent: Schema.String, ...MemoryTools.RecallResult.fields })

/** What `show` answers: the agent's memory as Markdown. */
export const Shown = Schema.Struct({ agent: Schema.String, memory: Schema.String })

/** A line of a turn, as `review_turn` takes it. */
export const TurnLine = Schema.Struct({
  who: Lines.Line.fields.who.annotate({
    description: '"user" for the user\'s words, "agent" for your own, "other" for anyone else (with name)'
  }),
  text: Schema.String.annotate({ description: "What was said, as it was said" }),
  name: Schema.optionalKey(Schema.NullOr(Schema.String)).annotate({ description: 'The speaker\'s name, for "other"' }),
  kind: Schema.optionalKey(Schema.NullOr(Lines.Kind)).annotate({
    description:
      '"tool-call" or "tool-result" for a tool call or its result, "memory" for text quoting memory; never kept. ' +
      "Leave it out for words someone said"
  })
})

/** What `review_turn` answers: the lines kept, what happens next, and how the agent's last review went. */
export const TurnKept = Schema.Struct({
  agent: Schema.String,
  conversation: Schema.String,
  kept: Schema.Number,
  first: Schema.NullOr(Schema.Number),
  last: Schema.NullOr(Schema.Number),
  review: Schema.String,
  lastReview: Schema.NullOr(MemoryRoot.LastReview)
})

const descriptionOf = (tool: Tool.Any) => Tool.getDescription(tool) ?? ""

/** The limits, in words, for the tools' descriptions. */
const limitsText = (settings: MemoryConfig.Settings) =>
  `Limits: an entry is at most ${Text.count(settings.entryMax)} characters and is never a key, password or ID ` +
  `number; MEMORY.md holds ${Text.count(settings.memoryMax)} characters, a topic ${Text.count(settings.topicMax)}, ` +
  `and there are at most ${Text.count(settings.topicsMax)} topics. When a change cannot be made, the result is an ` +
  "error that says why and what to do; nothing was written then."

/** The tools, described for a model with the limits in force. */
export const makeTools = (settings: MemoryConfig.Settings) => {
  /** A tool with its hints for a client: whether it only reads, whether it may undo what is there; never open-world. */
  const hinted = <T extends Tool.Any>(tool: T, hints: { readonly readonly: boolean; readonly destructive: boolean }) =>
    tool
      .annotate(Tool.Readonly, hints.readonly)
      .annotate(Tool.Destructive, hints.destructive)
      .annotate(Tool.OpenWorld, false) as T
  const remember = Tool.make("remember", {
    description:
      `${descriptionOf(MemoryTools.RememberTool)} Use it when the user tells you something that will still matter ` +
      `in later conversations (a preference, a fact about them or their work, a decision). ${limitsText(settings)}`,
    parameters: MemoryTools.RememberTool.parametersSchema,
    success: Changed,
    failure: ToolError,
    failureMode: "return"
  })
  const forget = Tool.make("forget", {
    description: `${descriptionOf(MemoryTools.ForgetTool)} When the match names no entry or several, the error lists the candidates.`,
    parameters: MemoryTools.ForgetTool.parametersSchema,
    success: Changed,
    failure: ToolError,
    failureMode: "return"
  })
  const recall = Tool.make("recall", {
    description:
      `${descriptionOf(MemoryTools.RecallTool)} Use it before asking the user something memory may hold. It gives ` +
      `at most ${Text.count(settings.recallResultsMax)} entries, about ${Text.count(settings.recallBudget)} characters.`,
    parameters: MemoryTools.RecallTool.parametersSchema,
    success: Recalled,
    failure: ToolError,
    failureMode: "return"
  })
  const show = Tool.make("show", {
    description:
      "Show all of long-term memory as Markdown: the agent's own MEMORY.md and topics and the team's, each file's " +
      "size against its limit, and how the last background review went (and why it failed, if it did). Use it to " +
      "see what memory holds as a whole, or when memory is full.",
    parameters: Tool.EmptyParams,
    success: Shown,
    failure: ToolError,
    failureMode: "return"
  })
  const reviewTurn = Tool.make("review_turn", {
    description:
      "At the end of each turn of a conversation, hand its new lines to the background memory review: they are kept " +
      "in the conversation's log under the memory folder, and a few seconds later a model reads them with what " +
      "memory holds and keeps what lasts (a later turn end of the same conversation postpones it). Give the same " +
      "conversation id for every turn of one conversation (1-128 letters, digits, _ or -), and only the lines not " +
      "given before, oldest first: the user's words, your answer, anyone else's; a tool call or result is marked " +
      "with kind and is never kept.",
    parameters: Schema.Struct({
      conversation: Schema.String.annotate({ description: "The conversation's id, the same for each of its turns" }),
      lines: Schema.Array(TurnLine).annotate({ description: "The turn's new lines, oldest first" })
    }),
    success: TurnKept,
    failure: ToolError,
    failureMode: "return"
  })
  return Toolkit.make(
    hinted(remember, { readonly: false, destructive: true }).annotate(Tool.Idempotent, true),
    hinted(forget, { readonly: false, destructive: true }),
    hinted(recall, { readonly: true, destructive: false }).annotate(Tool.Idempotent, true),
    hinted(show, { readonly: true, destructive: false }).annotate(Tool.Idempotent, true),
    hinted(reviewTurn, { readonly: false, destructive: false })
  )
}
