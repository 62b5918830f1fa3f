/**
 * The entries a review shows the model (SPEC 4.3): both MEMORY.md files whole, then topic entries within a budget,
 * those sharing words with the user's new lines first, then the newest, and the count of topic entries left out.
 */
import * as Entry from "./Entry.ts"
import type { Settings } from "./MemoryConfig.ts"
import * as Text from "./Text.ts"

/** An entry that may be shown: its scope, its topic (`undefined` for MEMORY.md), its cleaned text and metadata. */
export interface Candidate {
  readonly scope: "own" | "team"
  readonly topic: string | undefined
  readonly text: string
  readonly meta: Entry.Metadata
}

/** A shown entry with the number the model refers to it by, from 1. */
export interface Shown extends Candidate {
  readonly number: number
}

const latinChar = /\p{Script=Latin}/u
const hanChar = /\p{Script=Han}/u
const date = /^\d{4}-\d{2}-\d{2}$/

/** Whether code point `c` is a Han character; the main CJK block without a regex. */
const isHan = (c: number): boolean =>
  (c >= 0x4e00 && c <= 0x9fff) || (c > 0x2e7f && hanChar.test(String.fromCodePoint(c)))

/** Whether code point `c` of lower-case text is a Latin letter; a-z without a regex, as most text is. */
const isLatin = (c: number): boolean => (c >= 97 && c <= 122) || (c > 127 && latinChar.test(String.fromCodePoint(c)))

const seed = 0x011c9dc5
/** One step of an FNV-1a style hash, kept to 30 bits so it stays a small integer for the engine. */
const mix = (hash: number, c: number): number => Math.imul(hash ^ c, 0x01000193) & 0x3fffffff

/**
 * One pass over lower-case `text`, calling `visit` with the start, end and hash of each word: each run of 3 or more
 * Latin letters, each pair of adjacent Han characters. The hash lets entry words be looked up without cutting them out.
 */
const scan = (lower: string, visit: (start: number, end: number, hash: number) => void): void => {
  let start = -1
  let hash = seed
  let previous = -1
  let previousAt = 0
  for (let i = 0; i <= lower.length;) {
    const c = i < lower.length ? lower.codePointAt(i)! : 32
    const size = c > 0xffff ? 2 : 1
    const han = c > 127 && isHan(c)
    if (!han && isLatin(c)) {
      if (start < 0) {
        start = i
        hash = seed
      }
      hash = mix(hash, c)
    } else if (start >= 0) {
      if (i - start >= 3) visit(start, i, hash)
      start = -1
    }
    if (han && previous >= 0) visit(previousAt, i + size, mix(mix(seed, previous), c))
    previous = han ? c : -1
    previousAt = i
    i += size
  }
}

/** The words a text is matched by: Latin words of 3 or more letters in lower case, pairs of adjacent Han characters. */
export const words = (text: string): Array<string> => {
  const lower = text.toLowerCase()
  const found: Array<string> = []
  scan(lower, (start, end) => found.push(lower.slice(start, end)))
  return found
}

/** The distinct words of the user's lines, numbered, by hash. */
const vocabulary = (text: string): Map<number, Array<{ readonly word: string; readonly id: number }>> => {
  const byHash = new Map<number, Array<{ readonly word: string; readonly id: number }>>()
  const lower = text.toLowerCase()
  let ids = 0
  scan(lower, (start, end, hash) => {
    const word = lower.slice(start, end)
    const same = byHash.get(hash) ?? []
    if (!same.some((known) => known.word === word)) byHash.set(hash, [...same, { word, id: ids++ }])
  })
  return byHash
}

/** For each text, how many distinct words it shares with `userText`; each text is scanned once. */
const sharedCounts = (texts: ReadonlyArray<string>, userText: string): Array<number> => {
  const known = vocabulary(userText)
  if (known.size === 0) return texts.map(() => 0)
  const lastSeenIn: Array<number> = []
  return texts.map((text, n) => {
    const lower = text.toLowerCase()
    let count = 0
    scan(lower, (start, end, hash) => {
      const same = known.get(hash)
      for (let k = 0; same !== undefined && k < same.length; k++) {
        const { word, id } = same[k]!
        if (word.length !== end - start || !lower.startsWith(word, start) || lastSeenIn[id] === n) continue
        lastSeenIn[id] = n
        count++
      }
    })
    return count
  })
}

/** The entry's `added` date as a number (2026-11-06 is 20261106), or 0 when it has none, so it sorts as the oldest. */
const added = (meta: Entry.Metadata): number => {
  const value = Entry.metaValue(meta, "added") ?? ""
  return date.test(value) ? Number(value.replaceAll("-", "")) : 0
}

/**
 * The entries to show, numbered from 1: own MEMORY.md, team MEMORY.md, then topic entries while `shownTopicsBudget`
 * characters of entry text last. Topic entries are ordered by the number of distinct words they share with
 * `userText` (most first; none last), then by `added` (newest first; undated last), then as `topics` lists them.
 * `hidden` counts the topic entries not shown.
 */
export const choose = (
  input: {
    readonly own: ReadonlyArray<Candidate>
    readonly team: ReadonlyArray<Candidate>
    readonly topics: ReadonlyArray<Candidate>
    readonly userText: string
  },
  settings: Pick<Settings, "shownTopicsBudget">
): { readonly shown: ReadonlyArray<Shown>; readonly hidden: number } => {
  const scores = sharedCounts(
    input.topics.map((entry) => entry.text),
    input.userText
  )
  const rank = input.topics.map((entry, i) => scores[i]! * 1e8 + added(entry.meta))
  const order = Array.from(rank.keys()).sort((a, b) => rank[b]! - rank[a]! || a - b)
  const topics: Array<Candidate> = []
  let used = 0
  for (const entry of order.map((i) => input.topics[i]!)) {
    used += Text.length(entry.text)
    if (used > settings.shownTopicsBudget) break
    topics.push(entry)
  }
  const shown = [...input.own, ...input.team, ...topics].map((entry, i) => ({ ...entry, number: i + 1 }))
  return { shown, hidden: input.topics.length - topics.length }
}
