/**
 * Every limit and knob of mneme, with the defaults of docs/spec.md. A `Context.Reference`, so a program that does not
 * provide one gets the defaults, and a host overrides any of them with `MemoryConfig.layer({ ... })`. Each service
 * reads it once, when its layer is built, and every path of that service obeys those values.
 */
import { Context, DateTime, Duration, Layer } from "effect"

/**
 * A cost budget per agent per day, across its conversations: at most `calls` model calls and `tokens` tokens (as the
 * model reports them, else estimated at a token per 3 characters of prompt and answer). Either may be left out.
 */
export interface ReviewBudget {
  readonly calls?: number | undefined
  readonly tokens?: number | undefined
}

/** The limits and review knobs. Sizes are in code points. */
export interface Settings {
  /** Longest entry, in characters. */
  readonly entryMax: number
  /** Largest MEMORY.md, in characters. */
  readonly memoryMax: number
  /** Largest topic file, in characters. */
  readonly topicMax: number
  /** Most topics per scope. */
  readonly topicsMax: number
  /** Whether the background review runs at all (memory still works through the tools when it does not). */
  readonly reviewEnabled: boolean
  /** How long after a turn ends its review is queued. */
  readonly reviewDelay: Duration.Duration
  /** Lines before the new ones shown as context, marked as already reviewed. */
  readonly contextLines: number
  /** Lines a first review reads (extended back to a user line). */
  readonly firstReviewLines: number
  /** A user line is cut to this many characters, keeping both ends. */
  readonly userLineMax: number
  /** Any other line is cut to this many characters. */
  readonly otherLineMax: number
  /** Characters of new lines one review reads (the first line always goes). */
  readonly newLinesBudget: number
  /** Characters of topic entry text one review shows. */
  readonly shownTopicsBudget: number
  /** Changes of one answer that are used. */
  readonly answerChangesMax: number
  /** Extra passes over the same lines for an answer at the cap that changed something. */
  readonly extraPassesMax: number
  /** Failed reviews at one cursor before the review stops calling the model for those lines. */
  readonly failuresMax: number
  /** How long one model call may take. */
  readonly modelTimeout: Duration.Duration
  /** Most output tokens a model call may produce (a provider setting). */
  readonly outputTokensMax: number
  /** The host's interface language, used when the user's lines give no clue (e.g. "English"); none by default. */
  readonly interfaceLanguage: string | undefined
  /** The IANA time zone in which `added` dates are written; the process's own by default (read when first asked). */
  readonly timeZone: string
  /** The host's own secret test, consulted beside mneme's. */
  readonly isSecret: ((text: string) => boolean) | undefined
  /** Writes (`remember`, `forget`) the agent's tools make in one turn; more are refused with a result saying so. */
  readonly toolWritesPerTurn: number
  /** Most entries one `recall` gives. */
  readonly recallResultsMax: number
  /** Characters of entry text one `recall` gives (the first entry always, however long). */
  readonly recallBudget: number
  /** Characters of the memory section of the agent's system prompt, its text on the tools included. */
  readonly memorySectionBudget: number
  /** The model calls and tokens each agent's reviews may spend per day (in `timeZone`); none by default. */
  readonly reviewBudget: ReviewBudget | undefined
  /** Whether a review consolidates a scope's MEMORY.md that is full or nearly (else a full file fails the review). */
  readonly consolidateEnabled: boolean
  /** How full a scope's MEMORY.md (a share of `memoryMax`, 0 to 1) is before a review consolidates it. */
  readonly consolidateAt: number
  /** At most one consolidation per scope within this time. */
  readonly consolidateEvery: Duration.Duration
  /**
   * Which entries a review proposes wait for a person (`mneme pending`, `approve`, `reject`) instead of being written:
   * `"suspicious"` those that read as an instruction to the agent or cite no line of the user's own words; `"all"`
   * every new entry; `"off"` none (an entry that reads as an instruction is still left out). Held where the backend
   * keeps pending entries (a memory folder, Postgres); over a backend that keeps none, they are left out.
   */
  readonly approval: Approval
  /** Most entries waiting for a person per scope; the oldest is dropped, with a warning, to make room. */
  readonly pendingMax: number
}

/** Which entries a review proposes wait for a person. */
export type Approval = "off" | "suspicious" | "all"

/** The defaults of docs/spec.md. The time zone is the process's own, looked up when it is read, never at import. */
export const defaults: Settings = {
  entryMax: 300,
  memoryMax: 4_000,
  topicMax: 16_000,
  topicsMax: 40,
  reviewEnabled: true,
  reviewDelay: Duration.seconds(2),
  contextLines: 4,
  firstReviewLines: 6,
  userLineMax: 3_000,
  otherLineMax: 800,
  newLinesBudget: 16_000,
  shownTopicsBudget: 16_000,
  answerChangesMax: 8,
  extraPassesMax: 4,
  failuresMax: 2,
  modelTimeout: Duration.seconds(120),
  outputTokensMax: 2_048,
  interfaceLanguage: undefined,
  get timeZone() {
    return DateTime.zoneMakeLocal().id
  },
  isSecret: undefined,
  toolWritesPerTurn: 8,
  recallResultsMax: 20,
  recallBudget: 4_000,
  memorySectionBudget: 8_000,
  reviewBudget: undefined,
  consolidateEnabled: true,
  consolidateAt: 0.9,
  consolidateEvery: Duration.hours(1),
  approval: "suspicious",
  pendingMax: 50
}

/** The configuration in force; the defaults unless a host provides its own. */
export const MemoryConfig = Context.Reference<Settings>("@mneme/core/MemoryConfig", {
  defaultValue: () => defaults
})

/**
 * Settings with a host's overrides applied over the defaults. The default time zone stays looked up when it is read
 * (copied as what it is, not read by a spread), so a command that writes no date never pays for looking it up.
 */
export const make = (overrides: Partial<Settings> = {}): Settings =>
  Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(defaults), ...Object.getOwnPropertyDescriptors(overrides) }
  ) as Settings

/** A layer that provides the defaults with a host's overrides (made when the layer is built). */
export const layer = (overrides: Partial<Settings> = {}): Layer.Layer<never> =>
  Layer.sync(MemoryConfig, () => make(overrides))
