/**
 * The journal of a memory root (`journal.jsonl`), NDJSON: one `JournalLine` per line, with its format version.
 *
 * Lines are written as NDJSON (each line encoded by its schema, then as JSON, and ended by a line break), all the lines
 * of one change in one write, after checking how the file ends: a writer killed mid-append leaves a torn last line,
 * and the next append starts on a fresh line, so the fragment never spoils a whole record. Reading keeps every
 * complete record: a damaged line is skipped and counted, and a torn last line (no line break, not a record) is
 * reported once. (The reader splits lines itself: effect's NDJSON decoder stops at the first bad line, and the journal
 * must keep the records after it.)
 */
import { StorageError, WriteFailed } from "@mneme/core"
import { Effect, Result, Schema } from "effect"
import { JournalLine } from "../MemoryRoot.ts"

/** The name of the journal, relative to the root. */
export const journalName = "journal.jsonl"

/** The format version this release writes. */
export const version = 2

const encodeLines = Schema.encodeResult(Schema.Array(JournalLine))

/** `lines` as NDJSON, each line ended by a line break. */
export const encode = (lines: ReadonlyArray<JournalLine>): Effect.Effect<string, StorageError> => {
  const encoded = encodeLines(lines)
  return Result.isSuccess(encoded)
    ? Effect.succeed(encoded.success.map((line) => JSON.stringify(line) + "\n").join(""))
    : Effect.fail(new StorageError({ reason: new WriteFailed({ file: journalName, detail: encoded.failure.message }) }))
}

const decodeLine = Schema.decodeUnknownOption(Schema.fromJsonString(JournalLine))

/** What the journal's text holds: its records, the numbers of its damaged lines, and whether its last line is torn. */
export interface Decoded {
  readonly lines: ReadonlyArray<JournalLine>
  readonly damaged: ReadonlyArray<number>
  readonly torn: boolean
}

/** The records of the journal's text, oldest first. */
export const decode = (text: string): Decoded => {
  const lines: Array<JournalLine> = []
  const damaged: Array<number> = []
  const raw = text.split("\n")
  const last = raw.length - 1
  let torn = false
  raw.forEach((line, index) => {
    if (line.trim() === "") return
    const decoded = decodeLine(line)
    if (decoded._tag === "Some") lines.push(decoded.value)
    else if (index === last) torn = true
    else damaged.push(index + 1)
  })
  return { lines, damaged, torn }
}

/** The warnings a read of the journal gives: damaged lines, and a torn last line. */
export const warnings = (decoded: Decoded): ReadonlyArray<string> => [
  ...(decoded.damaged.length > 0
    ? [
        `mneme: ${journalName} has ${decoded.damaged.length} damaged line(s), skipped (line ${decoded.damaged.slice(0, 8).join(", ")})`
      ]
    : []),
  ...(decoded.torn
    ? [
        `mneme: the last line of ${journalName} is torn (a writer was stopped while appending it) and is skipped; the next change starts a fresh line`
      ]
    : [])
]
