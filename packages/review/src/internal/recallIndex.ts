/**
 * The search indexes of memory files' entries (`Recall.index`), kept by the caller that recalls again and again (the
 * agent's tools, a host's memory object) by each file's parse: the store keeps an unchanged file's parse, so a recall
 * over memory that has not changed reads no entry's words again, and only builds the index of a file that has.
 */
import type { MemoryFile } from "@mneme/core"
import { Recall } from "@mneme/core"
import type { StoredFile } from "../MemoryRoot.ts"
import * as Candidates from "./candidates.ts"

/** A file's index, with the side and topic its entries were made for. */
interface Kept {
  readonly side: "own" | "team"
  readonly topic: string | undefined
  readonly index: Recall.Index
}

/** The indexes kept, by the parse of the file they were built of. */
export interface Indexes {
  readonly byParse: WeakMap<MemoryFile.Parsed, Kept>
}

/** Indexes that keep none yet. */
export const make = (): Indexes => ({ byParse: new WeakMap() })

/** The index of one file's entries, of a scope of `side`: the one kept while the file's parse is the same. */
export const of = (indexes: Indexes, side: "own" | "team", file: StoredFile): Recall.Index => {
  const known = indexes.byParse.get(file.parsed)
  if (known !== undefined && known.side === side && known.topic === file.topic) return known.index
  const index = Recall.index(Candidates.of(side, file))
  indexes.byParse.set(file.parsed, { side, topic: file.topic, index })
  return index
}
