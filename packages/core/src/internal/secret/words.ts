/**
 * The words of a text, as the English rules read it: cut at white space, CJK punctuation, ":" and "=" (those two are
 * words of their own), without the punctuation around them, each known by its id in the vocabulary. A scan cuts its
 * text once, as far as the rules ask (`wordsOf`); each rule then looks at a bounded window of words around a keyword.
 */
import { BREAK, classOf, is, JSON_AFTER, LEAD, quoted, SEPARATOR, SPACE, TRAIL } from "./chars.ts"
import { type Scan, type Span, lowerOf, type Words } from "./scan.ts"
import { fits, IN_MEASURE, idAt, type Kind, SETS, VOCABULARY } from "./vocabulary.ts"

/** Whether a word ends between `before` and `after`, as between the strings of JSON text: a closing quote then ",",
 * "}" or "]" (`password","x"`), or "," then an opening quote. */
const endsJsonString = (before: number, after: number): boolean =>
  (before === 34 && (after === 44 || after === 125 || after === 93)) || (before === 44 && after === 34)

/** Room for this many words at first: typed arrays this small are made among other objects, at little cost. */
const FIRST_ROOM = 16

/** The words of a text, none cut yet: small arrays first, which most texts fill no further. */
const uncut = (): Words => ({
  count: 0,
  next: 0,
  start: new Int32Array(FIRST_ROOM),
  end: new Int32Array(FIRST_ROOM),
  ids: new Uint16Array(FIRST_ROOM),
  stop: new Uint8Array(FIRST_ROOM)
})

/** `to` with the units of `from` at its start. */
const moved = <A extends Int32Array | Uint16Array | Uint8Array>(from: A, to: A): A => {
  to.set(from)
  return to
}

/** Past the small arrays: a new value over one buffer with room for four times as many words (at least 256, at most
 * one a unit of the text): few growths, and a long text with fewer words than units holds no buffer the size of the
 * text, whose pages cost more to get than the words to cut. The arrays of a `Words` are never replaced: compiled code
 * that reads them keeps what it knows of them. */
const grown = (ws: Words, n: number): Words => {
  const room = Math.min(n, Math.max(256, ws.start.length * 4))
  const buffer = new ArrayBuffer(room * 11)
  return {
    count: ws.count,
    next: ws.next,
    start: moved(ws.start, new Int32Array(buffer, 0, room)),
    end: moved(ws.end, new Int32Array(buffer, room * 4, room)),
    ids: moved(ws.ids, new Uint16Array(buffer, room * 8, room)),
    stop: moved(ws.stop, new Uint8Array(buffer, room * 10, room))
  }
}

/**
 * Cuts the words of `text` (`lower` its lower case) into `cut` until word `k` is cut and the one after it, or the text
 * ends: then every word up to `k` is known with what follows it (a break after a word is seen when the next is cut).
 * Gives the words: `cut`, or a value with larger arrays when they were full.
 */
const cutTo = (text: string, lower: string, cut: Words, k: number): Words => {
  let ws = cut
  let { start, end, ids, stop } = ws
  let count = ws.count
  let i = ws.next
  while (i < text.length && count <= k + 1) {
    const c = text.charCodeAt(i)
    if (is(c, SPACE | BREAK)) {
      if (is(c, BREAK) && count > 0) stop[count - 1] = 1
      i++
      continue
    }
    let s = i++
    if (!is(c, SEPARATOR)) {
      // Each unit of a word read once, its class once: this loop runs over most units of a text.
      for (let before = c; i < text.length; i++) {
        const unit = text.charCodeAt(i)
        const flags = classOf(unit)
        if ((flags & (SPACE | BREAK | SEPARATOR)) !== 0) break
        if ((flags & JSON_AFTER) !== 0 && endsJsonString(before, unit)) break
        before = unit
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
    if (count === start.length) {
      ws = grown(ws, text.length)
      start = ws.start
      end = ws.end
      ids = ws.ids
      stop = ws.stop
    }
    start[count] = s
    end[count] = e
    stop[count] = e < i ? 1 : 0
    ids[count++] = e - s > 40 ? 0 : idAt(lower, s, e) // no word a rule knows is longer
  }
  ws.count = count
  ws.next = i
  return ws
}

/** The words of `text`, `lower` its lower case, every one cut. */
export const words = (text: string, lower: string): Words => cutTo(text, lower, uncut(), text.length)

/** The scan's words, cut as far as word `k` and the one after it (or the text's end); every one without `k`. */
export const wordsOf = (scan: Scan, k: number = scan.text.length): Words =>
  (scan.words = cutTo(scan.text, lowerOf(scan), scan.words ?? uncut(), k))

/** The lower-case text of word `k` ("" past either end). */
export const wordAt = (ws: Words, k: number): string => (k >= 0 && k < ws.count ? VOCABULARY[ws.ids[k]!]! : "")

/** The sets word `k` is in, as the bits of `SETS` (none past either end). */
export const setsAt = (ws: Words, k: number): number => (k >= 0 && k < ws.count ? SETS[ws.ids[k]!]! : 0)

/** Whether word `k` is in one of the sets `bits` names (`IN_LINK | IN_OF`, …; none past either end). */
export const isIn = (ws: Words, k: number, bits: number): boolean => (setsAt(ws, k) & bits) !== 0

/** The value word `k` gives: the words inside its quotes, or the word itself. */
export const valueOf = (text: string, ws: Words, k: number, kind: Kind, how: "linked" | "direct"): Span | undefined => {
  if (k >= ws.count) return undefined
  const inner = quoted(text, ws.start[k]! - 1) // an opening quote just before the word
  if (inner !== undefined) return fits(text.slice(inner[0], inner[1]), kind, "quoted") ? inner : undefined
  const value = text.slice(ws.start[k], ws.end[k]).toLowerCase()
  if (isIn(ws, k + 1, IN_MEASURE)) return undefined
  return fits(value, kind, how) ? [ws.start[k]!, ws.end[k]!] : undefined
}
