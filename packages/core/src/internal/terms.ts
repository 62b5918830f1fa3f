/**
 * The words a search matches text by, read in one pass over the text. A word is a run of letters and digits (an
 * apostrophe or a hyphen ends it), in lower case with the accents of Latin letters folded (`Café` is `cafe`); a word of
 * one letter is none. An English word is matched by its stem (Porter's stemmer, after the irregular forms: `deploys`,
 * `deployed` and `deploying` are `deploy`, `ran` is `run`), a word with a digit as it is written. Chinese, Japanese
 * and Korean are written without spaces between words: a run of Han characters, kana and Hangul is matched by each
 * pair of neighbouring characters (`北京` in `住在北京`), and a query of one such character by that character.
 */
import { stemmer } from "stemmer"
import { irregularForms } from "./irregularForms.ts"
import { stopWords } from "./stopWords.ts"

/** A word of text as a search reads it. */
export interface Word {
  /** What it is matched by: an English word's stem, another word as written, a CJK character or pair. */
  readonly term: string
  /** The word as written, in lower case with accents folded: what a query's prefix meets. */
  readonly surface: string
  /** Whether it is a stop word, counted only when a query has no other. */
  readonly stop: boolean
  /**
   * A word of letters (which a query's word may meet as a prefix), one with a digit, a CJK character, or a pair of
   * CJK characters (which adds nothing to a text's length: its characters are counted already).
   */
  readonly kind: "letters" | "number" | "character" | "pair"
  /** Whether it was written with a capital first letter, as a name is. */
  readonly capital: boolean
}

/** Stems worked out so far, by word: a value its caller owns, to stem each distinct word of many texts once. */
export type Stems = Map<string, string>

/** Longest word that is stemmed: a longer one is no English word, and is matched as written. */
const stemmedMax = 40

const cjkChar = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const wordChar = /[\p{L}\p{N}\p{M}]/u
const latinLetter = /\p{Script=Latin}/u
const plainWord = /^[a-z]+$/

/** What a code point is to the scan. */
const other = 0
const word = 1
const cjk = 2

const kind = (c: number): number => {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ? word : other
  if ((c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3040 && c <= 0x30ff) || (c >= 0xac00 && c <= 0xd7af)) return cjk
  const char = String.fromCodePoint(c)
  return cjkChar.test(char) ? cjk : wordChar.test(char) ? word : other
}

/** The word `raw` (letters, digits and marks) as a search reads it, or `undefined` for a word of one letter. */
const wordOf = (raw: string, stems: Stems): Word | undefined => {
  let surface = raw.toLowerCase()
  const capital = raw.charCodeAt(0) !== surface.charCodeAt(0)
  let digits = false
  let ascii = true
  for (let i = 0; i < surface.length; i++) {
    const c = surface.charCodeAt(i)
    if (c >= 48 && c <= 57) digits = true
    else if (c >= 128) ascii = false
  }
  if (!ascii && latinLetter.test(surface)) surface = surface.normalize("NFD").replace(/\p{Mn}/gu, "")
  if (surface.length < 2 && !digits) return undefined
  if (digits) return { term: surface, surface, stop: false, kind: "number", capital }
  const stop = stopWords.has(surface)
  if (surface.length > stemmedMax || !plainWord.test(surface))
    return { term: surface, surface, stop, kind: "letters", capital }
  let term = stems.get(surface)
  if (term === undefined) {
    term = stemmer(irregularForms.get(surface) ?? surface)
    stems.set(surface, term)
  }
  return { term, surface, stop, kind: "letters", capital }
}

const character = (char: string): Word => ({
  term: char,
  surface: char,
  stop: false,
  kind: "character",
  capital: false
})
const pair = (chars: string): Word => ({ term: chars, surface: chars, stop: false, kind: "pair", capital: false })

/**
 * Each word of `text`, in order, given to `visit` as it is read (nothing is kept: a text of any length takes no more
 * than its words do one at a time). CJK characters give each pair of neighbours, and with `cjkSingles` "always" each
 * character too (an entry, so that a query of one character meets it), with "alone" only a character with no CJK
 * neighbour (a query: `茶` is looked for, `绿茶` is looked for as its pair).
 */
export const scan = (text: string, stems: Stems, cjkSingles: "always" | "alone", visit: (word: Word) => void): void => {
  const always = cjkSingles === "always"
  let start = -1 // where the current word starts, or -1
  let previous = "" // the CJK character before this one, or ""
  let run = 0 // how many CJK characters the current run has
  for (let i = 0; i <= text.length;) {
    const c = i < text.length ? text.codePointAt(i)! : -1
    const size = c > 0xffff ? 2 : 1
    const k = c < 0 ? other : kind(c)
    if (k !== word && start >= 0) {
      const read = wordOf(text.slice(start, i), stems)
      if (read !== undefined) visit(read)
      start = -1
    }
    if (k !== cjk && run > 0) {
      if (run === 1 && !always) visit(character(previous))
      run = 0
      previous = ""
    }
    if (k === word && start < 0) start = i
    else if (k === cjk) {
      const char = text.slice(i, i + size)
      if (always) visit(character(char))
      if (run > 0) visit(pair(previous + char))
      previous = char
      run++
    }
    i += size
  }
}
