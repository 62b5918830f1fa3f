/**
 * What choosing may keep between calls (`Selection.WordIndex`): the lexicon of the entries' words and, for each text
 * among the entries, the numbers of its distinct words; for a list of entries given again (the same array), their
 * words and dates. A review passes over the same entries pass after pass, so a later pass reads the words of a text it
 * has met from its list instead of the text. The index is a value its owner holds and gives to each call; what it
 * keeps never changes a choice, only how soon it is made.
 */
import * as Entry from "../Entry.ts"
import { emptyLexicon, type Lexicon, type Scan, scan, scanOf, widened } from "./wordScan.ts"

/** What ranking reads of an entry: its text and metadata. */
export interface Ranked {
  readonly text: string
  readonly meta: Entry.Metadata
}

/**
 * What choosing keeps between calls: the lexicon of the entries' words, and for each text among the entries, the
 * numbers of its distinct words: `lists` holds, from the offset `texts` maps a text to, how many there are, then the
 * numbers. Once it holds more than twice as many texts, or characters, as the entries given (and some to spare), what
 * is kept is cut back to their texts, so memory stays within a few times what the entries take; and the lexicon is
 * let go with the rest once it holds more than twice the words, or the units, that the texts kept list.
 */
export interface Index {
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

/** Where the numbers of the distinct words of `text` are listed in `held.index.lists`, read with `numbering` when new. */
const listOf = (held: WordIndex, text: string, numbering: Scan): number => {
  const known = held.index.texts.get(text)
  if (known !== undefined) return known
  numbering.text = held.index.numbered++
  const count = scan(text, numbering)
  if (held.index.used + count + 1 > held.index.lists.length)
    held.index.lists = widened(held.index.lists, held.index.used + count + 1)
  const at = held.index.used
  held.index.lists[at] = count
  for (let w = 0; w < count; w++) held.index.lists[at + 1 + w] = numbering.out[w]!
  held.index.used += count + 1
  held.index.texts.set(text, at)
  held.index.chars += text.length
  return at
}

/**
 * Cuts what is kept back to the texts of the entries of `lists` (of `count` entries and `chars` characters) once it
 * holds more than twice theirs. A text the index no longer holds (a list's, kept with the list) is not kept.
 */
const prune = (held: WordIndex, lists: ReadonlyArray<ReadonlyArray<Ranked>>, count: number, chars: number): void => {
  if (held.index.texts.size <= 2 * count + 1024 && held.index.chars <= 2 * chars + (1 << 20)) return
  let room = 0
  for (const entries of lists) {
    for (const { text } of entries) {
      const at = held.index.texts.get(text)
      if (at !== undefined) room += held.index.lists[at]! + 1
    }
  }
  const kept = emptyIndex(held.index.lexicon, held.index.numbered, room * 2) // room for as many new texts again
  for (const entries of lists) {
    for (const { text } of entries) {
      const at = held.index.texts.get(text)
      if (at === undefined || kept.texts.has(text)) continue
      const length = held.index.lists[at]! + 1
      for (let w = 0; w < length; w++) kept.lists[kept.used + w] = held.index.lists[at + w]!
      kept.texts.set(text, kept.used)
      kept.chars += text.length
      kept.used += length
    }
  }
  const lexicon = held.index.lexicon
  const stale = lexicon.size > 2 * kept.used + 65_536 || lexicon.used > 2 * kept.chars + (1 << 20)
  held.index = stale ? emptyIndex(emptyLexicon(), 0, 1 << 16) : kept
}

/**
 * What choosing keeps of a list of entries: the lexicon its words are numbered in, the numbers of each entry's distinct
 * words one entry after another (entry `e`'s end at `ends[e]`), each entry's `added` date, and the characters of its
 * texts. It stands while the lexicon does.
 */
export interface Block {
  readonly lexicon: Lexicon
  readonly words: Int32Array
  readonly ends: Int32Array
  readonly dates: Float64Array
  readonly chars: number
}

/** What choosing keeps of `entries`, read now (their texts' words with `numbering`) unless it is kept. */
const blockOf = (held: WordIndex, entries: ReadonlyArray<Ranked>, numbering: Scan): Block => {
  const known = held.blocks.get(entries)
  if (known !== undefined && known.lexicon === held.index.lexicon) return known
  const at = new Int32Array(entries.length)
  let total = 0
  let chars = 0
  for (let e = 0; e < entries.length; e++) {
    const text = entries[e]!.text
    at[e] = listOf(held, text, numbering)
    total += held.index.lists[at[e]!]!
    chars += text.length
  }
  const { lists } = held.index
  const words = new Int32Array(total)
  const ends = new Int32Array(entries.length)
  const dates = new Float64Array(entries.length)
  let w = 0
  for (let e = 0; e < entries.length; e++) {
    for (let k = at[e]! + 1, end = k + lists[at[e]!]!; k < end; k++) words[w++] = lists[k]!
    ends[e] = w
    dates[e] = added(entries[e]!.meta)
  }
  const block: Block = { lexicon: held.index.lexicon, words, ends, dates, chars }
  held.blocks.set(entries, block)
  return block
}

/**
 * Each entry's rank, the lists' entries one after another (`count` of them): how many distinct words its text shares
 * with `userText`, times 1e8, plus its `added` date.
 */
export const ranks = (
  held: WordIndex,
  lists: ReadonlyArray<ReadonlyArray<Ranked>>,
  userText: string,
  count: number
): Float64Array => {
  // Each text numbered has a number of its own; long before they run out, every text and word is forgotten.
  if (held.index.numbered > 0x3fffffff) held.index = emptyIndex(emptyLexicon(), 0, 1 << 16)
  const numbering = scanOf("number", held.index.lexicon)
  const read = lists.map((entries) => blockOf(held, entries, numbering))
  const marking = scanOf("mark", held.index.lexicon)
  marking.marks = new Uint8Array(held.index.lexicon.size)
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
  prune(held, lists, count, chars)
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
 * What choosing keeps between calls, held by whoever chooses again and again over the same entries (a review's
 * passes): the index of the texts met, and what is kept of each list of entries given.
 */
export interface WordIndex {
  index: Index
  readonly blocks: WeakMap<ReadonlyArray<Ranked>, Block>
}

/** An index that has met no text (small: what it keeps grows as it meets texts). */
export const empty = (): WordIndex => ({ index: emptyIndex(emptyLexicon(), 0, 1 << 10), blocks: new WeakMap() })
