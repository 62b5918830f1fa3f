/**
 * The storage's typed errors: why a memory root could not be read or written, each a reason of `StorageError`.
 */
import { DateTime, Schema } from "effect"
import { count as n } from "../Text.ts"
import { MaskedTaggedError, TypeId } from "./errorBase.ts"

/** Who holds a memory root's writer lock, as far as its lock says. */
export const LockHolder = Schema.Struct({
  pid: Schema.Number,
  host: Schema.String,
  /** When it took the lock, epoch ms. */
  since: Schema.Number
})

/** Who holds a memory root's writer lock. */
export type LockHolder = typeof LockHolder.Type

/** A file (or folder) could not be read. */
export class ReadFailed extends MaskedTaggedError<ReadFailed>()("ReadFailed", {
  /** The path, relative to the memory root. */
  file: Schema.String,
  /** What the platform said, in words. */
  detail: Schema.String
}) {
  override get message() {
    return `${this.file}: could not read it: ${this.detail}`
  }
}

/** A file is not valid UTF-8 text. */
export class NotText extends MaskedTaggedError<NotText>()("NotText", {
  file: Schema.String
}) {
  override get message() {
    return `${this.file} is not valid UTF-8 text; fix or remove it by hand (nothing was changed)`
  }
}

/** A file could not be written; the old one is unchanged. */
export class WriteFailed extends MaskedTaggedError<WriteFailed>()("WriteFailed", {
  file: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `${this.file}: could not write it (nothing was changed): ${this.detail}`
  }
}

/** Another writer held the root's lock for longer than a writer waits. */
export class Busy extends MaskedTaggedError<Busy>()("Busy", {
  /** The lock file, absolute. */
  lock: Schema.String,
  holder: Schema.optionalKey(LockHolder),
  /** How long this writer waited, ms. */
  waited: Schema.Number
}) {
  override get message() {
    const who =
      this.holder === undefined
        ? "an unknown writer"
        : `process ${this.holder.pid} on ${this.holder.host} (since ${DateTime.formatIso(DateTime.makeUnsafe(this.holder.since))})`
    return `the memory root is busy: ${who} holds its lock ${this.lock}, waited ${n(Math.round(this.waited / 1000))} s; if no writer is running, delete the lock`
  }
}

/** A file was written by a newer mneme. */
export class NewerFormat extends MaskedTaggedError<NewerFormat>()("NewerFormat", {
  file: Schema.String,
  version: Schema.Number
}) {
  override get message() {
    return `${this.file} was written by a newer mneme (format version ${this.version}); upgrade to read it`
  }
}

/** A path leads outside the memory root (`..`, an absolute path, a NUL, a link out of it or to nowhere). */
export class OutsideRoot extends MaskedTaggedError<OutsideRoot>()("OutsideRoot", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `${this.path} ${this.detail}; nothing there is read or written`
  }
}

/** A memory file is a symbolic link to another place inside the root: writing it would replace the link. */
export class LinkedFile extends MaskedTaggedError<LinkedFile>()("LinkedFile", {
  path: Schema.String,
  /** Where the link leads, relative to the root. */
  target: Schema.String
}) {
  override get message() {
    return `${this.path} is a link to ${this.target}; mneme does not write through links: replace the link with the file, or remove it`
  }
}

/** A folder was expected and something else is there. */
export class NotAFolder extends MaskedTaggedError<NotAFolder>()("NotAFolder", {
  path: Schema.String
}) {
  override get message() {
    return `${this.path} is not a folder`
  }
}

/** The memory root cannot be used (it cannot be made, or its lock cannot be). */
export class RootUnusable extends MaskedTaggedError<RootUnusable>()("RootUnusable", {
  root: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `the memory root ${this.root} cannot be used: ${this.detail}`
  }
}

/** Something a change needs is not there (an agent's folder to archive, a journal entry to undo). */
export class NotFound extends MaskedTaggedError<NotFound>()("NotFound", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `${this.path}: ${this.detail}`
  }
}

/**
 * A review's answer came after another review of the same conversation (another runner, after a pause past its lease)
 * had moved the cursor the review read: its answer is not kept, so no line is reviewed twice.
 */
export class StaleCursor extends Schema.TaggedError<StaleCursor>()("StaleCursor", {
  /** The cursor key (the conversation, and in a group the member). */
  key: Schema.String,
  /** The cursor the review read; `null` for none. */
  read: Schema.NullOr(Schema.Number),
  /** The cursor stored now; `null` for none. */
  stored: Schema.NullOr(Schema.Number)
}) {
  override get message() {
    const at = (cursor: number | null) => (cursor === null ? "no cursor" : `line ${cursor}`)
    return `the review of ${this.key} read its cursor at ${at(this.read)}, but another review has moved it to ${at(this.stored)} since: this review's answer is not kept (nothing was changed)`
  }
}

/** Why the storage failed. */
export const StorageReason = Schema.Union([
  ReadFailed,
  NotText,
  WriteFailed,
  Busy,
  NewerFormat,
  OutsideRoot,
  LinkedFile,
  NotAFolder,
  RootUnusable,
  NotFound,
  StaleCursor
])

/** Why the storage failed. */
export type StorageReason = typeof StorageReason.Type

/** Memory could not be read or written; `reason` says why. */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  reason: StorageReason
}) {
  readonly [TypeId] = TypeId
  override get message() {
    return this.reason.message
  }
}
