/**
 * The search index of a file's entries (`Recall.index`), kept while the file is unchanged: a file's candidates are the
 * same list while its parse is (`candidates.ts`), so a recall over memory that has not changed reads no entry's words
 * again, and only builds the index of a file that has.
 */
import { Recall } from "@mneme/core"

const built = new WeakMap<ReadonlyArray<Recall.Candidate>, Recall.Index>()

/** The index of `entries`, one file's candidates: the same index while the list is the same. */
export const of = (entries: ReadonlyArray<Recall.Candidate>): Recall.Index => {
  const known = built.get(entries)
  if (known !== undefined) return known
  const index = Recall.index(entries)
  built.set(entries, index)
  return index
}
