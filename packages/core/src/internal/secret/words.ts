/**
 * The words of a text, as the English rules read it: cut at white space, CJK punctuation, ":" and "=" (those two are
 * words of their own), without the punctuation around them, each known by its id in the vocabulary. A scan cuts its
 * text once, when a rule first asks (`wordsOf`); each rule then looks at a bounded window of words around a keyword.
 */
import { BREAK, is, LEAD, quoted, SEPARATOR, SPACE, TRAIL } from "./chars.ts"
import { type Scan, type Span, lowerOf, type Words } from "./scan.ts"
import { fits, type Kind, MEASURE, idAt, VOCABULARY } from "./vocabulary.ts"

/** Whether a word ends between `before` and `after`, as between the strings of JSON text: a closing quote then ",",
 * "}" or "]" (`password","x"`), or "," then an opening quote. */
const endsJsonString = (before: number, after: number): boolean =>
  (before === 34 && (after === 44 || after === 125 || after === 93)) || (before === 44 && after === 34)

/** The words of `text`, `lower` its lower case, in four typed arrays over one buffer made per call, with room for
 * every word the text can hold: one allocation, where arrays grown as words are met took several. */
export const words = (text: string, lower: string): Words => {
  const n = text.length
  const buffer = new ArrayBuffer(n * 11)
  const start = new Int32Array(buffer, 0, n)
  const end = new Int32Array(buffer, n * 4, n)
  const ids = new Uint16Array(buffer, n * 8, n)
  const stop = new Uint8Array(buffer, n * 10, n)
  let count = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (is(c, SPACE | BREAK)) {
      if (is(c, BREAK) && count > 0) stop[count - 1] = 1
      i++
      continue
    }
    let s = i++
    if (!is(c, SEPARATOR)) {
      while (i < text.length && !is(text.charCodeAt(i), SPACE | BREAK | SEPARATOR)) {
        if (endsJsonString(text.charCodeAt(i - 1), text.charCodeAt(i))) break
        i++
      }
    }
    let e = i
    if (!is(c, SEPARATOR)) {
      while (s < e && is(text.charCodeAt(s), LEAD)) s++
      while (e > s && is(text.charCodeAt(e - 1), TRAIL)) e--
    }
    if (s === e) {
      if (count > 0) stop[count - 1] = 1
      continue
    }
    start[count] = s
    end[count] = e
    stop[count] = e < i ? 1 : 0
    ids[count++] = e - s > 40 ? 0 : idAt(lower, s, e) // no word a rule knows is longer
  }
  return { count, start, end, stop, ids }
}

/** The scan's words, cut when first asked for. */
export const wordsOf = (scan: Scan): Words => (scan.words ??= words(scan.text, lowerOf(scan)))

/** The lower-case text of word `k` ("" past either end). */
export const wordAt = (ws: Words, k: number): string => (k >= 0 && k < ws.count ? VOCABULARY[ws.ids[k]!]! : "")

/** The value word `k` gives: the words inside its quotes, or the word itself. */
export const valueOf = (text: string, ws: Words, k: number, kind: Kind, how: "linked" | "direct"): Span | undefined => {
  if (k >= ws.count) return undefined
  const inner = quoted(text, ws.start[k]! - 1) // an opening quote just before the word
  if (inner !== undefined) return fits(text.slice(inner[0], inner[1]), kind, "quoted") ? inner : undefined
  const value = text.slice(ws.start[k], ws.end[k]).toLowerCase()
  if (MEASURE.has(wordAt(ws, k + 1))) return undefined
  return fits(value, kind, how) ? [ws.start[k]!, ws.end[k]!] : undefined
}
