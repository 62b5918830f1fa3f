/**
 * One scan of a text for secrets, and the shape of a rule. A scan is a value made per call of `Secret.spans` or
 * `Secret.looksSecret`: the text as detection reads it, the findings so far, and what the rules read of the text
 * (its lower case, its URLs, its words), each made when a rule first asks for it and shared by the rules of that scan
 * alone. A rule is a value: the triggers that say it can find something (one cheap pass notes them, `triggers.ts`),
 * and its scanner, which notes each finding on the scan.
 */
import { lowerCase } from "./chars.ts"

/** A secret found in a text: `[start, end)` in UTF-16 units, never inside a surrogate pair. */
export type Span = readonly [start: number, end: number]

/** What a redacted secret reads as. */
export const mask = "[secret]"

/** The URLs of a text, found only as far as they are asked for. */
export interface Urls {
  /** The URLs found so far, in order. */
  readonly ranges: Array<Span>
  /** Finds every URL starting at or before `position`. */
  readonly reach: (position: number) => void
}

/** The words of a text as parallel arrays (a text of 1M characters may hold 500k words), the first `count` of each
 * used: those cut so far (`words.ts` cuts them as far as a rule asks, into a new value with larger arrays when these
 * are full), every word once `next` is past the text. */
export interface Words {
  count: number
  /** Where cutting goes on in the text. */
  next: number
  readonly start: Int32Array
  readonly end: Int32Array
  /** 1 where punctuation follows the word. */
  readonly stop: Uint8Array
  /** Each word's index in the vocabulary (0 for a word no rule looks for). */
  readonly ids: Uint16Array
}

/** One scan of a text (as detection reads it): the findings so far, and whether the first one is enough. */
export interface Scan {
  readonly text: string
  readonly found: Array<Span>
  readonly first: boolean
  lower: string | undefined
  urls: Urls | undefined
  words: Words | undefined
}

/** A scan of `text`, nothing found yet; with `first`, the first finding is enough. */
export const make = (text: string, first: boolean): Scan => ({
  text,
  found: [],
  first,
  lower: undefined,
  urls: undefined,
  words: undefined
})

/** Notes a finding; true when the scan is done (the first finding is enough). */
export const note = (scan: Scan, span: Span): boolean => {
  scan.found.push(span)
  return scan.first
}

/** The scan's text in lower case, every index kept. */
export const lowerOf = (scan: Scan): string => (scan.lower ??= lowerCase(scan.text))

/** What can start a rule's findings, as bit flags (`triggers.ts` notes them in one pass over the text). */
export const RUNS = 1 // a run of [A-Za-z0-9_-] long enough for a known key or a JWT, starting as one does
export const MIXED = 2 // 32+ letters and digits in a row, mixing upper case, lower case and digits
export const DIGITS = 4 // 15 or more digits
export const WORDS = 8 // a keyword of the word rules
export const AT = 16 // an "@", which a URL with a password holds
export const CHINESE_WORD = 32 // a unit of a Chinese keyword
export const PEM = 64 // "-----BEGIN "
export const NON_ASCII = 128 // a unit past ASCII: the text may not read as itself
export const SLASH = 256 // a "/", which a user and password pair holds

/** A rule of secret detection: the triggers it needs (any of them), and its scanner. */
export interface Rule {
  readonly name: string
  readonly trigger: number
  readonly scan: (scan: Scan) => void
}

/** A rule of the English words: what the word at `i` of the scan's words gives, noted on the scan; true when the
 * scan is done. The word rules run together, word by word, over words cut once (`wordRules.ts`). */
export interface WordRule {
  readonly name: string
  readonly at: (scan: Scan, ws: Words, i: number) => boolean
}
