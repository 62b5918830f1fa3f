/**
 * The text secret detection reads: the text as a person sees it. Each character is folded on its own to its NFKC
 * form (full-width and other compatibility forms become what they look like: `９` is `9`, `ｐ` is `p`) and invisible
 * format characters (`\p{Cf}`: U+200B, U+00AD, U+2060, U+FEFF…) are left out. Folding character by character
 * gives what NFKC of the whole text gives for everything detection looks at: a composition across characters never
 * makes an ASCII letter or digit, nor a character of a Chinese keyword. The CJK punctuation that ends a word
 * (`，。；！？、`) is kept as it is, so a Chinese clause still ends there.
 *
 * Each unit of the view knows the code point of the original text it came from, so a span found in the view maps back
 * to whole code points of the original. A text in plain ASCII is its own view, with nothing built.
 */

/** A text as detection reads it. */
export interface View {
  readonly text: string
  /** For each unit of `text`, where its code point starts in the original; undefined when `text` is the original. */
  readonly origin: Int32Array | undefined
}

/** CJK punctuation the scanners read as the end of a word or clause, kept as it is. */
const KEPT: ReadonlySet<number> = new Set(Array.from("，。；！？、", (ch) => ch.charCodeAt(0)))

const FORMAT = /^\p{Cf}$/u

/** What a code point reads as, or undefined when it reads as itself. */
const computeFold = (codePoint: number): string | undefined => {
  const ch = String.fromCodePoint(codePoint)
  if (KEPT.has(codePoint)) return undefined
  if (FORMAT.test(ch)) return ""
  const folded = ch.normalize("NFKC")
  return folded === ch ? undefined : folded
}

/** Whether a code point past ASCII reads as itself without asking Unicode: the CJK ideographs (of the main block and
 * extension A), the Hangul syllables and the surrogates (a lone one reads as itself), the Latin-1 letters, dashes and
 * curly quotes, and the line and paragraph separators — most text past ASCII. */
export const plainCodePoint = (codePoint: number): boolean =>
  (codePoint >= 0x4e00 && codePoint <= 0x9fff) ||
  (codePoint >= 0x3400 && codePoint <= 0x4dbf) ||
  (codePoint >= 0xac00 && codePoint <= 0xdfff) || // Hangul syllables, then the surrogates
  (codePoint >= 0xc0 && codePoint <= 0xff) ||
  (codePoint >= 0x2012 && codePoint <= 0x2016) || // dashes (not U+2017, a compatibility form)
  (codePoint >= 0x2018 && codePoint <= 0x2023) || // quotes, daggers, bullets
  codePoint === 0x2028 ||
  codePoint === 0x2029

/** The first and last full-width ASCII characters (`！` to `～`), each reading as its ASCII character 0xfee0 below. */
const FULL_WIDTH_FIRST = 0xff01
const FULL_WIDTH_LAST = 0xff5e

/** The ASCII unit a full-width ASCII character reads as (`９` is `9`), or -1 for any other code point and for the
 * CJK punctuation `KEPT` as it is. */
const fullWidthAscii = (codePoint: number): number =>
  codePoint >= FULL_WIDTH_FIRST && codePoint <= FULL_WIDTH_LAST && !KEPT.has(codePoint) ? codePoint - 0xfee0 : -1

/** Whether a code point is an invisible format character that reads as nothing (U+00AD, U+200B–U+200F,
 * U+2060–U+2064, U+FEFF). */
const invisible = (codePoint: number): boolean =>
  codePoint === 0xad ||
  codePoint === 0xfeff ||
  (codePoint >= 0x200b && codePoint <= 0x200f) ||
  (codePoint >= 0x2060 && codePoint <= 0x2064)

/** What a code point of the forms most often met folds to, known without asking Unicode (undefined for any other):
 * a full-width ASCII character, or an invisible format character. */
export const quickFold = (codePoint: number): string | undefined => {
  const ascii = fullWidthAscii(codePoint)
  if (ascii >= 0) return String.fromCharCode(ascii)
  return invisible(codePoint) ? "" : undefined
}

/** What the code points of one text read as, each asked of Unicode once: `null` for one that reads as itself. Made
 * per text, as the text is read. */
type Folds = Map<number, string | null>

/** What Unicode says a code point past the quick forms reads as (undefined: itself), asked once per text. */
const unicodeFold = (codePoint: number, folds: Folds): string | undefined => {
  const known = folds.get(codePoint)
  if (known !== undefined) return known ?? undefined
  const folded = computeFold(codePoint)
  folds.set(codePoint, folded ?? null)
  return folded
}

/** What a code point reads as, or undefined when it reads as itself (ASCII always does). */
const foldOf = (codePoint: number, folds: Folds): string | undefined => {
  if (codePoint < 0x80 || plainCodePoint(codePoint)) return undefined
  return quickFold(codePoint) ?? unicodeFold(codePoint, folds)
}

const NON_ASCII = /[^\0-\x7f]/

/** The index of the first code point of `text` that does not read as itself, or -1. */
const firstFold = (text: string, folds: Folds): number => {
  const nonAscii = text.search(NON_ASCII) // plain ASCII reads as itself, found by the regex engine at its speed
  if (nonAscii < 0) return -1
  for (let i = nonAscii; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) continue
    const codePoint = text.codePointAt(i)!
    if (foldOf(codePoint, folds) !== undefined) return i
    if (codePoint > 0xffff) i++
  }
  return -1
}

/** Units a string is made from at a time by `fromUnits`: few enough to pass as arguments. */
const unitsPerString = 8_192

/** The string of the first `size` units of `units`, made a few thousand at a time. */
const fromUnits = (units: Uint16Array, size: number): string => {
  const pieces: Array<string> = []
  for (let at = 0; at < size; at += unitsPerString) {
    pieces.push(String.fromCharCode.apply(null, units.subarray(at, Math.min(size, at + unitsPerString)) as never))
  }
  return pieces.join("")
}

/** The view's units and their origins, copied into buffers with room for at least `count` more (doubling). */
const grown = (
  units: Uint16Array<ArrayBuffer>,
  origin: Int32Array<ArrayBuffer>,
  size: number,
  count: number
): readonly [Uint16Array<ArrayBuffer>, Int32Array<ArrayBuffer>] => {
  const length = Math.max(units.length * 2, size + count)
  const grownUnits = new Uint16Array(length)
  grownUnits.set(units.subarray(0, size))
  const grownOrigin = new Int32Array(length)
  grownOrigin.set(origin.subarray(0, size))
  return [grownUnits, grownOrigin]
}

/**
 * `text` as detection reads it. The view is written unit by unit into one buffer, each with its origin: a text that
 * folds at every character (full-width digits between invisible marks) makes no string or array entry per character,
 * which made its time grow faster than its size. A code point that reads as itself (ASCII, and most text past it:
 * Chinese) is copied after the range tests of `plainCodePoint`, before any fold is tried.
 */
export const of = (text: string): View => {
  const folds: Folds = new Map()
  const first = firstFold(text, folds)
  if (first < 0) return { text, origin: undefined }
  let units = new Uint16Array(text.length + 16)
  let origin = new Int32Array(text.length + 16)
  let size = 0
  for (let j = 0; j < first; j++) {
    const unit = text.charCodeAt(j)
    units[size] = unit
    // The second unit of a surrogate pair comes from where the pair starts.
    const low = unit >= 0xdc00 && unit <= 0xdfff && j > 0 && (text.charCodeAt(j - 1) & 0xfc00) === 0xd800
    origin[size++] = low ? j - 1 : j
  }
  let i = first
  while (i < text.length) {
    const codePoint = text.codePointAt(i)!
    const length = codePoint > 0xffff ? 2 : 1
    let from = text
    let at = i
    let count = length
    if (codePoint >= 0x80 && !plainCodePoint(codePoint)) {
      // The quick folds written as units, without a string each: a text may fold at every character.
      const ascii = fullWidthAscii(codePoint)
      if (ascii >= 0) {
        if (size === units.length) [units, origin] = grown(units, origin, size, 1)
        units[size] = ascii
        origin[size++] = i++
        continue
      }
      if (invisible(codePoint)) {
        i++
        continue
      }
      const folded = unicodeFold(codePoint, folds)
      if (folded !== undefined) {
        from = folded
        at = 0
        count = folded.length
      }
    }
    // A fold can be longer than what it folds (`㎖` is `ml`): then the buffers grow.
    if (size + count > units.length) [units, origin] = grown(units, origin, size, count)
    for (let k = 0; k < count; k++) {
      units[size] = from.charCodeAt(at + k)
      origin[size++] = i
    }
    i += length
  }
  return { text: fromUnits(units, size), origin: origin.subarray(0, size) }
}

/** The span of the original text that the view's units `[start, end)` came from: whole code points. */
export const original = (view: View, text: string, start: number, end: number): readonly [number, number] => {
  if (view.origin === undefined) return [start, end]
  const last = view.origin[end - 1]!
  return [view.origin[start]!, last + (text.codePointAt(last)! > 0xffff ? 2 : 1)]
}
