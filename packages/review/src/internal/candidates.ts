/**
 * A memory file's entries as the candidates `Selection` and `Recall` rank (a review's choice, a recall's search).
 */
import type { Selection } from "@mneme/core"
import type { StoredFile } from "../MemoryRoot.ts"

/** The entries of one file of a scope of `side` as candidates. */
export const of = (side: "own" | "team", file: StoredFile): ReadonlyArray<Selection.Candidate> =>
  file.parsed.entries.map((entry) => ({ scope: side, topic: file.topic, text: entry.text, meta: entry.meta }))
