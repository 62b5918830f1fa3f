/**
 * A memory file's entries as the candidates `Selection` ranks (a review's choice, a recall's search), made once per
 * parse: the store keeps an unchanged file's parse, so memory that has not changed makes none again (thousands of
 * entries a call otherwise), and the ranking meets the same list each time, which `Selection` keeps what it read of.
 */
import type { MemoryFile, Selection } from "@mneme/core"
import type { StoredFile } from "../MemoryRoot.ts"

/** A file's entries as candidates, with the side and topic they were made for. */
interface FileCandidates {
  readonly side: "own" | "team"
  readonly topic: string | undefined
  readonly entries: ReadonlyArray<Selection.Candidate>
}

const made = new WeakMap<MemoryFile.Parsed, FileCandidates>()

/** The entries of one file of a scope of `side` as candidates: the same list while the file's parse is the same. */
export const of = (side: "own" | "team", file: StoredFile): ReadonlyArray<Selection.Candidate> => {
  const known = made.get(file.parsed)
  if (known !== undefined && known.side === side && known.topic === file.topic) return known.entries
  const entries = file.parsed.entries.map((entry) => ({
    scope: side,
    topic: file.topic,
    text: entry.text,
    meta: entry.meta
  }))
  made.set(file.parsed, { side, topic: file.topic, entries })
  return entries
}
