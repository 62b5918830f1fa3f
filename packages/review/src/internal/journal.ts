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
import { JournalLine, journalVersion } from "../MemoryRoot.ts"
import * as Purge from "../Purge.ts"

/** The name of the journal, relative to the root. */
export const journalName = "journal.jsonl"

/** The format version this release writes. */
export const version = journalVersion

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

/**
 * The journal's text with `texts` erased from its history (`Purge.erasing`): each line picked rewritten without its
 * texts, a damaged or torn line holding one of them dropped, every other line kept byte for byte; and how many lines
 * were erased or dropped (0: the text is unchanged).
 */
export const erase = (
  text: string,
  texts: ReadonlyArray<string>
): Effect.Effect<{ readonly text: string; readonly count: number }, StorageError> =>
  Effect.gen(function* () {
    const raw = text.split("\n")
    const decoded = raw.map((line) => (line.trim() === "" ? undefined : decodeLine(line)))
    const records = decoded.flatMap((line, index) => (line?._tag === "Some" ? [{ index, line: line.value }] : []))
    const picked = Purge.erasing(
      records.map((record) => record.line),
      texts
    )
    const rewritten = new Map<number, string>()
    for (const at of picked) {
      const { index, line } = records[at]!
      rewritten.set(index, (yield* encode([Purge.erased(line)])).slice(0, -1))
    }
    const dropped = new Set(
      decoded.flatMap((line, index) => (line?._tag === "None" && Purge.rawHolds(raw[index]!, texts) ? [index] : []))
    )
    const count = rewritten.size + dropped.size
    if (count === 0) return { text, count }
    const kept = raw.flatMap((line, index) => (dropped.has(index) ? [] : [rewritten.get(index) ?? line]))
    return { text: kept.join("\n"), count }
  })

/** The change a line of this release belongs to, named by its id (see `MemoryRoot.journalLines`); `undefined` for a line without one. */
const changeOf = (line: JournalLine): string | undefined => {
  const id = line.id
  if (id === undefined) return undefined
  const dot = id.lastIndexOf(".")
  return dot < 0 ? id : id.slice(0, dot)
}

/**
 * The last change of the journal's text: the records at its end that belong to the change of its last record (one
 * line only, where its change cannot be told), and where the first of them starts (a character offset; a torn line
 * after them goes with them). `undefined` when the text holds no record.
 */
export const lastChange = (
  text: string
): { readonly start: number; readonly lines: ReadonlyArray<JournalLine> } | undefined => {
  const lines: Array<JournalLine> = []
  let start: number | undefined
  let end = text.length
  while (end > 0) {
    // The line ending at `end` (its line break, if any, included) starts after the line break before it.
    const before = text[end - 1] === "\n" ? end - 2 : end - 1
    const from = before < 0 ? 0 : text.lastIndexOf("\n", before) + 1
    const raw = text.slice(from, end).trim()
    end = from
    if (raw === "") continue
    const decoded = decodeLine(raw)
    if (decoded._tag === "None") {
      if (start === undefined) continue
      break
    }
    const last = lines[0]
    if (last !== undefined && (changeOf(last) === undefined || changeOf(decoded.value) !== changeOf(last))) break
    lines.unshift(decoded.value)
    start = from
  }
  return start === undefined ? undefined : { start, lines }
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
