/**
 * Text measured and cut in Unicode code points, never UTF-16 units: no cut here leaves half a surrogate pair.
 */

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/**
 * A count written the one way people read it everywhere in mneme, as `Intl.NumberFormat("en-US")` writes it: `4,000`.
 * A whole number (what mneme counts) is grouped by hand; any other (a fraction, a negative number, one past 2^53) is
 * written by an `Intl` format made for it: making one loads the locale's data, which a short command should not pay
 * for, and such a number is rare (a figure in a report), so none is kept.
 */
export const count = (value: number): string => {
  if (!Number.isSafeInteger(value) || value < 0 || Object.is(value, -0)) {
    return new Intl.NumberFormat("en-US").format(value)
  }
  const digits = String(value)
  const groups: Array<string> = []
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end))
  return groups.join(",")
}

/** Any UTF-16 surrogate, paired or not. */
const surrogate = /[\ud800-\udfff]/

/** The number of code points in `text`. */
export const length = (text: string): number => {
  // Text without surrogates (most text) has one code point a unit; the search for one runs in the engine's own code.
  if (!surrogate.test(text)) return text.length
  let count = 0
  for (let i = 0; i < text.length; i++) {
    if (isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) i++
    count++
  }
  return count
}

/** The UTF-16 index at which code point number `count` starts (or `text.length` past the end). */
const indexOf = (text: string, count: number): number => {
  let i = 0
  for (let seen = 0; seen < count && i < text.length; seen++) {
    i += isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1)) ? 2 : 1
  }
  return i
}

/** The first `count` code points of `text`. */
export const take = (text: string, count: number): string => (count <= 0 ? "" : text.slice(0, indexOf(text, count)))

/** The last `count` code points of `text`. */
export const takeLast = (text: string, count: number): string => {
  if (count <= 0) return ""
  const total = length(text)
  return count >= total ? text : text.slice(indexOf(text, total - count))
}

/** Whether text holds white space other than single spaces (`\s` is exactly these characters). */
const unfolded = /[\t-\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]| {2}/

/** `text` with every run of white space folded to one space, trimmed. Most text has nothing to fold: one quick test. */
export const fold = (text: string): string =>
  unfolded.test(text) ? text.replace(/\s{2,}|[^\S ]/gu, " ").trim() : text.trim()

/** The key two texts are compared by when looking for the same fact: white space folded, case ignored. */
export const sameKey = (text: string): string => fold(text).toLowerCase()

/** `text` with every lone surrogate replaced by U+FFFD, so what is written is valid UTF-8. */
export const wellFormed = (text: string): string => text.toWellFormed()
