/**
 * Searching memory (SPEC 7, `recall`): the entries that share words with a query, ranked as a review ranks topic
 * entries (SPEC 4.3: the most distinct shared words first — Latin words of 3 or more letters, pairs of Han characters
 * — then the newest by `added`, then as memory lists them), at most so many within a character budget. A query with
 * no such word (a short word, one Han character) finds the entries that hold it as text; an empty query finds every
 * entry, the newest first. The agent's `recall` tool and `mneme recall` both search with it.
 */
import * as Selection from "./Selection.ts"
import * as Text from "./Text.ts"

/** An entry a search can find: its scope, its topic (`undefined` for MEMORY.md), its cleaned text and metadata. */
export type Candidate = Selection.Candidate

/** How much one search gives: at most `resultsMax` entries, within `budget` characters of entry text. */
export interface Limits {
  readonly resultsMax: number
  /** Characters of entry text; the first entry found is always given, however long. */
  readonly budget: number
}

/** No limit: every entry that matches. */
export const unlimited: Limits = { resultsMax: Number.POSITIVE_INFINITY, budget: Number.POSITIVE_INFINITY }

/** What a search found: the entries given, best first, and whether more match than the limits let in. */
export interface Found {
  readonly entries: ReadonlyArray<Candidate>
  readonly more: boolean
}

/**
 * Where the entries sharing no word begin in a ranking. A review's ranking (`Selection.choose`) orders entries by the
 * words they share, then by `added`: an entry of no text (so of no word) dated after any date there can be, listed
 * first, ranks after every entry that shares a word and before every entry that does not, and it takes no room in a
 * budget. So one ranking within the budget tells where the matches end, without reading every entry's words again.
 */
const boundary: Candidate = { scope: "own", topic: undefined, text: "", meta: [["added", "9999-12-31"]] }

/** The boundary as a list of its own, the same each search. */
const boundaryList: ReadonlyArray<Candidate> = [boundary]

/** A ranked entry as the candidate it was, without the number a review shows it by. */
const candidate = (entry: Selection.Shown): Candidate => ({
  scope: entry.scope,
  topic: entry.topic,
  text: entry.text,
  meta: entry.meta
})

/**
 * The entries of `entries` that match `query`, best first, within `limits`, and whether more match. The first entry
 * found is given however long it is. The entries may be given as lists, one a file (`Selection.Lists`: a list given
 * again is not read again).
 */
export const search = (entries: ReadonlyArray<Candidate> | Selection.Lists, query: string, limits: Limits): Found => {
  const byWords = Selection.words(query).length > 0
  const key = Text.sameKey(query)
  const lists = "lists" in entries ? entries.lists : [entries]
  const pool = byWords || key === "" ? lists : [lists.flat().filter((entry) => Text.sameKey(entry.text).includes(key))]
  const count = pool.reduce((sum, list) => sum + list.length, 0)
  /** The matches in rank order that fit in `budget` characters, and whether they are all the matches. */
  const ranked = (budget: number) => {
    const { shown } = Selection.choose(
      {
        own: [],
        team: [],
        topics: { lists: byWords ? [boundaryList, ...pool] : pool },
        userText: byWords ? query : ""
      },
      { shownTopicsBudget: budget }
    )
    if (!byWords) return { matches: shown, all: shown.length === count }
    const end = shown.findIndex((entry) => entry.meta === boundary.meta)
    return { matches: end < 0 ? shown : shown.slice(0, end), all: end >= 0 }
  }
  const fitting = ranked(limits.budget)
  if (fitting.matches.length === 0 && !fitting.all) {
    // The first match alone is past the budget: it is given all the same.
    const [first, ...rest] = ranked(Number.POSITIVE_INFINITY).matches
    return { entries: first === undefined ? [] : [candidate(first)], more: rest.length > 0 }
  }
  const given = fitting.matches.slice(0, limits.resultsMax)
  return { entries: given.map(candidate), more: !fitting.all || fitting.matches.length > given.length }
}
