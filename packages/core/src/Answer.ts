/**
 * The model's answer to a memory review (docs/spec.md 4.4, steps 1–5): `parse` reads it into a list of changes, or fails the
 * whole answer; `vet` takes the changes that are used, fails on an unlisted entry or a bad topic, and leaves out on
 * its own each entry memory cannot keep or that reads as an instruction to the agent. Both are pure; the review
 * applies what `vet` returns and logs its warning.
 */
import { Effect, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"
import * as Entry from "./Entry.ts"
import { BadTopic, MalformedAnswer, UnlistedEntry } from "./Errors.ts"
import type { Settings } from "./MemoryConfig.ts"
import * as Secret from "./Secret.ts"
import * as Text from "./Text.ts"
import * as Topic from "./Topic.ts"
import * as Vet from "./Vet.ts"

const Positive = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/** An entry number: a whole number ≥ 1, as a JSON number or a string of decimal digits. */
const EntryNumber = Schema.Union([
  Positive,
  Schema.String.check(Schema.isPattern(/^[0-9]+$/u)).pipe(
    Schema.decodeTo(Positive, SchemaTransformation.numberFromString)
  )
])

/**
 * The lines of the request a fact comes from: one line number, or a non-empty list of them, each a whole number ≥ 1
 * as an entry number is given (a JSON number or a string of decimal digits); read as a list.
 */
const LineNumbers = Schema.Union([EntryNumber, Schema.Array(EntryNumber).check(Schema.isMinLength(1))])
  .annotate({ description: "the number of the request's line the fact comes from, or a list of them" })
  .pipe(
    Schema.decodeTo(
      Schema.Array(Positive),
      SchemaTransformation.transform({
        decode: (from) => (typeof from === "number" ? [from] : from),
        encode: (from) => from
      })
    )
  )

/** One change of an answer, as `parse` reads it (a consolidation's answer adds `move`, `Consolidation`). */
export const ChangeSchema = Schema.Union([
  Schema.Struct({
    op: Schema.Literal("add"),
    text: Schema.NonEmptyString,
    topic: Schema.optionalKey(Schema.String),
    team: Schema.optionalKey(Schema.Boolean),
    from: Schema.optionalKey(LineNumbers)
  }),
  Schema.Struct({
    op: Schema.Literal("edit"),
    entry: EntryNumber,
    text: Schema.NonEmptyString,
    from: Schema.optionalKey(LineNumbers)
  }),
  Schema.Struct({ op: Schema.Literal("remove"), entry: EntryNumber })
]).annotate({ expected: `a change whose "op" is "add", "edit" or "remove"` })

/** The answer the model gives (docs/spec.md 4.4 step 1): a JSON object with a list of changes. `parse` reads by it. */
export const AnswerSchema = Schema.Struct({ changes: Schema.Array(ChangeSchema) })

/**
 * The answer's JSON Schema (draft 2020-12), derived from `AnswerSchema`, for a model's structured output: the same
 * contract `parse` reads by, so the two cannot drift. (JSON Schema cannot say everything: `parse` stays the judge.)
 */
export const jsonSchema = Schema.toJsonSchemaDocument(AnswerSchema)

/** Decodes the answer's JSON text; only where `JSON.parse` fails, so the schema words that failure too. */
const decodeText = Schema.decodeUnknownEffect(Schema.fromJsonString(AnswerSchema))

/** Decodes the answer's JSON value. */
const decodeValue = Schema.decodeUnknownEffect(AnswerSchema)

/**
 * One change the model asks for; `entry` numbers the entries the review listed, from 1, and `from` (on an add or an
 * edit) the lines the request showed, from 1: the lines the fact comes from. A malformed `from` fails the answer as a
 * malformed `entry` does; whether the request showed the lines it numbers is the review's to judge.
 */
export type Change = typeof ChangeSchema.Type

const digits = /^[0-9]+$/

/** An entry number as `EntryNumber` reads it, or 0 where it would fail. */
const entryNumber = (value: unknown): number => {
  const number = typeof value === "string" && digits.test(value) ? Number(value) : value
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 1 ? number : 0
}

/** Line numbers as `LineNumbers` reads them (absent stays absent), or `null` where they would fail. */
const lineNumbers = (value: unknown): ReadonlyArray<number> | undefined | null => {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) {
    const number = entryNumber(value)
    return number === 0 ? null : [number]
  }
  if (value.length === 0) return null
  const numbers: Array<number> = []
  for (const item of value) {
    const number = entryNumber(item)
    if (number === 0) return null
    numbers.push(number)
  }
  return numbers
}

/** Whether `value` is a JSON object (not null, not a list). */
const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An `add` as the schema decodes it, built key by key in the schema's order. */
type Add = { -readonly [K in keyof Extract<Change, { op: "add" }>]: Extract<Change, { op: "add" }>[K] }

/**
 * The changes of a JSON value as `AnswerSchema` decodes them, read by hand: the fast path for an answer that is well
 * formed (what a model mostly gives). Undefined wherever it is not, or may not be; the schema then decodes it, and
 * words what is wrong, so the schema stays the contract and the errors are the schema's own.
 */
const wellFormed = (json: unknown): ReadonlyArray<Change> | undefined => {
  const list = isObject(json) ? json.changes : undefined
  if (!Array.isArray(list)) return undefined
  const changes: Array<Change> = []
  for (const change of list) {
    if (!isObject(change)) return undefined
    const { op, text, entry } = change
    if (op === "remove") {
      const number = entryNumber(entry)
      if (number === 0) return undefined
      changes.push({ op, entry: number })
      continue
    }
    if (typeof text !== "string" || text === "") return undefined
    const from = lineNumbers(change.from)
    if (from === null) return undefined
    if (op === "edit") {
      const number = entryNumber(entry)
      if (number === 0) return undefined
      changes.push(from === undefined ? { op, entry: number, text } : { op, entry: number, text, from })
    } else if (op === "add") {
      const { topic, team } = change
      if ((topic !== undefined && typeof topic !== "string") || (team !== undefined && typeof team !== "boolean")) {
        return undefined
      }
      const add: Add = { op, text }
      if (topic !== undefined) add.topic = topic
      if (team !== undefined) add.team = team
      if (from !== undefined) add.from = from
      changes.push(add)
    } else return undefined
  }
  return changes
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The first problem of a failed decode, as "changes[2].entry: expected an integer". */
const reasonOf = (issue: SchemaIssue.Issue): string => {
  const first = formatIssues(issue).issues[0]
  if (first === undefined) return "not a list of changes"
  const keys = (first.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
  const path = keys.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("")
  const message = first.message.charAt(0).toLowerCase() + first.message.slice(1)
  return path === "" ? message : `${path.slice(path.startsWith(".") ? 1 : 0)}: ${message}`
}

/** How many code points of the answer a MalformedAnswer quotes. */
const excerptLength = 120

/** How many code points past the quote the secret check reads, so it sees whole a secret the quote's end cuts. */
const excerptContext = 200

/** The first 120 code points of the answer, each secret in them masked, whole even where the quote's end cuts it. */
const excerptOf = (answer: string): string => {
  const read = Text.take(answer, excerptLength + excerptContext)
  const end = Text.take(read, excerptLength).length
  let excerpt = ""
  let at = 0
  for (const [start, stop] of Secret.spans(read)) {
    if (start >= end) break
    excerpt += read.slice(at, start) + Secret.mask
    at = stop
  }
  return at >= end ? excerpt : excerpt + read.slice(at, end)
}

const malformed = (answer: string, reason: string) => new MalformedAnswer({ reason, excerpt: excerptOf(answer) })

/** Reads the JSON object between the answer's first `{` and last `}` into its changes, or fails the whole answer. */
export const parse = (answer: string): Effect.Effect<ReadonlyArray<Change>, MalformedAnswer> => {
  const start = answer.indexOf("{")
  const end = answer.lastIndexOf("}")
  if (start < 0 || end < start) return Effect.fail(malformed(answer, "no JSON object in it"))
  const json = answer.slice(start, end + 1)
  const read = Result.try(() => JSON.parse(json) as unknown)
  const changes = Result.isSuccess(read) ? wellFormed(read.success) : undefined
  if (changes !== undefined) return Effect.succeed(changes)
  return (Result.isSuccess(read) ? decodeValue(read.success) : decodeText(json)).pipe(
    Effect.map((decoded) => decoded.changes),
    Effect.mapError((error) => malformed(answer, reasonOf(error.issue)))
  )
}

/** What of an answer applies, and what was left out and why. */
export interface Vetted {
  /** The changes to apply, in order, with texts and topic names cleaned. */
  readonly apply: ReadonlyArray<Change>
  /**
   * The entries memory cannot keep (empty or too long) or that read as an instruction to the agent, cleaned, each
   * with its problem; never a secret.
   */
  readonly leftOut: ReadonlyArray<{ readonly change: Change; readonly problem: Vet.Objection }>
  /** How many secret entries were dropped, silently. */
  readonly secretsDropped: number
  /** Whether the answer held `answerChangesMax` changes or more before the cap (some may have been ignored). */
  readonly atCap: boolean
  /** The one warning for the answer, naming the first entry left out; none when nothing was left out. */
  readonly warning: string | undefined
}

/** The warning logged when entries memory cannot keep are left out of an answer, naming the first problem. */
export const warning = (first: Vet.Objection, count: number): string =>
  `the model's answer holds ${count === 1 ? "an entry" : `${Text.count(count)} entries`} memory cannot keep, left out while ` +
  `the rest applies: ${Vet.describe(first)}`

/** The change with its text and topic name cleaned; an `add` whose topic is no topic name fails with BadTopic. */
const cleanChange = (change: Change): Effect.Effect<Change, BadTopic> => {
  if (change.op === "remove") return Effect.succeed(change)
  const text = Entry.clean(change.text)
  if (change.op === "edit" || change.topic === undefined) return Effect.succeed({ ...change, text })
  const topic = Topic.clean(change.topic)
  return topic === undefined
    ? Effect.fail(new BadTopic({ topic: change.topic }))
    : Effect.succeed({ ...change, text, topic })
}

/** Vets the first `answerChangesMax` changes against the `listed` entries (docs/spec.md 4.4, steps 2–5). */
export const vet = Effect.fnUntraced(function* (
  changes: ReadonlyArray<Change>,
  listed: number,
  settings: Pick<Settings, "answerChangesMax" | "entryMax" | "isSecret">
): Effect.fn.Return<Vetted, UnlistedEntry | BadTopic> {
  const used = changes.slice(0, settings.answerChangesMax)
  for (const change of used) {
    if (change.op !== "add" && change.entry > listed) return yield* new UnlistedEntry({ entry: change.entry, listed })
  }
  const apply: Array<Change> = []
  const leftOut: Array<{ readonly change: Change; readonly problem: Vet.Objection }> = []
  let secretsDropped = 0
  for (const change of yield* Effect.forEach(used, cleanChange)) {
    const problem = change.op === "remove" ? undefined : Vet.proposed(change.text, settings)
    if (problem === undefined) apply.push(change)
    else if (problem._tag === "Secret") secretsDropped++
    else leftOut.push({ change, problem })
  }
  const first = leftOut[0]
  return {
    apply,
    leftOut,
    secretsDropped,
    atCap: changes.length >= settings.answerChangesMax,
    warning: first === undefined ? undefined : warning(first.problem, leftOut.length)
  }
})
