/**
 * The word scan of `Selection`: the words a text is matched by (each run of 3 or more Latin letters, each pair of
 * adjacent Han characters, in lower case) read in one pass, listed, numbered in a lexicon, or marked where the lexicon
 * has them. Each word has an int32 key; the lexicon is an open addressing table by key.
 */
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

/** The key of a free slot: above every key. Kept to this module: compiled code reads an exported constant through the
 * module's export cell on every probe, where a module's own is a constant. */
const free = 0x40000000

/** 1 when `x` (an int32) is not 0, else 0, with no branch. */
const nonzero = (x: number): number => (x | -x) >>> 31

/**
 * The distinct words of the entries, numbered from 0 as they are met: an open addressing table by key with two numbers
 * a slot (the key, `free` when the slot has none; the word's number), at most a quarter full; for a word whose key is a
 * hash, where its units start in `units` and how many there are, in `spans`; and for each number, the last text it was
 * met in, so a text lists each of its words once.
 */
export interface Lexicon {
  table: Int32Array
  spans: Int32Array
  shift: number
  size: number
  units: Uint16Array
  used: number
  seen: Int32Array
}

export const emptyLexicon = (): Lexicon => ({
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
export const widened = (array: Int32Array, size: number): Int32Array => {
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
export interface Scan {
  readonly mode: "list" | "number" | "mark"
  readonly lexicon: Lexicon
  units: Uint16Array
  out: Int32Array
  marks: Uint8Array
  text: number
}

export const scanOf = (mode: Scan["mode"], lexicon: Lexicon): Scan => ({
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
export const scan = (text: string, into: Scan): number => {
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
