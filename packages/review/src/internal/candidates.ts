/**
 * A memory file's entries as the candidates `Selection` and `Recall` rank (a review's choice, a recall's search).
 * A caller that ranks again and again over memory that mostly stays the same (a reviewer's passes) holds `Made`: the
 * store keeps an unchanged file's parse, so the same file gives the same list, which `Selection` keeps what it read of.
 */
import type { MemoryFile, Selection } from "@mneme/core"
import type { StoredFile } from "../MemoryRoot.ts"

/** A file's entries as candidates, with the side and topic they were made for. */
interface FileCandidates {
  readonly side: "own" | "team"
  readonly topic: string | undefined
  readonly entries: ReadonlyArray<Selection.Candidate>
}

/** The candidates made, by the parse of the file they were made of. */
export interface Made {
  readonly byParse: WeakMap<MemoryFile.Parsed, FileCandidates>
}

/** Candidates of no file yet. */
export const make = (): Made => ({ byParse: new WeakMap() })

/** The entries of one file of a scope of `side` as candidates. */
const candidates = (side: "own" | "team", file: StoredFile): ReadonlyArray<Selection.Candidate> =>
  file.parsed.entries.map((entry) => ({ scope: side, topic: file.topic, text: entry.text, meta: entry.meta }))

/**
 * The entries of one file of a scope of `side` as candidates: with `made`, the same list while the file's parse is the
 * same.
 */
export const of = (side: "own" | "team", file: StoredFile, made?: Made): ReadonlyArray<Selection.Candidate> => {
  if (made === undefined) return candidates(side, file)
  const known = made.byParse.get(file.parsed)
  if (known !== undefined && known.side === side && known.topic === file.topic) return known.entries
  const entries = candidates(side, file)
  made.byParse.set(file.parsed, { side, topic: file.topic, entries })
  return entries
}
