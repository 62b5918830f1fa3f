/**
 * The journal of a memory root (`journal.jsonl`): one JSON line per change, with a format version, appended after
 * each write, and read back line by line (a damaged line is skipped with a warning).
 */
import { Effect, FileSystem, Schema } from "effect"
import { appendLine, failure, orMissing } from "./files.ts"

/** The name of the journal, relative to the root. */
export const journalName = "journal.jsonl"

/** One line of the journal. */
export const JournalLine = Schema.Struct({
  version: Schema.Literal(1),
  time: Schema.Number,
  op: Schema.Literals(["add", "replace", "remove", "archive"]),
  scope: Schema.String,
  file: Schema.String,
  actor: Schema.String,
  auto: Schema.optionalKey(Schema.Boolean),
  before: Schema.optionalKey(Schema.String),
  after: Schema.optionalKey(Schema.String)
})

/** One line of the journal. */
export type JournalLine = typeof JournalLine.Type

const Line = Schema.fromJsonString(JournalLine)
const encodeLine = Schema.encodeSync(Line)
const decodeLine = Schema.decodeUnknownOption(Line)

/** Appends `line` to the journal at `absolute`. */
export const append = (absolute: string, line: JournalLine) => appendLine(absolute, journalName, encodeLine(line))

/** The journal's lines, oldest first, the last `limit` of them when given; damaged lines are skipped. */
export const read = Effect.fnUntraced(function* (absolute: string, limit: number | undefined) {
  const fs = yield* FileSystem.FileSystem
  // Read leniently: a stray byte spoils one line (skipped below), not the whole journal.
  const text =
    (yield* orMissing(fs.readFileString(absolute)).pipe(Effect.mapError(failure(journalName, "read it")))) ?? ""
  const lines: Array<JournalLine> = []
  const damaged: Array<number> = []
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return
    const decoded = decodeLine(raw)
    if (decoded._tag === "Some") lines.push(decoded.value)
    else damaged.push(index + 1)
  })
  if (damaged.length > 0) {
    yield* Effect.logWarning(
      `mneme: ${journalName} has ${damaged.length} damaged line(s), skipped (line ${damaged.slice(0, 8).join(", ")})`
    )
  }
  return limit === undefined ? lines : lines.slice(Math.max(0, lines.length - limit))
})
