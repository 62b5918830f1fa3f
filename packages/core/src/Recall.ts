/**
 * Searching memory (the agent's `recall`, `mneme recall`, the MCP tool): the entries that mean the most to a query,
 * best first, each with its score, and none that shares nothing with it.
 *
 * An entry's score is BM25 over the memory searched: each word of the query that the entry holds counts by how rare it
 * is there (a name or a rare word much, a word in every other entry little), less the more often the entry has it
 * already, and a little less in a long entry. Words are matched by their stems (`deploys` meets `deploy`, `ran` meets
 * `run`), CJK text by pairs of characters; stop words and question words ("when", "did", "the") are not counted, unless
 * the query has no other. A query's word that begins a longer word of an entry ("postgres" in "PostgreSQL") counts a
 * share of that word. A name in the query (a word written with a capital) counts once more in an entry it is the
 * subject of (its first word that is no stop word: whom the entry is about). A date the query names ("in May 2023",
 * "last October") counts as a word that every entry added then holds. An entry that matches is read with its
 * neighbours in its file: it gets a share of the score of the best of them, since entries written together are about
 * one thing (a question asked, and the answer after it).
 *
 * Only the entries scoring at least a share of the best are relevant: an entry that only shares a common word with
 * the query is left out, so a search gives fewer entries than its limits allow when fewer are relevant. Equal scores
 * go to the newest by `added`, then as memory lists them. A query with no word (one Latin letter, a sign) finds the
 * entries that hold it as text, and an empty query every entry, the newest first.
 *
 * What a search reads of a list of entries is an `Index`: built by each search that is given the entries, or once by a
 * caller that keeps it for a file that has not changed.
 */
import * as Entry from "./Entry.ts"
import * as QueryDates from "./internal/queryDates.ts"
import * as Terms from "./internal/terms.ts"
import type * as Selection from "./Selection.ts"
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

/** An entry found, with its score: how much it means to the query (0 where the query ranks nothing). */
export interface Scored extends Candidate {
  readonly score: number
}

/** What a search found: the entries given, best first, and whether more are relevant than the limits let in. */
export interface Found {
  readonly entries: ReadonlyArray<Scored>
  readonly more: boolean
}

/** What a search needs besides the memory and the query. */
export interface Options {
  /** Today's date (`YYYY-MM-DD`), which "last week" and "yesterday" count from; without it they name no date. */
  readonly today?: string | undefined
}

// ---------------------------------------------------------------------------------------------------------------------
// The index

/** What a search reads of one list of entries (a file), in that list's order. Never changed once built. */
export interface Index {
  readonly entries: ReadonlyArray<Candidate>
  /** For each term, the entries holding it and how many times: entry, count, entry, count… */
  readonly postings: ReadonlyMap<string, ReadonlyArray<number>>
  /** How many words each entry has. */
  readonly lengths: Int32Array
  /** How many words the entries have in all. */
  readonly words: number
  /** Each entry's `added` date as `YYYYMMDD` (2026-11-06 is 20261106), 0 when it has none. */
  readonly dates: Int32Array
  /** For each term, the entries whose subject it is: their first word that is no stop word. */
  readonly subjects: ReadonlyMap<string, ReadonlyArray<number>>
  /** The distinct words of letters the entries hold (lower case, accents folded), sorted, with their terms. */
  readonly vocabulary: ReadonlyArray<string>
  readonly termOf: ReadonlyMap<string, string>
}

/** Memory to search as indexes, one a list of entries (a file), in order. */
export interface Indexes {
  readonly indexes: ReadonlyArray<Index>
}

/** An entry's `added` date as `YYYYMMDD`, or 0 when it has none (it sorts as the oldest). */
const addedOf = (meta: Entry.Metadata): number => {
  const value = Entry.metaValue(meta, "added")
  if (value === undefined || value.length !== 10 || value[4] !== "-" || value[7] !== "-") return 0
  let date = 0
  for (let i = 0; i < 10; i++) {
    if (i === 4 || i === 7) continue
    const digit = value.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return 0
    date = date * 10 + digit
  }
  return date
}

/** The index of `entries`, one list (a file) in order. */
export const index = (entries: ReadonlyArray<Candidate>): Index => {
  const stems: Terms.Stems = new Map()
  const postings = new Map<string, Array<number>>()
  const termOf = new Map<string, string>()
  const subjects = new Map<string, Array<number>>()
  const lengths = new Int32Array(entries.length)
  const dates = new Int32Array(entries.length)
  let words = 0
  const counts = new Map<string, number>()
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!
    counts.clear()
    let subject: string | undefined
    Terms.scan(entry.text, stems, "always", (word) => {
      if (subject === undefined && !word.stop) subject = word.term
      counts.set(word.term, (counts.get(word.term) ?? 0) + 1)
      if (word.kind !== "pair") lengths[e]!++
      if (word.kind === "letters") termOf.set(word.surface, word.term)
    })
    if (subject !== undefined) {
      const list = subjects.get(subject)
      if (list === undefined) subjects.set(subject, [e])
      else list.push(e)
    }
    for (const [term, count] of counts) {
      const list = postings.get(term)
      if (list === undefined) postings.set(term, [e, count])
      else list.push(e, count)
    }
    words += lengths[e]!
    dates[e] = addedOf(entry.meta)
  }
  return { entries, postings, subjects, lengths, words, dates, vocabulary: [...termOf.keys()].sort(), termOf }
}

// ---------------------------------------------------------------------------------------------------------------------
// The ranking

/** How soon a word's count in an entry stops adding to its score (BM25's k1). */
const saturation = 0.9

/** How much a long entry's score is lowered (BM25's b): a little, as an entry is one fact however it is worded. */
const lengthWeight = 0.3

/** How much more a name in the query counts in an entry whose subject it is, as a share of its rarity. */
const subjectWeight = 1

/** The share of a word's score that a query's word which begins it gets. */
const prefixShare = 0.5

/** The share of the best neighbour's score that an entry that matches gets. */
const neighbourShare = 0.3

/** The share of the best score below which an entry is not relevant. */
const relevantShare = 0.45

/** The query's words of at least this many letters meet the longer words they begin. */
const prefixMin = 3

/** How rare a term held by `count` of `total` entries is (BM25's idf, never below 0). */
const rarity = (count: number, total: number) => Math.log(1 + (total - count + 0.5) / (count + 0.5))

/** The first position in sorted `words` at which `prefix` could stand. */
const lowerBound = (words: ReadonlyArray<string>, prefix: string): number => {
  let low = 0
  let high = words.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (words[middle]! < prefix) low = middle + 1
    else high = middle
  }
  return low
}

/** What a query asks for: its terms, the names among them, the words that may begin others, and the dates it names. */
const queryOf = (query: string, options: Options) => {
  // Each distinct term once, with the word it was first written as: the content words, and the stop words apart.
  const content = new Map<string, Terms.Word>()
  const stops = new Map<string, Terms.Word>()
  const names = new Set<string>()
  let first = true
  Terms.scan(query, new Map(), "alone", (word) => {
    const into = word.stop ? stops : content
    if (!into.has(word.term)) into.set(word.term, word)
    // A name: a word written with a capital, other than the query's first.
    if (word.capital && !first) names.add(word.term)
    first = false
  })
  const counted = content.size > 0 ? content : stops
  const prefixes = new Set<string>()
  for (const word of counted.values()) {
    if (word.kind === "letters" && word.surface.length >= prefixMin) prefixes.add(word.surface)
  }
  return { terms: new Set(counted.keys()), names, prefixes, dates: QueryDates.of(query, options.today) }
}

/** The terms of `indexes` that the words of `prefixes` begin, other than `terms`. */
const prefixTerms = (indexes: ReadonlyArray<Index>, prefixes: ReadonlySet<string>, terms: ReadonlySet<string>) => {
  const found = new Set<string>()
  for (const prefix of prefixes) {
    for (const { vocabulary, termOf } of indexes) {
      for (let at = lowerBound(vocabulary, prefix); at < vocabulary.length; at++) {
        const word = vocabulary[at]!
        if (!word.startsWith(prefix)) break
        const term = termOf.get(word)!
        if (word !== prefix && !terms.has(term)) found.add(term)
      }
    }
  }
  return found
}

/** Each entry's score, the indexes' entries one after another; 0 for an entry that shares nothing with the query. */
const scores = (indexes: ReadonlyArray<Index>, query: ReturnType<typeof queryOf>): Float64Array => {
  let total = 0
  let words = 0
  for (const index of indexes) {
    total += index.entries.length
    words += index.words
  }
  const average = words / Math.max(total, 1)
  const own = new Float64Array(total)
  /** Adds `weight` times each entry's BM25 score for `term` to its own score, and more where it is a name and the subject. */
  const count = (term: string, weight: number) => {
    let holding = 0
    for (const index of indexes) holding += (index.postings.get(term)?.length ?? 0) / 2
    if (holding === 0) return
    const idf = weight * rarity(holding, total)
    let offset = 0
    for (const index of indexes) {
      const list = index.postings.get(term)
      if (list !== undefined) {
        for (let p = 0; p < list.length; p += 2) {
          const e = list[p]!
          const tf = list[p + 1]!
          const norm = saturation * (1 - lengthWeight + (lengthWeight * index.lengths[e]!) / average)
          own[offset + e]! += (idf * tf * (saturation + 1)) / (tf + norm)
        }
        if (query.names.has(term))
          for (const e of index.subjects.get(term) ?? []) own[offset + e]! += subjectWeight * idf
      }
      offset += index.entries.length
    }
  }
  for (const term of query.terms) count(term, 1)
  for (const term of prefixTerms(indexes, query.prefixes, query.terms)) count(term, prefixShare)
  if (query.dates.length > 0) {
    const meets = QueryDates.matcher(query.dates)
    let holding = 0
    for (const index of indexes) for (const added of index.dates) if (meets(added)) holding++
    const idf = rarity(holding, total)
    let offset = 0
    for (const index of indexes) {
      index.dates.forEach((added, e) => {
        if (meets(added)) own[offset + e]! += idf
      })
      offset += index.entries.length
    }
  }
  const score = new Float64Array(total)
  let offset = 0
  for (const index of indexes) {
    const size = index.entries.length
    for (let e = 0; e < size; e++) {
      const mine = own[offset + e]!
      if (mine === 0) continue
      const before = e > 0 ? own[offset + e - 1]! : 0
      const after = e + 1 < size ? own[offset + e + 1]! : 0
      score[offset + e] = mine + neighbourShare * Math.max(before, after)
    }
    offset += size
  }
  return score
}

/** The entries of `indexes` one after another, with their `added` dates. */
const flatten = (indexes: ReadonlyArray<Index>) => {
  const entries: Array<Candidate> = []
  const dates: Array<number> = []
  for (const index of indexes) {
    for (let e = 0; e < index.entries.length; e++) {
      entries.push(index.entries[e]!)
      dates.push(index.dates[e]!)
    }
  }
  return { entries, dates }
}

/**
 * The first of `ranked` (positions in `entries`) that fit `limits`, with their scores: the first always, however long;
 * and whether any is left out.
 */
const within = (
  ranked: ReadonlyArray<number>,
  entries: ReadonlyArray<Candidate>,
  score: (i: number) => number,
  limits: Limits
): Found => {
  const given: Array<Scored> = []
  let used = 0
  for (const i of ranked) {
    const entry = entries[i]!
    used += Text.length(entry.text)
    if (given.length >= limits.resultsMax || (given.length > 0 && used > limits.budget)) break
    given.push({ ...entry, score: score(i) })
  }
  return { entries: given, more: given.length < ranked.length }
}

/**
 * The entries of `memory` relevant to `query`, best first, within `limits`, and whether more are relevant. The memory
 * is given as entries, or as the indexes of its lists (files), which a caller may keep while a file is unchanged.
 */
export const search = (
  memory: ReadonlyArray<Candidate> | Indexes,
  query: string,
  limits: Limits,
  options: Options = {}
): Found => {
  const indexes = "indexes" in memory ? memory.indexes : [index(memory)]
  const { entries, dates } = flatten(indexes)
  const newestFirst = (a: number, b: number) => dates[b]! - dates[a]! || a - b
  const asked = queryOf(query, options)
  if (asked.terms.size === 0 && asked.dates.length === 0) {
    const key = Text.sameKey(query)
    const holding: Array<number> = []
    entries.forEach((entry, i) => {
      if (key === "" || Text.sameKey(entry.text).includes(key)) holding.push(i)
    })
    return within(holding.sort(newestFirst), entries, () => 0, limits)
  }
  const score = scores(indexes, asked)
  let best = 0
  for (const s of score) if (s > best) best = s
  const relevant: Array<number> = []
  score.forEach((s, i) => {
    if (s > 0 && s >= relevantShare * best) relevant.push(i)
  })
  relevant.sort((a, b) => score[b]! - score[a]! || newestFirst(a, b))
  return within(relevant, entries, (i) => score[i]!, limits)
}
