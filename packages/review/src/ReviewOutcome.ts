/**
 * What one memory review gives back (docs/spec.md 4.4–4.6): an `Outcome`, a tagged union built from the values each step of
 * the review returns, with what landed in memory; the stable texts of the review's warnings; its metrics; and the
 * key its cursor is kept under. This module imports no other module of the review, so every part can use it.
 */
import type {
  Answer,
  BadTopic,
  MalformedAnswer,
  MemoryFull,
  ModelError,
  StorageError,
  TooManyTopics,
  TranscriptError,
  UnlistedEntry
} from "@mneme/core"
import { Data, Metric } from "effect"

/** The key under which the review state keeps a conversation's cursor, failure record and the like. */
export const cursorKey = (conversationId: string): string => `chat:${conversationId}`

/** The key of one member agent's cursor, failure record and the like in a group conversation (docs/spec.md 4.7). */
export const memberKey = (conversationId: string, agentId: string): string => `group:${conversationId}:${agentId}`

/** What one review is of: a conversation, and in a group the member agent whose review it is. */
export interface Target {
  readonly conversationId: string
  readonly member: string | undefined
}

/** The key of a review's target: `chat:<id>`, or `group:<id>:<agent>` for a member of a group. */
export const targetKey = (target: Target): string =>
  target.member === undefined ? cursorKey(target.conversationId) : memberKey(target.conversationId, target.member)

/** An entry a review added or removed. */
export interface Applied {
  readonly scope: "own" | "team"
  readonly topic: string | undefined
  readonly text: string
}

/** An entry a review edited: `text` is the new text. */
export interface Edited extends Applied {
  readonly before: string
}

/** A change a review skipped (its entry has gone, or it is not allowed), and why. */
export interface Skipped {
  readonly change: Answer.Change
  readonly reason: string
}

/** An entry memory cannot keep (empty or too long), left out of an answer on its own. */
export interface LeftOut {
  readonly text: string
  readonly problem: string
}

/** A change memory refused (full, too many topics, a bad topic name): it fails the review once the rest is applied. */
export interface FailedChange {
  readonly change: Answer.Change
  readonly error: MemoryFull | TooManyTopics | BadTopic
  /** The error's message, secrets masked. */
  readonly reason: string
}

/** An entry a consolidation moved from MEMORY.md to a topic. */
export interface Moved {
  readonly text: string
  readonly topic: string
}

/**
 * What a consolidation pass did to a full MEMORY.md (or, dry, would do): every entry it removed, merged (edited) or
 * moved, by its text (`MemoryConsolidation`).
 */
export interface Consolidated {
  readonly _tag: "Consolidated"
  readonly scope: "own" | "team"
  readonly file: string
  /** MEMORY.md's size before and after, in characters. */
  readonly before: number
  readonly after: number
  readonly removed: ReadonlyArray<Applied>
  readonly edited: ReadonlyArray<Edited>
  readonly moved: ReadonlyArray<Moved>
  readonly added: ReadonlyArray<Applied>
  /** Entries of the answer memory cannot keep, left out. */
  readonly leftOut: ReadonlyArray<LeftOut>
  /** Changes not made, with why (an entry named twice, a topic that cannot take it…). */
  readonly skipped: ReadonlyArray<string>
  readonly modelCalls: number
  readonly dryRun: boolean
}

/** What a review's answers did to memory: exactly what landed, even when the review failed afterwards. */
export interface Changes {
  readonly added: ReadonlyArray<Applied>
  readonly edited: ReadonlyArray<Edited>
  readonly removed: ReadonlyArray<Applied>
  readonly leftOut: ReadonlyArray<LeftOut>
  /** Secret entries dropped from answers, silently. */
  readonly secretsDropped: number
  readonly skipped: ReadonlyArray<Skipped>
  /** Changes memory refused, each with why; the first is the failed review's error. */
  readonly failed: ReadonlyArray<FailedChange>
  /** The consolidations the review ran to make room in a full MEMORY.md (absent when none ran). */
  readonly consolidated?: ReadonlyArray<Consolidated>
}

/** No change at all. */
export const noChanges: Changes = {
  added: [],
  edited: [],
  removed: [],
  leftOut: [],
  secretsDropped: 0,
  skipped: [],
  failed: []
}

/** Everything that fails a review and counts against the failure policy. */
export type ReviewError =
  TranscriptError | StorageError | ModelError | MalformedAnswer | UnlistedEntry | BadTopic | MemoryFull | TooManyTopics

/** What every outcome says. */
type Common = {
  readonly conversationId: string
  /** The agent that owns the conversation; `undefined` when even that could not be read. */
  readonly agentId: string | undefined
  /** The conversation's cursor after the review. */
  readonly cursor: number | undefined
  /** Answers applied (the first, and any extra passes over the same lines). */
  readonly passes: number
  readonly modelCalls: number
  readonly changes: Changes
  /** Whether newer lines than this review read are waiting (the next review reads them). */
  readonly moreFollow: boolean
}

/** How one review went, by its `_tag`. */
export type Outcome = Data.TaggedEnum<{
  /** The model's answers were applied and the cursor moved past the lines it saw. */
  Reviewed: Common
  /** No line after the cursor: no model call. */
  NothingNew: Common
  /** The new lines hold no user line: passed without a model call. */
  NoUserLine: Common
  /**
   * The failure policy allows no model call for these lines now, or the agent's review budget for the day is spent
   * (`budget` says so); the cursor stays where it is.
   */
  Stopped: Common & {
    /** Why, when the agent's daily review budget stopped it (`MemoryConfig.reviewBudget`). */
    readonly budget?: string | undefined
    /** Failed reviews at this cursor so far. */
    readonly failures: number
    /** When the policy allows the next try, epoch ms; `undefined`: not until a success or a newer user line. */
    readonly until: number | undefined
  }
  /** The agent was deleted: the review stopped and keeps nothing more. */
  AgentGone: Common
  /** The review failed; `changes` says what of its answers landed before it did. */
  Failed: Common & {
    /** Why, as a typed error a host can handle by tag. */
    readonly error: ReviewError
    /** The error's message for people, secrets masked, and that retries stopped where they did. */
    readonly reason: string
    /** Whether the failure policy stopped calling the model for these lines with this failure. */
    readonly stopped: boolean
  }
}>

/** The outcomes' constructors, `$is` and the exhaustive `$match`. */
export const Outcome = Data.taggedEnum<Outcome>()

/** The model's answers were applied and the cursor moved past the lines it saw. */
export type Reviewed = Data.TaggedEnum.Value<Outcome, "Reviewed">

/** No line after the cursor: no model call. */
export type NothingNew = Data.TaggedEnum.Value<Outcome, "NothingNew">

/** The new lines hold no user line: passed without a model call. */
export type NoUserLine = Data.TaggedEnum.Value<Outcome, "NoUserLine">

/** The failure policy or the day's budget stopped the review; the cursor stays where it is. */
export type Stopped = Data.TaggedEnum.Value<Outcome, "Stopped">

/** The agent was deleted: the review stopped and keeps nothing more. */
export type AgentGone = Data.TaggedEnum.Value<Outcome, "AgentGone">

/** The review failed; `changes` says what of its answers landed before it did. */
export type Failed = Data.TaggedEnum.Value<Outcome, "Failed">

/** Whether a review did what it had to: nothing failed, and the policy did not stop it. */
export const isOk = (outcome: Outcome): outcome is Reviewed | NothingNew | NoUserLine =>
  Outcome.$match(outcome, {
    Reviewed: () => true,
    NothingNew: () => true,
    NoUserLine: () => true,
    Stopped: () => false,
    AgentGone: () => false,
    Failed: () => false
  })

/** Why a review did not succeed, for people (`null` when it did). */
export const reasonOf = (outcome: Outcome): string | null =>
  Outcome.$match(outcome, {
    Reviewed: () => null,
    NothingNew: () => null,
    NoUserLine: () => null,
    Stopped: (stopped) => stopped.budget ?? warnings.stopped,
    AgentGone: () => "the agent was deleted",
    Failed: (failed) => failed.reason
  })

/**
 * Whether another review of the same target should follow `outcome` at once: newer lines than it read are waiting,
 * and it moved the cursor on from `from` (when the cursor before it is known), so the next one reads new lines.
 */
export const goesOn = (outcome: Outcome, from?: number): boolean =>
  isOk(outcome) && outcome.moreFollow && outcome.cursor !== undefined && outcome.cursor !== from

/** A short description of an answer's change, for warnings and people: `add "…"`, `edit entry 3`. */
export const describeChange = (change: Answer.Change): string =>
  change.op === "add" ? `add ${JSON.stringify(change.text)}` : `${change.op} entry ${change.entry}`

/** The stable texts of the review's warnings (logged with `Effect.logWarning`; details in the annotations). */
export const warnings = {
  /** A review failed (annotations: `reason`). */
  failed: "memory review failed",
  /** Reviews at these lines keep failing: no more model calls for them for now (annotations: `failures`, `reason`). */
  stopped: "memory review stopped retrying these lines",
  /** An answer held entries memory cannot keep; they were left out and the rest applied (annotations: `problem`). */
  leftOut: "memory review left out entries memory cannot keep",
  /** Entries of an answer wait for a person's approval (`mneme pending`) (annotations: `entries`, `why`). */
  held: "memory review holds entries for a person's approval",
  /** A change was skipped: its entry has gone, or it is not allowed (annotations: `change`, `reason`). */
  skipped: "memory review skipped a change",
  /**
   * An answer's change named a line the request did not show as the line its fact comes from: that number is ignored,
   * and where it named no line shown, the entry cites the newest user line the model saw (annotations: `change`,
   * `lines`, `shown`, `source`).
   */
  unshownLine: "memory review ignored a line number the request did not show",
  /** A topic file could not be read: the review went on without it (annotations: `file`, `reason`). */
  unreadable: "memory review left out a topic file it could not read",
  /** Topic files that MEMORY.md's index does not link (annotations: `files`). */
  unlinked: "memory review found topic files not linked from MEMORY.md",
  /**
   * A host dropped lines of a group's log that members had not reviewed (annotations: `conversation`, `upto`,
   * `members`): their loss is recorded in the review state, per member.
   */
  dropped: "memory review lost lines dropped before members reviewed them",
  /**
   * The agent's reviews spent its daily budget: they wait for the next day, or a person's review; warned once per
   * agent and day (annotations: `agent`, `reason`).
   */
  overBudget: "memory review reached the agent's daily budget",
  /**
   * A scope's MEMORY.md was full (or nearly): the review consolidated it to make room (annotations: `file`, `before`,
   * `after`, `removed`, `edited`, `moved`).
   */
  consolidated: "memory review consolidated a full MEMORY.md"
} as const

const sizes = Metric.exponentialBoundaries({ start: 256, factor: 2, count: 10 })

/**
 * The review's metrics. The counts of a review (`reviews`, `modelCalls`, `failures`, `changesApplied`, `leftOut`) are
 * added when it ends, tagged with its outcome (attribute `outcome`: the outcome's `_tag`); the sizes and tokens are
 * recorded per model call.
 */
export const metrics = {
  reviews: Metric.counter("mneme_review_reviews", { description: "memory reviews, by outcome" }),
  modelCalls: Metric.counter("mneme_review_model_calls", { description: "model calls made by memory reviews" }),
  failures: Metric.counter("mneme_review_failures", { description: "memory reviews that failed" }),
  changesApplied: Metric.counter("mneme_review_changes_applied", { description: "changes memory reviews applied" }),
  leftOut: Metric.counter("mneme_review_left_out", { description: "entries left out as memory cannot keep them" }),
  promptSize: Metric.histogram("mneme_review_prompt_characters", {
    description: "characters of system and request text per model call",
    boundaries: sizes
  }),
  answerSize: Metric.histogram("mneme_review_answer_characters", {
    description: "characters of answer per model call",
    boundaries: sizes
  }),
  inputTokens: Metric.counter("mneme_review_input_tokens", {
    description: "input tokens, where the model reports them"
  }),
  outputTokens: Metric.counter("mneme_review_output_tokens", {
    description: "output tokens, where the model reports them"
  })
} as const
