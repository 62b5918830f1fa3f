/**
 * The review state file of a memory root (`reviewed.json`): a `ReviewStateDocument` (format version 2). A version 1
 * file (a failure record's count and the time of its latest failure) is read as version 2 (that many failures, at most
 * 100, at that time); a newer version is refused; anything else is damaged.
 *
 * A lookup or a change of a few keys (`StateKeys`) need not decode the whole document: the file's JSON is parsed as it
 * is (`parseRaw`), only those keys' entries are decoded (`pick`), and a change of them is put back into the parsed JSON
 * (`merge`), every other entry kept as its text had it.
 */
import { Backoff } from "@mneme/core"
import { Option, Result, Schema } from "effect"
import { LastReview, ReviewStateDocument, type StateKeys } from "../MemoryRoot.ts"

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

/** A version 2 state file's JSON as parsed, its entries not decoded: `version`, and each record by its name. */
export type Raw = { readonly [part: string]: unknown }

const decodeRaw = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))
const decodeDocument = Schema.decodeUnknownResult(ReviewStateDocument)
const encodeDocument = Schema.encodeSync(ReviewStateDocument)

/** The parsed JSON of the empty state, for a root with no state file. */
export const emptyRaw: Raw = { version: 2, cursors: {}, failures: {}, lastReviews: {} }

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The file's text as parsed JSON, when it is a version 2 state whose records are objects; `undefined` otherwise (a
 * version 1 file, a newer one, a damaged one: `decode` says which).
 */
export const parseRaw = (text: string): Raw | undefined => {
  const raw = Option.getOrUndefined(decodeRaw(text))
  if (raw === undefined || raw["version"] !== 2) return undefined
  return Object.entries(raw).every(([part, value]) => part === "version" || isRecord(value)) ? raw : undefined
}

/** Sets `key` of `record` (an own property, whatever the key, `__proto__` too). */
const put = (record: object, key: string, value: unknown) =>
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })

/**
 * The state holding only the entries `keys` of the parsed file (those stored), each decoded; `undefined` when one of
 * them, or the document's shape, does not decode (the whole file is then decoded, which says what is wrong).
 */
export const pick = (raw: Raw, keys: StateKeys): ReviewStateDocument | undefined => {
  const picked: Record<string, unknown> = { version: raw["version"] }
  for (const [part, record] of Object.entries(raw)) {
    if (part === "version" || !isRecord(record)) continue
    const entries = {}
    for (const key of keys[part] ?? []) if (Object.hasOwn(record, key)) put(entries, key, record[key])
    put(picked, part, entries)
  }
  const decoded = decodeDocument(picked)
  return Result.isSuccess(decoded) ? decoded.success : undefined
}

/** `state` with only the entries `keys` (as `pick` gives them from a file holding `state`). */
export const only = (state: ReviewStateDocument, keys: StateKeys): ReviewStateDocument => {
  const kept: Record<string, unknown> = {}
  for (const [part, record] of Object.entries(state)) {
    if (!isRecord(record)) {
      put(kept, part, record)
      continue
    }
    const entries = {}
    for (const key of keys[part] ?? []) if (Object.hasOwn(record, key)) put(entries, key, record[key])
    put(kept, part, entries)
  }
  return kept as ReviewStateDocument
}

/**
 * The parsed file `raw` with the entries a change turned from `before` into `next` (both states of a few entries, as
 * `pick` gives them) written or deleted; every other entry as it was. `raw` itself is not changed.
 */
export const merge = (raw: Raw, before: ReviewStateDocument, next: ReviewStateDocument): Raw => {
  const was: Record<string, unknown> = encodeDocument(before)
  const now: Record<string, unknown> = encodeDocument(next)
  const merged: Record<string, unknown> = { ...raw }
  for (const part of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (part === "version") continue
    const old = isRecord(was[part]) ? was[part] : {}
    const fresh = isRecord(now[part]) ? now[part] : {}
    const written = Object.keys(fresh).filter(
      (key) => !Object.hasOwn(old, key) || JSON.stringify(old[key]) !== JSON.stringify(fresh[key])
    )
    const deleted = Object.keys(old).filter((key) => !Object.hasOwn(fresh, key))
    if (written.length === 0 && deleted.length === 0) continue
    const record: Record<string, unknown> = { ...(isRecord(raw[part]) ? raw[part] : {}) }
    for (const key of written) put(record, key, fresh[key])
    for (const key of deleted) delete record[key]
    put(merged, part, record)
  }
  return merged
}

/** The file's text for the parsed file `raw`. */
export const encodeRaw = (raw: Raw): string => JSON.stringify(raw)
