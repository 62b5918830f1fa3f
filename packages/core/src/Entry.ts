/**
 * Entry text: cleaning it, and splitting and formatting the `[key: value; ...]` metadata at the end of an entry line.
 * The metadata bracket is found by a hand-written scan from the end of the text, so hostile input (unclosed
 * brackets, long runs of spaces) costs time linear in its length.
 */
import * as Text from "./Text.ts"

/** Metadata pairs, in order of appearance. */
export type Metadata = ReadonlyArray<readonly [key: string, value: string]>

const none: Metadata = []

/** A key: a letter, then letters, digits, `_` or `-`. */
const isKey = (key: string): boolean => /^\p{L}[\p{L}\p{N}_-]*$/u.test(key)

const space = 32
const closingBracket = 93

/** Whether `text[from, to)` is a key: ASCII read by hand, anything else by the pattern. */
const isKeyAt = (text: string, from: number, to: number): boolean => {
  if (from >= to) return false
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c >= 128) return isKey(text.slice(from, to))
    const letter = ((c | 0x20) - 97) >>> 0 < 26
    if (!letter && (i === from || !((c >= 48 && c <= 57) || c === 95 || c === 45))) return false
  }
  return true
}

/**
 * The part `text[from, to)` of a bracket of folded text (white space is single spaces) whose first `:` is at `colon`
 * (-1 when it has none): 0 when it is blank, 1 when it is a pair (pushed to `into` when given), -1 when it is neither.
 * The value is trimmed of its spaces by hand, so a pair costs two strings and no more.
 */
const readPart = (
  text: string,
  from: number,
  to: number,
  colon: number,
  into: Array<readonly [string, string]> | undefined
): number => {
  let key = from
  while (key < to && text.charCodeAt(key) === space) key++
  if (key === to) return 0
  if (colon < 0) return -1
  let keyEnd = colon
  while (keyEnd > key && text.charCodeAt(keyEnd - 1) === space) keyEnd--
  if (!isKeyAt(text, key, keyEnd)) return -1
  if (into !== undefined) {
    let value = colon + 1
    let valueEnd = to
    while (value < valueEnd && text.charCodeAt(value) === space) value++
    while (valueEnd > value && text.charCodeAt(valueEnd - 1) === space) valueEnd--
    into.push([text.slice(key, keyEnd), text.slice(value, valueEnd)])
  }
  return 1
}

/**
 * Where the metadata bracket that ends folded `text` at `end` starts, or -1 when there is none (every `;`-separated
 * part blank or `key: value`, at least one pair); its pairs are put in `into` when given (and some may be when there
 * is none). The bracket is read once, from its end, and nothing is allocated unless pairs are wanted.
 */
const trailing = (text: string, end: number, into?: Array<readonly [string, string]>): number => {
  if (text.charCodeAt(end - 1) !== 93) return -1 // "]"
  let pairs = 0
  let partEnd = end - 1
  let colon = -1 // the first ":" of the part read so far
  for (let at = end - 2; at >= 0; at--) {
    const c = text.charCodeAt(at)
    if (c === 58)
      colon = at // ":"
    else if (c === 93)
      return -1 // "]"
    else if (c === 59 || c === 91) {
      // ";" or "[": the part after it is read
      const read = readPart(text, at + 1, partEnd, colon, into)
      if (read < 0) return -1
      pairs += read
      if (c === 91) {
        into?.reverse()
        return pairs > 0 ? at : -1
      }
      partEnd = at
      colon = -1
    }
  }
  return -1
}

/** Whether a bullet (`-` or `*`, then a space or the end) starts at `at`. */
const isBullet = (text: string, at: number, end: number): boolean => {
  const c = text.charCodeAt(at)
  return (c === 45 || c === 42) && (at + 1 === end || text.charCodeAt(at + 1) === space)
}

/**
 * `text[0, end)` of folded text without every trailing metadata bracket, then without every leading bullet (`-` or
 * `*` and a space), trimmed.
 */
const strip = (text: string, end: number): string => {
  for (;;) {
    while (end > 0 && text.charCodeAt(end - 1) === space) end--
    const start = trailing(text, end)
    if (start < 0) break
    end = start
  }
  let start = 0
  while (start < end && isBullet(text, start, end)) start += 2
  return text.slice(Math.min(start, end), end).trim()
}

/** Entry text cleaned: white space folded to single spaces, leading bullets dropped, trailing metadata dropped. */
export const clean = (text: string): string => {
  const folded = Text.fold(text)
  return strip(folded, folded.length)
}

/**
 * Splits an entry line's body (the line without its bullet) into its cleaned text and the metadata of its last
 * bracket. Earlier trailing brackets are dropped from the text with the cleaning.
 */
export const split = (body: string): { readonly text: string; readonly meta: Metadata } => {
  const folded = Text.fold(body)
  // Only text that ends in "]" can end in metadata: the rest needs no list of pairs.
  if (folded.charCodeAt(folded.length - 1) !== closingBracket) return { text: strip(folded, folded.length), meta: none }
  const meta: Array<readonly [string, string]> = []
  const start = trailing(folded, folded.length, meta)
  return start < 0 ? { text: strip(folded, folded.length), meta: none } : { text: strip(folded, start), meta }
}

/** A metadata value as written: `;`, `[`, `]` and line breaks become spaces, white space folded. */
const value = (text: string): string => Text.fold(text.replace(/[;[\]\r\n\u2028\u2029]/gu, " "))

/**
 * An entry line: `- text [source: x; added: 2026-11-06]`, the text cleaned; no bracket when no pair is left
 * (pairs whose key is not a key, or whose value is empty once cleaned, are left out).
 */
export const format = (text: string, meta: Metadata): string => {
  let line = "-"
  const cleaned = clean(text)
  if (cleaned !== "") line += " " + cleaned
  let pairs = 0
  for (const [key, raw] of meta) {
    const trimmed = key.trim()
    const written = value(raw)
    if (isKey(trimmed) && written !== "") line += `${pairs++ === 0 ? " [" : "; "}${trimmed}: ${written}`
  }
  return pairs > 0 ? line + "]" : line
}

/** The value of the first pair with `key` (case ignored), if any. */
export const metaValue = (meta: Metadata, key: string): string | undefined => {
  const wanted = key.toLowerCase()
  return meta.find(([k]) => k.toLowerCase() === wanted)?.[1]
}
