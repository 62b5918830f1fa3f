/**
 * The review state as rows of `review_state`: one row per key of each of the document's records (`cursors`,
 * `failures`, `lastReviews`, and any record a later format adds), its value as the JSON the document's schema encodes.
 * A change writes only the rows it changes, so a turn's cursor is one row however many conversations the root has.
 */
import { MemoryRoot } from "@mneme/review"
import { type Effect, Schema } from "effect"

type ReviewStateDocument = MemoryRoot.ReviewStateDocument

/** One row: the record (`part`), the key in it, and its value as JSON. */
export interface Row {
  readonly part: string
  readonly key: string
  readonly value: unknown
}

const encodeDocument = Schema.encodeSync(MemoryRoot.ReviewStateDocument)
const decodeDocument = Schema.decodeUnknownEffect(MemoryRoot.ReviewStateDocument)

/** The rows of `state`, by `part` and then `key`. */
export const rowsOf = (state: ReviewStateDocument): Map<string, Row> => {
  const rows = new Map<string, Row>()
  for (const [part, record] of Object.entries(encodeDocument(state))) {
    if (part === "version" || typeof record !== "object" || record === null) continue
    for (const [key, value] of Object.entries(record)) rows.set(JSON.stringify([part, key]), { part, key, value })
  }
  return rows
}

/** The state the rows hold (the empty state's records where they have none); fails with what is wrong. */
export const stateOf = (rows: ReadonlyArray<Row>): Effect.Effect<ReviewStateDocument, Schema.SchemaError> => {
  const parts = new Map<string, Array<readonly [string, unknown]>>(
    Object.keys(MemoryRoot.emptyState).flatMap((part) => (part === "version" ? [] : [[part, []]]))
  )
  for (const { part, key, value } of rows) {
    const entries = parts.get(part) ?? []
    entries.push([key, value])
    parts.set(part, entries)
  }
  const records = [...parts].map(([part, entries]) => [part, Object.fromEntries(entries)] as const)
  return decodeDocument({ ...Object.fromEntries(records), version: MemoryRoot.emptyState.version })
}

/** What turns the rows of `before` into those of `after`: the rows to delete, and those to write. */
export const changes = (before: ReviewStateDocument, after: ReviewStateDocument) => {
  const old = rowsOf(before)
  const next = rowsOf(after)
  const deleted = [...old.entries()].flatMap(([id, row]) => (next.has(id) ? [] : [row]))
  const written = [...next.entries()].flatMap(([id, row]) => {
    const was = old.get(id)
    return was !== undefined && JSON.stringify(was.value) === JSON.stringify(row.value) ? [] : [row]
  })
  return { deleted, written }
}
