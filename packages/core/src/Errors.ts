/**
 * The typed errors of mneme. Each is a `Schema.TaggedError` with a message a person can act on; hosts handle them
 * with `Effect.catchTag`. Nothing in mneme is thrown.
 */
import { Schema } from "effect"

/** The model's answer is not one JSON object with a well-formed `changes` list. */
export class MalformedAnswer extends Schema.TaggedError<MalformedAnswer>()("MalformedAnswer", {
  /** What is wrong with it. */
  reason: Schema.String,
  /** The first 120 characters of the answer. */
  excerpt: Schema.String
}) {
  override get message() {
    return `the model's answer is not a list of changes (${this.reason}): ${JSON.stringify(this.excerpt)}`
  }
}

/** An `edit` or `remove` in the model's answer names an entry the review did not list. */
export class UnlistedEntry extends Schema.TaggedError<UnlistedEntry>()("UnlistedEntry", {
  entry: Schema.Number,
  listed: Schema.Number
}) {
  override get message() {
    return `the model's answer names entry ${this.entry}, but the review listed ${this.listed} entr${
      this.listed === 1 ? "y" : "ies"
    }`
  }
}

/** An `add` in the model's answer names a topic that cannot be a topic name. */
export class BadTopic extends Schema.TaggedError<BadTopic>()("BadTopic", {
  topic: Schema.String
}) {
  override get message() {
    return `${JSON.stringify(this.topic)} is not a topic name: use 1-48 letters, digits, "_" or "-", starting with a letter or digit, not "memory"`
  }
}

/** A change would take a file past its size. */
export class MemoryFull extends Schema.TaggedError<MemoryFull>()("MemoryFull", {
  /** The file, relative to the memory root. */
  file: Schema.String,
  /** Its size after the change, in characters. */
  size: Schema.Number,
  /** Its limit, in characters. */
  limit: Schema.Number
}) {
  override get message() {
    const percent = Math.round((this.size / this.limit) * 100)
    return `${this.file} would hold ${this.size} of its ${this.limit} characters (${percent}%): remove or shorten entries, or move details into a topic, to make room`
  }
}

/** A match names no entry, or several. */
export class NoMatch extends Schema.TaggedError<NoMatch>()("NoMatch", {
  file: Schema.String,
  match: Schema.String,
  /** Up to eight entries that contain the match (several found) or none (nothing found). */
  candidates: Schema.Array(Schema.String)
}) {
  override get message() {
    return this.candidates.length === 0
      ? `no entry in ${this.file} holds ${JSON.stringify(this.match)}`
      : `${JSON.stringify(this.match)} matches several entries in ${this.file}; quote one of them whole:\n${this.candidates
          .map((text) => `- ${text}`)
          .join("\n")}`
  }
}

/** A change is not allowed: team memory by an agent that may not write it, an entry memory cannot keep, a path outside the root. */
export class Denied extends Schema.TaggedError<Denied>()("Denied", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** A scope already has as many topics as it may. */
export class TooManyTopics extends Schema.TaggedError<TooManyTopics>()("TooManyTopics", {
  scope: Schema.String,
  limit: Schema.Number
}) {
  override get message() {
    return `${this.scope} already has ${this.limit} topics: add to an existing topic, or remove one first`
  }
}

/** The model could not give an answer. */
export class ModelError extends Schema.TaggedError<ModelError>()("ModelError", {
  reason: Schema.String,
  /** Whether trying the same call again may help (a connection error, 429, 5xx). */
  retryable: Schema.optionalKey(Schema.Boolean)
}) {
  override get message() {
    return `the model failed: ${this.reason}`
  }
}

/** The host's transcript could not be read. */
export class TranscriptError extends Schema.TaggedError<TranscriptError>()("TranscriptError", {
  reason: Schema.String
}) {
  override get message() {
    return `the transcript could not be read: ${this.reason}`
  }
}

/** A memory file could not be read or written. */
export class MemoryWriteError extends Schema.TaggedError<MemoryWriteError>()("MemoryWriteError", {
  file: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.file}: ${this.reason}`
  }
}
