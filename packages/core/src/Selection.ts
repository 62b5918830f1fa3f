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

/** What a code point of lower-case text is to the word scan. */
const other = 0
const latin = 1
const han = 2

/** The kind of code point `c` of lower-case text: Han, Latin letter or other (a regex tells outside a-z and ß-ɏ). */
const kind = (c: number): number =>
  c < 128
    ? c >= 97 && c <= 122
      ? latin
      : other
    : (c >= 0x4e00 && c <= 0x9fff) || (c > 0x2e7f && hanChar.test(String.fromCodePoint(c)))
      ? han
      : (c >= 0xdf && c <= 0x24f && c !== 0xf7) || (c > 0x24f && latinChar.test(String.fromCodePoint(c)))
        ? latin
        : other

const seed = 0x011c9dc5
/** One step of an FNV-1a style hash, kept to 30 bits so it stays a small integer for the engine. */
const mix = (hash: number, c: number): number => Math.imul(hash ^ c, 0x01000193) & 0x3fffffff

/** Whether `c` is in the main CJK block, Han and without case. */
const isMainHan = (c: number): boolean => c >= 0x4e00 && c <= 0x9fff

/**
 * The hash of a pair of Han characters. Text in Chinese has a word at every character, so a pair of the main CJK block
 * gets an exact key instead, below zero where hashes never are: equal keys need no check of the units.
 */
const pairHash = (a: number, b: number): number =>
  isMainHan(a) && isMainHan(b) ? -1 - ((a - 0x4e00) * 0x5200 + (b - 0x4e00)) : mix(mix(seed, a), b)

/**
 * The user's distinct words: their units, and an open addressing table by hash with four numbers a slot (the word's
 * hash, `free` when the slot has none; the last entry it was counted for; its length in units; its start in `units`),
 * at most an eighth full: a look-up that meets another word's slot costs more than the room.
 */
interface Vocabulary {
  units: Uint16Array
  table: Int32Array
  shift: number
  size: number
  /** A bit for the low 16 bits of each word's hash (8 KB): a count looks up only words whose bit is set. */
  readonly hashes: Int32Array
}

/** The hash of a free slot: above every hash, and every exact key is below zero. */
const free = 0x40000000

/** 1 when `x` (an int32) is not 0, else 0, with no branch. */
const nonzero = (x: number): number => (x | -x) >>> 31

/**
 * The offset in `vocabulary.table` of the slot of the word of `hash` whose units are `units[start..end)`, or of the
 * free slot it would take. Whether a word is there is often as likely as not, which a processor cannot guess, so the
 * look-up is arithmetic, without a branch on it, until a slot holds this hash or none: mispredicted branches cost more
 * than the rest.
 */
const slot = (vocabulary: Vocabulary, hash: number, units: Uint16Array, start: number, end: number): number => {
  const { table } = vocabulary
  for (let s = (Math.imul(hash, 0x9e3779b1) >>> vocabulary.shift) * 4; ; s = (s + 4) & (table.length - 4)) {
    while ((nonzero(table[s]! ^ hash) & nonzero(table[s]! ^ free)) !== 0) s = (s + 4) & (table.length - 4)
    if (hash < 0 || table[s] === free) return s // free, or an exact key
    if (table[s + 2] !== end - start) continue
    const at = table[s + 3]! - start
    let k = start
    while (k < end && vocabulary.units[at + k] === units[k]) k++
    if (k === end) return s
  }
}

/** An empty vocabulary of 2^`bits` slots. */
const emptyVocabulary = (bits: number): Vocabulary => ({
  units: new Uint16Array(0),
  table: new Int32Array(4 << bits).fill(free),
  shift: 32 - bits,
  size: 0,
  hashes: new Int32Array(1 << 11)
})

/**
 * The bits a count passes words over by, or undefined when it looks every word up. A small vocabulary's bits are few,
 * so most words of an entry have no bit and are passed over at the cost of one read; a large one's bits are set about
 * as often as not, and a branch on them would cost more than the look-ups it saves.
 */
const filterOf = (into: Scan): Int32Array | undefined =>
  into.mode === "count" && into.vocabulary.size <= 256 ? into.vocabulary.hashes : undefined

/** Whether `filter` tells that no word of `hash` is in the vocabulary. */
const isUnknown = (filter: Int32Array | undefined, hash: number): boolean =>
  filter !== undefined && (filter[(hash >> 5) & 0x7ff]! & (1 << (hash & 31))) === 0

/** Adds the word of `hash` at `start..end` of `vocabulary.units` in free slot `s`, doubling the table as needed. */
const add = (vocabulary: Vocabulary, s: number, hash: number, start: number, end: number): void => {
  const { table } = vocabulary
  vocabulary.hashes[(hash >> 5) & 0x7ff]! |= 1 << (hash & 31)
  table[s] = hash
  table[s + 1] = -1
  table[s + 2] = end - start
  table[s + 3] = start
  if (++vocabulary.size * 8 <= table.length >> 2) return
  vocabulary.table = new Int32Array(table.length * 2).fill(free)
  vocabulary.shift--
  vocabulary.size = 0
  for (let t = 0; t < table.length; t += 4) {
    if (table[t] === free) continue
    const [known, at, length] = [table[t]!, table[t + 3]!, table[t + 2]!]
    add(vocabulary, slot(vocabulary, known, vocabulary.units, at, at + length), known, at, at + length)
  }
}

/**
 * Where a scan goes: `units` for the lower-case units of the text's words (the vocabulary's own when it learns), and
 * what it does with each word: "list" writes it to `words` (start, end and hash), "learn" adds it to `vocabulary`,
 * "count" counts it when it is in `vocabulary` and not yet counted for entry number `entry`.
 */
interface Scan {
  readonly mode: "list" | "learn" | "count"
  readonly vocabulary: Vocabulary
  readonly words: Array<number>
  units: Uint16Array
  entry: number
}

/** Gives `into` room for `size` units (and so its vocabulary, whose units they are, when it learns). */
const grow = (into: Scan, size: number): Uint16Array => {
  into.units = new Uint16Array(size)
  if (into.mode === "learn") into.vocabulary.units = into.units
  return into.units
}

/** Takes word `found` of a scan (when counting, counts it if it is the vocabulary's), returning the count after it. */
const put = (into: Scan, found: number, start: number, end: number, hash: number): number => {
  if (into.mode !== "count") return take(into, found, start, end, hash)
  const { table } = into.vocabulary
  const s = slot(into.vocabulary, hash, into.units, start, end)
  const last = table[s + 1]!
  table[s + 1] = into.entry // never read in a free slot
  return found + (nonzero(table[s]! ^ free) & nonzero(last ^ into.entry))
}

/** Takes word `found` of a scan that lists or learns, returning the count after it. */
const take = (into: Scan, found: number, start: number, end: number, hash: number): number => {
  if (into.mode === "list") return into.words.push(start, end, hash) / 3
  const s = slot(into.vocabulary, hash, into.units, start, end)
  if (into.vocabulary.table[s] === free) add(into.vocabulary, s, hash, start, end)
  return found + 1
}

/**
 * Scans `text` into `into` in one pass and returns how many words it took (when counting, how many distinct words of
 * the vocabulary it met): each run of 3 or more Latin letters, each pair of adjacent Han characters, in lower case as
 * `toLowerCase` gives it. A-Z is folded inline and the main CJK block has no case; any other code point is lower-cased
 * on its own, which is the same but for Greek final sigma (never in a word), and may give more than one code point
 * (İ gives i and a combining dot), read from `pending`. Only the units of Latin letters and Han characters are kept,
 * so a word is a run of `units`, and no code point keeps more units than it has (where a lower case is longer, the
 * more is no letter; a test checks every code point), so the text's length is room enough. Most text is runs of ASCII
 * letters or of the main CJK block, read on in tight loops.
 */
const scan = (text: string, into: Scan): number => {
  const units = into.units.length < text.length ? grow(into, text.length) : into.units
  let n = 0 // units kept
  let found = 0 // words found
  const filter = filterOf(into)
  let start = -1 // where the current Latin run starts in `units`, or -1
  let hash = seed
  let previous = -1 // the previous code point when it is Han, or -1
  let pending = ""
  let p = 0
  for (let i = 0; ;) {
    let c = -1 // -1 at the end, which ends any word
    let k = other
    if (p < pending.length) {
      c = pending.codePointAt(p)!
      p += c > 0xffff ? 2 : 1
      k = kind(c)
    } else if (i < text.length) {
      c = text.charCodeAt(i++)
      if (c < 128) {
        if (c >= 65 && c <= 90) c += 32
        k = c >= 97 && c <= 122 ? latin : other
      } else if (isMainHan(c)) k = han
      else {
        const low = i < text.length ? text.charCodeAt(i) : 0
        if (c >= 0xd800 && c <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
          c = (c - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000
          i++
        }
        pending = String.fromCodePoint(c).toLowerCase()
        p = 0
        continue
      }
    }
    if (k !== latin && start >= 0) {
      if (n - start >= 3 && !isUnknown(filter, hash)) found = put(into, found, start, n, hash)
      start = -1
    }
    if (c < 0) return found
    if (k === other) {
      previous = -1
      continue
    }
    const at = n
    if (c > 0xffff) {
      units[n++] = 0xd800 + ((c - 0x10000) >> 10)
      units[n++] = 0xdc00 + ((c - 0x10000) & 0x3ff)
    } else units[n++] = c
    const plain = p >= pending.length // whether what follows is read straight from `text`
    if (k === latin) {
      if (start < 0) {
        start = at
        hash = seed
      }
      hash = mix(hash, c)
      previous = -1
      // Then ASCII text, straight from `text`: a letter (| 0x20 folds A-Z to a-z, and takes nothing else there) goes
      // on with a word or starts one, anything else ends it.
      for (let d = 0; plain && i < text.length && (d = text.charCodeAt(i)) < 128; i++) {
        if (((d | 0x20) - 97) >>> 0 < 26) {
          if (start < 0) {
            start = n
            hash = seed
          }
          hash = mix(hash, d | 0x20)
          units[n++] = d | 0x20
        } else if (start >= 0) {
          if (n - start >= 3 && !isUnknown(filter, hash)) found = put(into, found, start, n, hash)
          start = -1
        }
      }
    } else {
      // This character a pair with the one before, and so each of the main CJK block that follows.
      for (let d = c; ; i++, units[n++] = d) {
        const size = (previous > 0xffff ? 2 : 1) + (d > 0xffff ? 2 : 1)
        const pair = previous >= 0 ? pairHash(previous, d) : 0
        if (previous >= 0 && !isUnknown(filter, pair)) found = put(into, found, n - size, n, pair)
        previous = d
        if (!plain || i >= text.length || !isMainHan((d = text.charCodeAt(i)))) break
      }
    }
  }
}

/** The words a text is matched by: Latin words of 3 or more letters in lower case, pairs of adjacent Han characters. */
export const words = (text: string): Array<string> => {
  const into: Scan = { mode: "list", vocabulary: emptyVocabulary(10), words: [], units: new Uint16Array(0), entry: 0 }
  return Array.from({ length: scan(text, into) }, (_, w) =>
    Array.from(into.units.subarray(into.words[w * 3], into.words[w * 3 + 1]), (u) => String.fromCharCode(u)).join("")
  )
}

/** For each entry, how many distinct words its text shares with `userText`. */
const sharedCounts = (entries: ReadonlyArray<Candidate>, userText: string): Int32Array => {
  const counts = new Int32Array(entries.length)
  // Slots for a distinct word in every 16 characters, an eighth full (so that growing is rare), 1,024 to 65,536.
  const vocabulary = emptyVocabulary(Math.min(16, Math.max(10, 32 - Math.clz32(userText.length >> 1))))
  scan(userText, { mode: "learn", vocabulary, words: [], units: vocabulary.units, entry: 0 })
  if (vocabulary.size === 0) return counts
  const entry: Scan = { mode: "count", vocabulary, words: [], units: new Uint16Array(0), entry: 0 }
  for (let n = 0; n < entries.length; n++) {
    entry.entry = n
    counts[n] = scan(entries[n]!.text, entry)
  }
  return counts
}

/** The entry's `added` date as a number (2026-11-06 is 20261106), or 0 when it has none, so it sorts as the oldest. */
const added = (meta: Entry.Metadata): number => {
  for (const [key, value] of meta) {
    // Only a key of 5 units can lower-case to "added" (only İ lower-cases longer, to a letter and a dot).
    if (key !== "added" && (key.length !== 5 || key.toLowerCase() !== "added")) continue
    if (value.length !== 10 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return 0
    let date = 0
    for (let i = 0; i < 10; i++) {
      const digit = value.charCodeAt(i) - 48
      if (i === 4 || i === 7) continue
      if (digit < 0 || digit > 9) return 0
      date = date * 10 + digit
    }
    return date
  }
  return 0
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
  const scores = sharedCounts(input.topics, input.userText)
  const rank = new Float64Array(input.topics.length)
  for (let i = 0; i < rank.length; i++) rank[i] = scores[i]! * 1e8 + added(input.topics[i]!.meta)
  const topics: Array<Candidate> = []
  let used = 0
  for (const i of best(rank)) {
    const entry = input.topics[i]!
    used += Text.length(entry.text)
    if (used > settings.shownTopicsBudget) break
    topics.push(entry)
  }
  const shown = [...input.own, ...input.team, ...topics].map((entry, i) => ({ ...entry, number: i + 1 }))
  return { shown, hidden: input.topics.length - topics.length }
}
