/**
 * The review state file of a memory root (`reviewed.json`): a `ReviewStateDocument` (format version 2). A version 1
 * file (a failure record's count and the time of its latest failure) is read as version 2 (that many failures, at most
 * 100, at that time); a newer version is refused; anything else is damaged.
 */
import { Backoff } from "@mneme/core"
import { Option, Schema } from "effect"
import { LastReview, ReviewStateDocument } from "../MemoryRoot.ts"

/** The name of the state file, relative to the root. */
export const stateName = "reviewed.json"

/** The warning logged when the state file is damaged (followed by what is wrong and where the file was kept). */
export const damagedWarning = "mneme: the review state file was damaged and starts empty"

const VersionOne = Schema.Struct({
  version: Schema.Literal(1),
  cursors: Schema.Record(Schema.String, Schema.Number),
  failures: Schema.Record(
    Schema.String,
    Schema.Struct({
      cursor: Schema.NullOr(Schema.Number),
      newestUserSeq: Schema.Number,
      failures: Schema.Number,
      stopWarned: Schema.Boolean,
      at: Schema.Number
    })
  ),
  lastReviews: Schema.Record(Schema.String, LastReview)
})

const decodeVersion = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ version: Schema.Number })))
const decodeTwo = Schema.decodeUnknownResult(Schema.fromJsonString(ReviewStateDocument))
const decodeOne = Schema.decodeUnknownResult(Schema.fromJsonString(VersionOne))
const encodeTwo = Schema.encodeSync(Schema.fromJsonString(ReviewStateDocument))

/** What the file's text is: the state, a newer format, or damaged (with what is wrong). */
export type Read =
  | { readonly _tag: "State"; readonly state: ReviewStateDocument }
  | { readonly _tag: "Newer"; readonly version: number }
  | { readonly _tag: "Damaged"; readonly detail: string }

/** The most failures a version 1 record is read as: past any policy's count, and a damaged count builds no huge list. */
const versionOneFailuresMax = 100

const upgrade = (one: typeof VersionOne.Type): ReviewStateDocument => ({
  version: 2,
  cursors: one.cursors,
  failures: Object.fromEntries(
    Object.entries(one.failures).map(([key, { cursor, newestUserSeq, failures, stopWarned, at }]) => {
      const record: Backoff.FailureRecord = {
        cursor,
        newestUserSeq,
        times: Array.from({ length: Math.min(versionOneFailuresMax, Math.max(0, Math.floor(failures))) }, () => at),
        stopWarned
      }
      return [key, record]
    })
  ),
  lastReviews: one.lastReviews
})

/** The state a file's text holds. */
export const decode = (text: string): Read => {
  const version = Option.getOrUndefined(decodeVersion(text))?.version
  if (version !== undefined && version > 2) return { _tag: "Newer", version }
  if (version === 1) {
    const one = decodeOne(text)
    return one._tag === "Success"
      ? { _tag: "State", state: upgrade(one.success) }
      : { _tag: "Damaged", detail: one.failure.message }
  }
  const two = decodeTwo(text)
  return two._tag === "Success"
    ? { _tag: "State", state: two.success }
    : { _tag: "Damaged", detail: two.failure.message }
}

/** The file's text for `state`. */
export const encode = (state: ReviewStateDocument): string => encodeTwo(state)
