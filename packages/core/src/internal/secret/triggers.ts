/**
 * What could start a finding: one pass over a text notes which rules can find anything in it (the flags of
 * `scan.ts`), so that only those run. Letters, digits, "_" and "-" are read as runs, each run of letters looked up
 * as a keyword of the English rules by a number made of its letters; other units carry their flag in one table read.
 */
import { isDigit, isLower, isUpper, type Table, unitsOf } from "./chars.ts"
import { CHINESE_BY_FIRST } from "./chinese.ts"
import { BY_FIRST } from "./keys.ts"
import { AT, CHINESE_WORD, DIGITS, MIXED, NON_ASCII, PEM, RUNS, SLASH, WORDS } from "./scan.ts"
import { KEYWORDS } from "./vocabulary.ts"

/** BMP units by kind: upper case, lower case, digit, or "_" and "-" (the rest of a key's characters); any other
 * unit that starts something carries its flag above the low byte ("@", "/", a unit past ASCII, and a unit every
 * Chinese keyword holds one of: its first, or 码 of "pin码"). */
const UPPER = 1
const LOWER = 2
const DIGIT = 4
const JOIN = 8
const kinds = (): Table => {
  const table = new Uint32Array(0x10000).fill(NON_ASCII << 8)
  for (let c = 0; c < 128; c++) {
    table[c] = isUpper(c) ? UPPER : isLower(c) ? LOWER : isDigit(c) ? DIGIT : c === 95 || c === 45 ? JOIN : 0
  }
  table[64] = AT << 8
  table[47] = SLASH << 8
  const chineseUnits = [...CHINESE_BY_FIRST.keys(), ...unitsOf("码碼")].filter((c) => c >= 0x80)
  for (const c of chineseUnits) table[c] = (CHINESE_WORD | NON_ASCII) << 8
  return table
}
const KINDS: Table = kinds()

/** The runs of letters of every keyword a word rule starts at ("cvv2" gives "cvv", "db_password" is "password"). */
const KEYWORD_RUNS: ReadonlyArray<string> = [...new Set(KEYWORDS.flatMap((word) => word.match(/[a-z]+/g) ?? []))]
const LONGEST_KEYWORD = Math.max(...KEYWORD_RUNS.map((run) => run.length))

/** The letters `[from, to)` of `text` as one number, case ignored (base 27: exact below 2^53, so up to 11). */
const letterCode = (text: string, from: number, to: number): number => {
  let code = 0
  for (let i = from; i < to; i++) code = code * 27 + ((text.charCodeAt(i) | 32) - 96)
  return code
}
const KEYWORD_CODES: ReadonlySet<number> = new Set(KEYWORD_RUNS.map((run) => letterCode(run, 0, run.length)))
/** For each first letter (1–26), a bit per length of a keyword starting with it: most words need no code. */
const keywordLengths = (): Table => {
  const table = new Uint16Array(27)
  for (const run of KEYWORD_RUNS) table[run.charCodeAt(0) - 96]! |= 1 << run.length
  return table
}
const KEYWORD_LENGTHS: Table = keywordLengths()

/** Whether the ASCII letters `[from, to)` of `text` are a keyword's. */
const isKeyword = (text: string, from: number, to: number): boolean =>
  to - from <= LONGEST_KEYWORD &&
  ((KEYWORD_LENGTHS[(text.charCodeAt(from) | 32) - 96]! >> (to - from)) & 1) === 1 &&
  KEYWORD_CODES.has(letterCode(text, from, to))

/** The first unit of every known key format and of a JWT ("eyJ"), and the shortest run that can hold one. */
const keyFirst = (): Table => {
  const table = new Uint8Array(128)
  for (const c of [...BY_FIRST.keys(), 101]) table[c] = 1
  return table
}
const KEY_FIRST: Table = keyFirst()
const KEY_RUN = 10

/** A unit that starts a run or carries a flag (any unit `KINDS` gives more than 0): a long run of other units
 * (spaces, punctuation) is passed by the regex engine, at its own speed. */
const STARTS = /[-0-9A-Za-z_@/\u0080-\uffff]/
/** How many units that start nothing in a row before the rest of their run is passed by `STARTS`. */
const QUIET_RUN = 16

/** Which scanners can find something in `text`. With `first`, the pass stops at a run of 32 mixing upper case, lower
 * case and digits (a secret unless it is in a URL), with every scanner to run (-1). */
export const triggers = (text: string, first: boolean): number => {
  const n = text.length
  let flags = 0
  let digits = 0
  let quiet = 0 // where the units that start nothing up to `i` begin
  let i = 0
  while (i < n) {
    const unit = KINDS[text.charCodeAt(i)]!
    if (unit === 0) {
      if (++i - quiet === QUIET_RUN) {
        const next = text.slice(i).search(STARTS)
        i = quiet = next < 0 ? n : i + next
      }
      continue
    }
    if (unit > JOIN) {
      // A unit with a flag ends a quiet run as a run of letters does: a Chinese text is never left to the regex.
      flags |= unit >> 8
      quiet = ++i
      continue
    }
    // The kinds from UPPER to JOIN go on a run; the test is written out in both places, never as a call: a call in
    // the loop below, when the compiler did not inline it, made a long run of letters twice as slow.
    const next = i + 1 === n ? 0 : KINDS[text.charCodeAt(i + 1)]!
    if (next < UPPER || next > JOIN) {
      // A unit alone (a digit or a letter between spaces): a run of one, which is no keyword (none is one letter).
      if (unit === DIGIT) digits++
      quiet = ++i
      continue
    }
    const start = i
    let word = i // where the current run of letters starts
    let alnum = i // where the current run of letters and digits starts, and the kinds it holds
    let kinds = 0
    for (; i < n; i++) {
      const kind = KINDS[text.charCodeAt(i)]!
      if (kind < UPPER || kind > JOIN) break
      if (kind > LOWER) {
        if (i > word && isKeyword(text, word, i)) flags |= WORDS
        word = i + 1
        if (kind === JOIN) {
          // "-----BEGIN " looked for at its last "-", the one before a "B": one look a header, where a look at every
          // "-" made four, and none in a run of digit groups ("123-456-…"). Never a read past the end: the first such
          // read made the compiled pass fall back, and the one compiled after it was slower.
          if (i + 1 < n && text.charCodeAt(i + 1) === 66 && i >= 4 && text.startsWith("-----BEGIN ", i - 4)) {
            flags |= PEM
          }
          alnum = i + 1
          kinds = 0
          continue
        }
        digits++
      }
      kinds |= kind
      if (i - alnum >= 31 && kinds === (UPPER | LOWER | DIGIT)) {
        if (first) return -1
        flags |= MIXED
      }
    }
    if (i > word && isKeyword(text, word, i)) flags |= WORDS
    if (i - start >= KEY_RUN && KEY_FIRST[text.charCodeAt(start)] === 1) flags |= RUNS
    quiet = i
  }
  return digits >= 15 ? flags | DIGITS : flags
}
