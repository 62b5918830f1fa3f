/**
 * The typed errors of mneme. Each is a `Schema.TaggedError` with a message a person can act on; hosts handle them
 * with `Effect.catchTag`, and the two errors with several causes (`StorageError`, `Denied`) carry a tagged `reason`
 * that `Effect.catchReason` can pick out. Nothing in mneme is thrown. The storage's errors are in
 * internal/storageErrors.ts, what every error shares in internal/errorBase.ts.
 */
import { Predicate, Schema } from "effect"
import * as Topic from "./Topic.ts"
import { count as n } from "./Text.ts"
import { MaskedTaggedError, quote, TypeId } from "./internal/errorBase.ts"
import type { StorageError } from "./internal/storageErrors.ts"

export { MaskedTaggedError } from "./internal/errorBase.ts"
export * from "./internal/storageErrors.ts"

/** Whether a value is one of mneme's typed errors (a caller maps them to an exit code or a tool result). */
export const isMnemeError = (u: unknown): u is MnemeError => Predicate.hasProperty(u, TypeId)

// ---------------------------------------------------------------------------------------------------------------------
// The model's answer

/** The model's answer is not one JSON object with a well-formed `changes` list. */
export class MalformedAnswer extends MaskedTaggedError<MalformedAnswer>()("MalformedAnswer", {
  /** What is wrong with it. */
  reason: Schema.String,
  /** The first 120 characters of the answer, secrets masked. */
  excerpt: Schema.String
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return `the model's answer is not a list of changes (${this.reason}): ${quote(this.excerpt)}`
  }
}

/** An `edit` or `remove` in the model's answer names an entry the review did not list. */
export class UnlistedEntry extends Schema.TaggedError<UnlistedEntry>()("UnlistedEntry", {
  entry: Schema.Number,
  listed: Schema.Number
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return `the model's answer names entry ${this.entry}, but the review listed ${n(this.listed)} entr${
      this.listed === 1 ? "y" : "ies"
    }`
  }
}

/** A topic name that cannot be one (`topic` as given; the message shows it with its secrets masked). */
export class BadTopic extends MaskedTaggedError<BadTopic>()(
  "BadTopic",
  {
    topic: Schema.String
  },
  Topic.shown
) {
  readonly [TypeId] = TypeId
  override get message() {
    return `${quote(Topic.shown(this.topic))} is not a topic name: use 1-48 letters, digits, "_" or "-", starting with a letter or digit, not "memory", a device name such as "con", or anything that looks secret`
  }
}

/** The most topic names a `NoSuchTopic` message lists. */
const topicsListed = 10

/** A topic name that names no topic of the memory looked in: the topics there are, so the caller can pick one. */
export class NoSuchTopic extends MaskedTaggedError<NoSuchTopic>()("NoSuchTopic", {
  /** The topic asked for, cleaned. */
  topic: Schema.String,
  /** Where it was looked for, as people read it: `agents/ada or team`. */
  where: Schema.String,
  /** The topics there are, by name. */
  topics: Schema.Array(Schema.String)
}) {
  readonly [TypeId] = TypeId
  override get message() {
    const more = this.topics.length - topicsListed
    const listed =
      this.topics.length === 0
        ? "there are no topics yet"
        : this.topics.length === 1
          ? `the only topic is ${this.topics[0]}`
          : more <= 0
            ? `the topics are ${this.topics.join(", ")}`
            : `the topics are ${this.topics.slice(0, topicsListed).join(", ")} and ${n(more)} more`
    return `there is no topic ${quote(this.topic)} in ${this.where}; ${listed}`
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Changing memory

/** A change would take a file past its size. */
export class MemoryFull extends MaskedTaggedError<MemoryFull>()("MemoryFull", {
  /** The file, relative to the memory root. */
  file: Schema.String,
  /** Its size after the change, in characters. */
  size: Schema.Number,
  /** Its limit, in characters. */
  limit: Schema.Number
}) {
  readonly [TypeId] = TypeId
  override get message() {
    const percent = Math.round((this.size / this.limit) * 100)
    return `${this.file} would hold ${n(this.size)} of its ${n(this.limit)} characters (${n(percent)}%): remove or shorten entries, or move details into a topic, to make room`
  }
}

/** A match names no entry, or several. */
export class NoMatch extends MaskedTaggedError<NoMatch>()("NoMatch", {
  file: Schema.String,
  match: Schema.String,
  /** Up to eight entries that contain the match (several found) or none (nothing found). */
  candidates: Schema.Array(Schema.String)
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return this.candidates.length === 0
      ? `no entry in ${this.file} holds ${quote(this.match)}`
      : `${quote(this.match)} matches several entries in ${this.file}; quote one of them whole:\n${this.candidates
          .map((text) => `- ${text}`)
          .join("\n")}`
  }
}

/** The entry is empty once cleaned. */
export class EmptyEntry extends Schema.TaggedError<EmptyEntry>()("EmptyEntry", {}) {
  override get message() {
    return "memory cannot keep this entry: the entry is empty"
  }
}

/** The entry is longer than an entry may be. */
export class TooLong extends Schema.TaggedError<TooLong>()("TooLong", {
  /** Its length, in characters. */
  length: Schema.Number,
  max: Schema.Number
}) {
  override get message() {
    return `memory cannot keep this entry: the entry is ${n(this.length)} characters, over the limit of ${n(this.max)}`
  }
}

/** The entry looks like a secret. */
export class SecretEntry extends Schema.TaggedError<SecretEntry>()("SecretEntry", {}) {
  override get message() {
    return "memory cannot keep this entry: it looks like a secret (a key, password or ID number), which memory never keeps"
  }
}

/** The agent may not write team memory. */
export class TeamMemory extends MaskedTaggedError<TeamMemory>()("TeamMemory", {
  agentId: Schema.String
}) {
  override get message() {
    return `the agent ${quote(this.agentId)} may not change team memory`
  }
}

/** Why a change is not allowed. */
export const DeniedReason = Schema.Union([EmptyEntry, TooLong, SecretEntry, TeamMemory])

/** Why a change is not allowed. */
export type DeniedReason = typeof DeniedReason.Type

/** A change is not allowed: an entry memory cannot keep, or team memory by an agent that may not write it. */
export class Denied extends Schema.TaggedError<Denied>()("Denied", {
  reason: DeniedReason
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return this.reason.message
  }
}

/** A scope already has as many topics as it may. */
export class TooManyTopics extends MaskedTaggedError<TooManyTopics>()("TooManyTopics", {
  scope: Schema.String,
  limit: Schema.Number
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return `${this.scope} already has ${n(this.limit)} topics: add to an existing topic, or remove one first`
  }
}

/** A journaled change cannot be undone: the file no longer holds what the journal says the change wrote. */
export class NotUndoable extends MaskedTaggedError<NotUndoable>()("NotUndoable", {
  /** The file, relative to the memory root. */
  file: Schema.String,
  /** What is in the way, in words. */
  detail: Schema.String
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return `cannot undo the change to ${this.file}: ${this.detail}; nothing was changed`
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// The model and the transcript

/** The model could not give an answer. */
export class ModelError extends MaskedTaggedError<ModelError>()("ModelError", {
  reason: Schema.String,
  /** Whether trying the same call again may help (a connection error, 429, 5xx). */
  retryable: Schema.optionalKey(Schema.Boolean)
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return `the model failed: ${this.reason}`
  }
}

/** The host's transcript could not be read. */
export class TranscriptError extends MaskedTaggedError<TranscriptError>()("TranscriptError", {
  reason: Schema.String
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return `the transcript could not be read: ${this.reason}`
  }
}

/** Every typed error of mneme. */
export type MnemeError =
  | MalformedAnswer
  | UnlistedEntry
  | BadTopic
  | NoSuchTopic
  | MemoryFull
  | NoMatch
  | Denied
  | TooManyTopics
  | NotUndoable
  | ModelError
  | TranscriptError
  | StorageError
