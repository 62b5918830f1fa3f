/**
 * The entries a review shows the model (docs/spec.md 4.3): both MEMORY.md files whole, then topic entries within a budget,
 * those sharing words with the user's new lines first, then the newest, and the count of topic entries left out.
 *
 * Every distinct word an entry has held gets a number, and each entry's text the list of its distinct words' numbers,
 * kept between calls (the `Index` below, which lets go of texts no longer given): a review passes over the same entries
 * pass after pass, so choosing reads the words of a text it has met before from that list, and counts the user's among
 * them with one read each, instead of reading the text again. Topic entries may be given as lists, one a file: a list
 * given again (the same array: a file unchanged) is not looked at entry by entry again, its entries' words and dates
 * are kept with it. What is kept never changes a choice, only how soon it is made.
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

/** Whether `c` is in the main CJK block, Han and without case. */
const isMainHan = (c: number): boolean => c >= 0x4e00 && c <= 0x9fff

/*
 * Each word has a key, an int32. Most words have an exact key, below zero, that no other word has, so that equal keys
 * need no look at the units: a pair of the main CJK block (text in Chinese has a word at every character), and a word
 * of 3 to 6 letters a-z (its code, below 27^6, below the pairs' keys and above -2^31). Any other word's key is its code
 * cut to 30 bits, 0 or above, which other words may share.
 */

/** One step of a word's code: code point `c` added as a digit of base 27 (a-z are 1 to 26), wrapping at 32 bits. */
const step = (code: number, c: number): number => (Math.imul(code, 27) + c - 96) | 0

/** How many pairs of the main CJK block there are: their keys are -1 to -`HAN_PAIRS`. */
const HAN_PAIRS = 0x5200 * 0x5200

/** The key of a pair of Han characters. */
const pairKey = (a: number, b: number): number =>
  isMainHan(a) && isMainHan(b) ? -1 - ((a - 0x4e00) * 0x5200 + (b - 0x4e00)) : step(step(0, a), b) & 0x3fffffff

/** The key of a Latin word of `length` units and code `code`; `plain` when every letter of it is a-z. */
const latinKey = (code: number, length: number, plain: boolean): number =>
  plain && length <= 6 ? -1 - HAN_PAIRS - code : code & 0x3fffffff

/** The key of a free slot: above every key. */
const free = 0x40000000

/** 1 when `x` (an int32) is not 0, else 0, with no branch. */
const nonzero = (x: number): number => (x | -x) >>> 31

/**
 * The distinct words of the entries, numbered from 0 as they are met: an open addressing table by key with two numbers
 * a slot (the key, `free` when the slot has none; the word's number), at most a quarter full; for a word whose key is a
 * hash, where its units start in `units` and how many there are, in `spans`; and for each number, the last text it was
 * met in, so a text lists each of its words once.
 */
interface Lexicon {
  table: Int32Array
  spans: Int32Array
  shift: number
  size: number
  units: Uint16Array
  used: number
  seen: Int32Array
}

const emptyLexicon = (): Lexicon => ({
  table: new Int32Array(2 << 12).fill(free),
  spans: new Int32Array(2 << 12),
  shift: 32 - 12,
  size: 0,
  units: new Uint16Array(1 << 12),
  used: 0,
  seen: new Int32Array(1 << 10)
})

/**
 * The offset in `lexicon.table` of the slot of the word of `key` whose units are `units[start..end)`, or of the free
 * slot it would take. Whether a word is there is often as likely as not, which a processor cannot guess, so the probe
 * is arithmetic, without a branch on it, until a slot holds this key or none: mispredicted branches cost more than the
 * rest.
 */
const slot = (lexicon: Lexicon, key: number, units: Uint16Array, start: number, end: number): number => {
  const { table } = lexicon
  const mask = table.length - 2
  for (let s = (Math.imul(key, 0x9e3779b1) >>> lexicon.shift) * 2; ; s = (s + 2) & mask) {
    while ((nonzero(table[s]! ^ key) & nonzero(table[s]! ^ free)) !== 0) s = (s + 2) & mask
    if (key < 0 || table[s] === free) return s // free, or an exact key
    if (lexicon.spans[s + 1] !== end - start) continue
    const at = lexicon.spans[s]! - start
    let k = start
    while (k < end && lexicon.units[at + k] === units[k]) k++
    if (k === end) return s
  }
}

/** `array` copied into one with room for `size` numbers, or twice its own when that is more. */
const widened = (array: Int32Array, size: number): Int32Array => {
  const wider = new Int32Array(Math.max(size, array.length * 2))
  wider.set(array)
  return wider
}

/** Adds the word of `key` whose units are `units[start..end)` in free slot `s`; returns its number. */
const add = (lexicon: Lexicon, s: number, key: number, units: Uint16Array, start: number, end: number): number => {
  const id = lexicon.size++
  lexicon.table[s] = key
  lexicon.table[s + 1] = id
  if (key >= 0) {
    if (lexicon.used + end - start > lexicon.units.length) {
      const wider = new Uint16Array(Math.max(lexicon.used + end - start, lexicon.units.length * 2))
      wider.set(lexicon.units)
      lexicon.units = wider
    }
    lexicon.units.set(units.subarray(start, end), lexicon.used)
    lexicon.spans[s] = lexicon.used
    lexicon.spans[s + 1] = end - start
    lexicon.used += end - start
  }
  if (id >= lexicon.seen.length) lexicon.seen = widened(lexicon.seen, id + 1)
  lexicon.seen[id] = -1
  if (lexicon.size * 4 > lexicon.table.length >> 1) rehash(lexicon)
  return id
}

/** Doubles the table of `lexicon`: its words are distinct, so each takes the first free slot it meets. */
const rehash = (lexicon: Lexicon): void => {
  const { table, spans } = lexicon
  lexicon.table = new Int32Array(table.length * 2).fill(free)
  lexicon.spans = new Int32Array(table.length * 2)
  lexicon.shift--
  const mask = lexicon.table.length - 2
  for (let t = 0; t < table.length; t += 2) {
    if (table[t] === free) continue
    let s = (Math.imul(table[t]!, 0x9e3779b1) >>> lexicon.shift) * 2
    while (lexicon.table[s] !== free) s = (s + 2) & mask
    lexicon.table[s] = table[t]!
    lexicon.table[s + 1] = table[t + 1]!
    lexicon.spans[s] = spans[t]!
    lexicon.spans[s + 1] = spans[t + 1]!
  }
}

/**
 * Where a scan goes: `units` for the lower-case units of the text's words, and what it does with each word: "list"
 * writes its start and end in `units` to `out`, "number" writes its number in `lexicon` to `out` (adding the word when
 * new) unless text number `text` has already met it, "mark" sets `marks` at its number when `lexicon` has it.
 */
interface Scan {
  readonly mode: "list" | "number" | "mark"
  readonly lexicon: Lexicon
  units: Uint16Array
  out: Int32Array
  marks: Uint8Array
  text: number
}

const scanOf = (mode: Scan["mode"], lexicon: Lexicon): Scan => ({
  mode,
  lexicon,
  units: new Uint16Array(1 << 10),
  out: new Int32Array(1 << 10),
  marks: new Uint8Array(0),
  text: 0
})

/** Takes the word of `key` at `units[start..end)`, the `found`th the scan has written; returns how many it has. */
const take = (into: Scan, found: number, start: number, end: number, key: number): number => {
  if (into.mode !== "number")
    return into.mode === "mark" ? mark(into, found, start, end, key) : list(into, found, start, end)
  const { lexicon } = into
  const s = slot(lexicon, key, into.units, start, end)
  const id = lexicon.table[s] === free ? add(lexicon, s, key, into.units, start, end) : lexicon.table[s + 1]!
  if (lexicon.seen[id] === into.text) return found
  lexicon.seen[id] = into.text
  if (found === into.out.length) into.out = widened(into.out, found + 1)
  into.out[found] = id
  return found + 1
}

/** Marks the word of `key` at `units[start..end)` when the lexicon has it. */
const mark = (into: Scan, found: number, start: number, end: number, key: number): number => {
  const { table } = into.lexicon
  const s = slot(into.lexicon, key, into.units, start, end)
  if (table[s] !== free) into.marks[table[s + 1]!] = 1
  return found
}

/** Lists the word at `units[start..end)`, the `found`th. */
const list = (into: Scan, found: number, start: number, end: number): number => {
  if (found * 2 + 2 > into.out.length) into.out = widened(into.out, found * 2 + 2)
  into.out[found * 2] = start
  into.out[found * 2 + 1] = end
  return found + 1
}

/**
 * Scans `text` into `into` in one pass and returns how many words it wrote: each run of 3 or more Latin letters, each
 * pair of adjacent Han characters, in lower case as `toLowerCase` gives it. A-Z is folded inline and the main CJK block
 * has no case; any other code point is lower-cased on its own, which is the same but for Greek final sigma (never in a
 * word), and may give more than one code point (İ gives i and a combining dot), read from `pending`. Only the units of
 * Latin letters and Han characters are kept, so a word is a run of `units`, and no code point keeps more units than it
 * has (where a lower case is longer, the more is no letter; a test checks every code point), so the text's length is
 * room enough. Most text is runs of ASCII letters or of the main CJK block, read on in tight loops.
 */
const scan = (text: string, into: Scan): number => {
  if (into.units.length < text.length) into.units = new Uint16Array(Math.max(text.length, into.units.length * 2))
  const units = into.units
  let n = 0 // units kept
  let found = 0 // words written
  let start = -1 // where the current Latin word starts in `units`, or -1
  let code = 0 // its code, `step` by `step` over its letters
  let plain = true // whether every letter of it is a-z
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
      if (n - start >= 3) found = take(into, found, start, n, latinKey(code, n - start, plain))
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
    const direct = p >= pending.length // whether what follows is read straight from `text`
    if (k === latin) {
      if (start < 0) {
        start = at
        code = 0
        plain = true
      }
      code = step(code, c)
      plain &&= c < 128
      previous = -1
      // Then ASCII text, straight from `text`: a letter (| 0x20 folds A-Z to a-z, and takes nothing else there) goes
      // on with a word or starts one, anything else ends it.
      for (let d = 0; direct && i < text.length && (d = text.charCodeAt(i)) < 128; i++) {
        if (((d | 0x20) - 97) >>> 0 < 26) {
          if (start < 0) {
            start = n
            code = 0
            plain = true
          }
          code = step(code, d | 0x20)
          units[n++] = d | 0x20
        } else if (start >= 0) {
          if (n - start >= 3) found = take(into, found, start, n, latinKey(code, n - start, plain))
          start = -1
        }
      }
    } else {
      // This character a pair with the one before, and so each of the main CJK block that follows.
      for (let d = c; ; i++, units[n++] = d) {
        if (previous >= 0) {
          const size = (previous > 0xffff ? 2 : 1) + (d > 0xffff ? 2 : 1)
          found = take(into, found, n - size, n, pairKey(previous, d))
        }
        previous = d
        if (!direct || i >= text.length || !isMainHan((d = text.charCodeAt(i)))) break
      }
    }
  }
}

/**
 * What choosing keeps between calls: the lexicon of the entries' words, and for each text among the entries, the
 * numbers of its distinct words: `lists` holds, from the offset `texts` maps a text to, how many there are, then the
 * numbers. Once it holds more than twice as many texts, or characters, as the entries given (and some to spare), what
 * is kept is cut back to their texts, so memory stays within a few times what the entries take; and the lexicon is
 * let go with the rest once it holds more than twice the words, or the units, that the texts kept list.
 */
interface Index {
  lexicon: Lexicon
  texts: Map<string, number>
  /** The characters of the texts in `texts`. */
  chars: number
  lists: Int32Array
  used: number
  /** How many texts the lexicon has numbered: each has its own number for `Lexicon.seen`. */
  numbered: number
}

const emptyIndex = (lexicon: Lexicon, numbered: number, room: number): Index => ({
  lexicon,
  texts: new Map(),
  chars: 0,
  lists: new Int32Array(room),
  used: 0,
  numbered
})

let index = emptyIndex(emptyLexicon(), 0, 1 << 16)

/** The words a text is matched by: Latin words of 3 or more letters in lower case, pairs of adjacent Han characters. */
export const words = (text: string): Array<string> => {
  const into = scanOf("list", index.lexicon) // a list looks nothing up
  return Array.from({ length: scan(text, into) }, (_, w) =>
    Array.from(into.units.subarray(into.out[w * 2], into.out[w * 2 + 1]), (u) => String.fromCharCode(u)).join("")
  )
}

/** Where the numbers of the distinct words of `text` are listed in `index.lists`, read with `numbering` when new. */
const listOf = (text: string, numbering: Scan): number => {
  const known = index.texts.get(text)
  if (known !== undefined) return known
  numbering.text = index.numbered++
  const count = scan(text, numbering)
  if (index.used + count + 1 > index.lists.length) index.lists = widened(index.lists, index.used + count + 1)
  const at = index.used
  index.lists[at] = count
  for (let w = 0; w < count; w++) index.lists[at + 1 + w] = numbering.out[w]!
  index.used += count + 1
  index.texts.set(text, at)
  index.chars += text.length
  return at
}

/**
 * Cuts what is kept back to the texts of the entries of `lists` (of `count` entries and `chars` characters) once it
 * holds more than twice theirs. A text the index no longer holds (a list's, kept with the list) is not kept.
 */
const prune = (lists: ReadonlyArray<ReadonlyArray<Candidate>>, count: number, chars: number): void => {
  if (index.texts.size <= 2 * count + 1024 && index.chars <= 2 * chars + (1 << 20)) return
  let room = 0
  for (const entries of lists) {
    for (const { text } of entries) {
      const at = index.texts.get(text)
      if (at !== undefined) room += index.lists[at]! + 1
    }
  }
  const kept = emptyIndex(index.lexicon, index.numbered, room * 2) // room for as many new texts again
  for (const entries of lists) {
    for (const { text } of entries) {
      const at = index.texts.get(text)
      if (at === undefined || kept.texts.has(text)) continue
      const length = index.lists[at]! + 1
      for (let w = 0; w < length; w++) kept.lists[kept.used + w] = index.lists[at + w]!
      kept.texts.set(text, kept.used)
      kept.chars += text.length
      kept.used += length
    }
  }
  const lexicon = index.lexicon
  const stale = lexicon.size > 2 * kept.used + 65_536 || lexicon.used > 2 * kept.chars + (1 << 20)
  index = stale ? emptyIndex(emptyLexicon(), 0, 1 << 16) : kept
}

/**
 * What choosing keeps of a list of entries: the lexicon its words are numbered in, the numbers of each entry's distinct
 * words one entry after another (entry `e`'s end at `ends[e]`), each entry's `added` date, and the characters of its
 * texts. It stands while the lexicon does.
 */
interface Block {
  readonly lexicon: Lexicon
  readonly words: Int32Array
  readonly ends: Int32Array
  readonly dates: Float64Array
  readonly chars: number
}

const blocks = new WeakMap<ReadonlyArray<Candidate>, Block>()

/** What choosing keeps of `entries`, read now (their texts' words with `numbering`) unless it is kept. */
const blockOf = (entries: ReadonlyArray<Candidate>, numbering: Scan): Block => {
  const known = blocks.get(entries)
  if (known !== undefined && known.lexicon === index.lexicon) return known
  const at = new Int32Array(entries.length)
  let total = 0
  let chars = 0
  for (let e = 0; e < entries.length; e++) {
    const text = entries[e]!.text
    at[e] = listOf(text, numbering)
    total += index.lists[at[e]!]!
    chars += text.length
  }
  const { lists } = index
  const words = new Int32Array(total)
  const ends = new Int32Array(entries.length)
  const dates = new Float64Array(entries.length)
  let w = 0
  for (let e = 0; e < entries.length; e++) {
    for (let k = at[e]! + 1, end = k + lists[at[e]!]!; k < end; k++) words[w++] = lists[k]!
    ends[e] = w
    dates[e] = added(entries[e]!.meta)
  }
  const block: Block = { lexicon: index.lexicon, words, ends, dates, chars }
  blocks.set(entries, block)
  return block
}

/**
 * Each entry's rank, the lists' entries one after another (`count` of them): how many distinct words its text shares
 * with `userText`, times 1e8, plus its `added` date.
 */
const ranks = (lists: ReadonlyArray<ReadonlyArray<Candidate>>, userText: string, count: number): Float64Array => {
  // Each text numbered has a number of its own; long before they run out, every text and word is forgotten.
  if (index.numbered > 0x3fffffff) index = emptyIndex(emptyLexicon(), 0, 1 << 16)
  const numbering = scanOf("number", index.lexicon)
  const read = lists.map((entries) => blockOf(entries, numbering))
  const marking = scanOf("mark", index.lexicon)
  marking.marks = new Uint8Array(index.lexicon.size)
  scan(userText, marking)
  const { marks } = marking
  const rank = new Float64Array(count)
  let i = 0
  let chars = 0
  for (const { words, ends, dates, chars: listChars } of read) {
    chars += listChars
    for (let e = 0, w = 0; e < ends.length; e++, i++) {
      let shared = 0
      for (const end = ends[e]!; w < end; w++) shared += marks[words[w]!]!
      rank[i] = shared * 1e8 + dates[e]!
    }
  }
  prune(lists, count, chars)
  return rank
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
 * `hidden` counts the topic entries not shown. The topic entries may be given as lists, one a file (`Lists`).
 */
export const choose = (
  input: {
    readonly own: ReadonlyArray<Candidate>
    readonly team: ReadonlyArray<Candidate>
    readonly topics: ReadonlyArray<Candidate> | Lists
    readonly userText: string
  },
  settings: Pick<Settings, "shownTopicsBudget">
): { readonly shown: ReadonlyArray<Shown>; readonly hidden: number } => {
  const lists = "lists" in input.topics ? input.topics.lists : [input.topics]
  const all: Array<Candidate> = []
  for (const entries of lists) for (let e = 0; e < entries.length; e++) all.push(entries[e]!)
  const rank = ranks(lists, input.userText, all.length)
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
