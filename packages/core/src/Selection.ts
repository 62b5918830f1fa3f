/**
 * The entries a review shows the model (docs/spec.md 4.3): both MEMORY.md files whole, then topic entries within a budget,
 * those sharing words with the user's new lines first, then the newest, and the count of topic entries left out.
 *
 * Every distinct word an entry has held gets a number, and each entry's text the list of its distinct words' numbers,
 * which a `WordIndex` keeps between calls (letting go of texts no longer given): a review passes over the same entries
 * pass after pass, so choosing reads the words of a text it has met before from that list, and counts the user's among
 * them with one read each, instead of reading the text again. Topic entries may be given as lists, one a file: a list
 * given again (the same array: a file unchanged) is not looked at entry by entry again, its entries' words and dates
 * are kept with it. The index is a value the caller holds and passes to each choice (a review's passes share one);
 * without one, a choice reads every text. What is kept never changes a choice, only how soon it is made. The word scan
 * is in internal/wordScan.ts, the index in internal/wordIndex.ts.
 */
import type * as Entry from "./Entry.ts"
import type { Settings } from "./MemoryConfig.ts"
import * as Text from "./Text.ts"
import * as Index from "./internal/wordIndex.ts"
import { emptyLexicon, scan, scanOf } from "./internal/wordScan.ts"

/** An entry that may be shown: its scope, its topic (`undefined` for MEMORY.md), its cleaned text and metadata. */
export interface Candidate {
  readonly scope: "own" | "team"
  readonly topic: string | undefined
  readonly text: string
  readonly meta: Entry.Metadata
}

/**
 * Topic entries as lists, one a file, in order. A list is read once and what choosing needs of it kept while it is
 * given again: a list given again must be the same array holding the same entries (never change one once given).
 */
export interface Lists {
  readonly lists: ReadonlyArray<ReadonlyArray<Candidate>>
}

/** A shown entry with the number the model refers to it by, from 1. */
export interface Shown extends Candidate {
  readonly number: number
}

/**
 * What choosing keeps between calls over the same entries, held by the caller that chooses again and again (a
 * reviewer holds one for all its passes). A choice runs to its end at once, so one index serves every choice of its
 * holder, whichever review asks.
 */
export type WordIndex = Index.WordIndex

/** A word index that has met no text. */
export const wordIndex = (): WordIndex => Index.empty()

/** The words a text is matched by: Latin words of 3 or more letters in lower case, pairs of adjacent Han characters. */
export const words = (text: string): Array<string> => {
  const into = scanOf("list", emptyLexicon()) // a list looks nothing up
  return Array.from({ length: scan(text, into) }, (_, w) =>
    Array.from(into.units.subarray(into.out[w * 2], into.out[w * 2 + 1]), (u) => String.fromCharCode(u)).join("")
  )
}

/**
 * The indices of `rank` from the highest rank to the lowest, equal ranks in index order, as they are asked for. A heap
 * costs O(n) to build and O(log n) an index, and a review asks only for the few that fit its budget, where a whole
 * sort of thousands of entries would cost more than the rest of the choice.
 */
function* best(rank: Float64Array): Generator<number> {
  const heap = new Int32Array(rank.length)
  for (let i = 0; i < heap.length; i++) heap[i] = i
  const above = (a: number, b: number) => rank[a]! > rank[b]! || (rank[a] === rank[b] && a < b)
  /** Moves the index at `at` down the heap of `size` until no child is above it. */
  const down = (at: number, size: number) => {
    const index = heap[at]!
    for (let child = at * 2 + 1; child < size; at = child, child = at * 2 + 1) {
      if (child + 1 < size && above(heap[child + 1]!, heap[child]!)) child++
      if (!above(heap[child]!, index)) break
      heap[at] = heap[child]!
    }
    heap[at] = index
  }
  for (let at = (heap.length >> 1) - 1; at >= 0; at--) down(at, heap.length)
  for (let size = heap.length; size > 0; size--) {
    yield heap[0]!
    heap[0] = heap[size - 1]!
    down(0, size - 1)
  }
}

/**
 * The entries to show, numbered from 1: own MEMORY.md, team MEMORY.md, then topic entries while `shownTopicsBudget`
 * characters of entry text last. Topic entries are ordered by the number of distinct words they share with
 * `userText` (most first; none last), then by `added` (newest first; undated last), then as `topics` lists them.
 * `hidden` counts the topic entries not shown. The topic entries may be given as lists, one a file (`Lists`); `held`
 * is what the caller keeps between its choices (`WordIndex`).
 */
export const choose = (
  input: {
    readonly own: ReadonlyArray<Candidate>
    readonly team: ReadonlyArray<Candidate>
    readonly topics: ReadonlyArray<Candidate> | Lists
    readonly userText: string
  },
  settings: Pick<Settings, "shownTopicsBudget">,
  held: WordIndex = wordIndex()
): { readonly shown: ReadonlyArray<Shown>; readonly hidden: number } => {
  const lists = "lists" in input.topics ? input.topics.lists : [input.topics]
  const all: Array<Candidate> = []
  for (const entries of lists) for (let e = 0; e < entries.length; e++) all.push(entries[e]!)
  const rank = Index.ranks(held, lists, input.userText, all.length)
  const topics: Array<Candidate> = []
  let used = 0
  for (const i of best(rank)) {
    const entry = all[i]!
    used += Text.length(entry.text)
    if (used > settings.shownTopicsBudget) break
    topics.push(entry)
  }
  const shown = [...input.own, ...input.team, ...topics].map((entry, i) => ({ ...entry, number: i + 1 }))
  return { shown, hidden: all.length - topics.length }
}
