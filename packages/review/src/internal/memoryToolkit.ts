/**
 * The memory tools as a model is told of them: `remember`, `forget` and `recall`, their parameters and results, and
 * the reasons a tool changed nothing.
 */
import { MaskedTaggedError } from "@mneme/core"
import { Schema } from "effect"
// By module, not from the "effect/ai" index, which loads all of effect/ai (the MCP server among it) in every process.
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import { CurrentTurn } from "./memoryTurn.ts"

/** Why a tool changed nothing, as its result tells the model. */
export const Reason = Schema.Literals([
  "MemoryFull",
  "NoMatch",
  "Denied",
  "Empty",
  "TooLong",
  "Secret",
  "BadTopic",
  "NoSuchTopic",
  "TooManyTopics",
  "TooManyWrites",
  "NeedsApproval",
  "StorageError"
])

/** Why a tool changed nothing. */
export type Reason = typeof Reason.Type

/** A tool's failure result: why, a message the model can act on, and the entries a match could mean. */
export class MemoryToolError extends MaskedTaggedError<MemoryToolError>()("MemoryToolError", {
  reason: Reason,
  message: Schema.String,
  /** For NoMatch: up to eight entries the match is part of, to quote one whole. */
  candidates: Schema.optionalKey(Schema.Array(Schema.String))
}) {}

/** An optional parameter; a model that sends `null` for it means the same as leaving it out. */
const optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const topicParameter = optional(Schema.String).annotate({
  description: 'A topic of memory (a short lower-case name such as "travel"); MEMORY.md when left out'
})

const teamParameter = optional(Schema.Boolean).annotate({
  description: "true for team memory, which every agent reads; the agent's own memory when left out"
})

/** What `remember` and `forget` answer: whether memory changed, and how, with the file's size against its limit. */
export const Changed = Schema.Struct({
  changed: Schema.Boolean,
  message: Schema.String,
  /** What has changed in either MEMORY.md since the prompt's memory section was frozen, when it has. */
  meanwhile: Schema.optionalKey(Schema.String)
})

/** An entry `recall` gives. */
export const Recalled = Schema.Struct({
  scope: Schema.Literals(["own", "team"]),
  topic: Schema.optionalKey(Schema.String),
  text: Schema.String,
  added: Schema.optionalKey(Schema.String),
  /** How much it means to the query, for a search (higher is more). */
  score: Schema.optionalKey(Schema.Number)
})

/** What `recall` answers: a sentence saying what it found, the entries, best first, and whether more match. */
export const RecallResult = Schema.Struct({
  message: Schema.String,
  entries: Schema.Array(Recalled),
  more: Schema.Boolean,
  /** What has changed in either MEMORY.md since the prompt's memory section was frozen, when it has. */
  meanwhile: Schema.optionalKey(Schema.String)
})

/** `remember`: adds an entry, or replaces the one `replace` names. */
export const RememberTool = Tool.make("remember", {
  description:
    "Keep a lasting fact in long-term memory: one short, self-contained sentence that says whom it is about " +
    '("The user prefers tea to coffee"). Keep only what will matter in later conversations, never secrets. With ' +
    "replace, the entry that text names is changed in its place.",
  parameters: Schema.Struct({
    text: Schema.String.annotate({ description: "The fact, as one self-contained sentence" }),
    topic: topicParameter,
    team: teamParameter,
    replace: optional(Schema.String).annotate({
      description: "The text of the entry this one replaces, or a part only that entry holds"
    })
  }),
  success: Changed,
  failure: MemoryToolError,
  failureMode: "return",
  dependencies: [CurrentTurn]
})

/** `forget`: removes the entry `match` names. */
export const ForgetTool = Tool.make("forget", {
  description:
    "Remove an entry of long-term memory that is wrong or no longer true. match is the entry's text, or a part " +
    "only it holds; give its topic (and team) where recall found it.",
  parameters: Schema.Struct({
    match: Schema.String.annotate({ description: "The entry's text, or a part only that entry holds" }),
    topic: topicParameter,
    team: teamParameter
  }),
  success: Changed,
  failure: MemoryToolError,
  failureMode: "return",
  dependencies: [CurrentTurn]
})

/** `recall`: searches own and team memory, or reads a topic whole. */
export const RecallTool = Tool.make("recall", {
  description:
    "Search all of long-term memory, the agent's own and the team's, topics included: only the entries that matter " +
    "to query (its names, rare words and dates count most), best first, each with its score. With topic (and no " +
    "query), read that topic whole.",
  parameters: Schema.Struct({
    query: optional(Schema.String).annotate({ description: "Words to search for" }),
    topic: optional(Schema.String).annotate({ description: "A topic to read whole, or to search in" })
  }),
  success: RecallResult,
  failure: MemoryToolError,
  failureMode: "return",
  dependencies: [CurrentTurn]
})

/** The memory tools: `remember`, `forget`, `recall`. */
export const MemoryTools = Toolkit.make(RememberTool, ForgetTool, RecallTool)

/** The handlers of the memory tools, as the toolkit's layer provides them. */
export type Handlers = Tool.HandlersFor<Toolkit.Tools<typeof MemoryTools>>
