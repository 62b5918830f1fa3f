/**
 * Text helpers for the CLI's human output: numbers with thousands separators, sizes against limits, columns padded
 * to the width text takes on a terminal (CJK and emoji take two columns), and colour that is only used on a terminal.
 */
import { Text } from "@mneme/core"

/** A whole number with thousands separators: `1,234`. */
export const count = Text.count

/** A size against its limit: `1,234 / 4,000`. */
export const size = (n: number, max: number): string => `${count(n)} / ${count(max)}`

/** `n` and the noun, plural when `n` is not 1: `1 entry`, `2 entries`. */
export const plural = (n: number, one: string, many: string): string => `${count(n)} ${n === 1 ? one : many}`

// ---------------------------------------------------------------------------------------------------------------------
// Display width

/**
 * The code points that take two columns, as sorted ranges: East Asian Wide and Fullwidth (Unicode 15.1, which gives
 * emoji shown as emoji by default that width), and the regional indicators a flag is made of.
 */
const wideRanges: ReadonlyArray<number> = [
  0x1100, 0x115f, 0x231a, 0x231b, 0x2329, 0x232a, 0x23e9, 0x23ec, 0x23f0, 0x23f0, 0x23f3, 0x23f3, 0x25fd, 0x25fe,
  0x2614, 0x2615, 0x2648, 0x2653, 0x267f, 0x267f, 0x2693, 0x2693, 0x26a1, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be,
  0x26c4, 0x26c5, 0x26ce, 0x26ce, 0x26d4, 0x26d4, 0x26ea, 0x26ea, 0x26f2, 0x26f3, 0x26f5, 0x26f5, 0x26fa, 0x26fa,
  0x26fd, 0x26fd, 0x2705, 0x2705, 0x270a, 0x270b, 0x2728, 0x2728, 0x274c, 0x274c, 0x274e, 0x274e, 0x2753, 0x2755,
  0x2757, 0x2757, 0x2795, 0x2797, 0x27b0, 0x27b0, 0x27bf, 0x27bf, 0x2b1b, 0x2b1c, 0x2b50, 0x2b50, 0x2b55, 0x2b55,
  0x2e80, 0x2e99, 0x2e9b, 0x2ef3, 0x2f00, 0x2fd5, 0x2ff0, 0x303e, 0x3041, 0x3096, 0x3099, 0x30ff, 0x3105, 0x312f,
  0x3131, 0x318e, 0x3190, 0x31e3, 0x31ef, 0x321e, 0x3220, 0x3247, 0x3250, 0x4dbf, 0x4e00, 0xa48c, 0xa490, 0xa4c6,
  0xa960, 0xa97c, 0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe10, 0xfe19, 0xfe30, 0xfe52, 0xfe54, 0xfe66, 0xfe68, 0xfe6b,
  0xff01, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x16fe4, 0x16ff0, 0x16ff1, 0x17000, 0x187f7, 0x18800, 0x18cd5, 0x18d00,
  0x18d08, 0x1aff0, 0x1aff3, 0x1aff5, 0x1affb, 0x1affd, 0x1affe, 0x1b000, 0x1b122, 0x1b132, 0x1b132, 0x1b150, 0x1b152,
  0x1b155, 0x1b155, 0x1b164, 0x1b167, 0x1b170, 0x1b2fb, 0x1f004, 0x1f004, 0x1f0cf, 0x1f0cf, 0x1f18e, 0x1f18e, 0x1f191,
  0x1f19a, 0x1f1e6, 0x1f202, 0x1f210, 0x1f23b, 0x1f240, 0x1f248, 0x1f250, 0x1f251, 0x1f260, 0x1f265, 0x1f300, 0x1f320,
  0x1f32d, 0x1f335, 0x1f337, 0x1f37c, 0x1f37e, 0x1f393, 0x1f3a0, 0x1f3ca, 0x1f3cf, 0x1f3d3, 0x1f3e0, 0x1f3f0, 0x1f3f4,
  0x1f3f4, 0x1f3f8, 0x1f43e, 0x1f440, 0x1f440, 0x1f442, 0x1f4fc, 0x1f4ff, 0x1f53d, 0x1f54b, 0x1f54e, 0x1f550, 0x1f567,
  0x1f57a, 0x1f57a, 0x1f595, 0x1f596, 0x1f5a4, 0x1f5a4, 0x1f5fb, 0x1f64f, 0x1f680, 0x1f6c5, 0x1f6cc, 0x1f6cc, 0x1f6d0,
  0x1f6d2, 0x1f6d5, 0x1f6d7, 0x1f6dc, 0x1f6df, 0x1f6eb, 0x1f6ec, 0x1f6f4, 0x1f6fc, 0x1f7e0, 0x1f7eb, 0x1f7f0, 0x1f7f0,
  0x1f90c, 0x1f93a, 0x1f93c, 0x1f945, 0x1f947, 0x1f9ff, 0x1fa70, 0x1fa7c, 0x1fa80, 0x1fa88, 0x1fa90, 0x1fabd, 0x1fabf,
  0x1fac5, 0x1face, 0x1fadb, 0x1fae0, 0x1fae8, 0x1faf0, 0x1faf8, 0x20000, 0x2fffd, 0x30000, 0x3fffd
]

/**
 * The code points that take no column where a character starts: controls, invisible format characters (soft
 * hyphen, zero-width space and joiners, direction marks, word joiner, byte order mark), the combining marks a
 * character can start with when nothing precedes them, Hangul vowel and final jamo, variation selectors and tags.
 */
const zeroRanges: ReadonlyArray<number> = [
  0x0000, 0x001f, 0x007f, 0x009f, 0x00ad, 0x00ad, 0x0300, 0x036f, 0x0483, 0x0489, 0x0591, 0x05bd, 0x0610, 0x061a,
  0x064b, 0x065f, 0x1160, 0x11ff, 0x1ab0, 0x1aff, 0x1dc0, 0x1dff, 0x200b, 0x200f, 0x2028, 0x202e, 0x2060, 0x206f,
  0x20d0, 0x20ff, 0xfe00, 0xfe0f, 0xfe20, 0xfe2f, 0xfeff, 0xfeff, 0xe0000, 0xe0fff
]

/** Whether `code` is in one of the sorted `[from, to, from, to, …]` ranges (a binary search). */
const inRanges = (ranges: ReadonlyArray<number>, code: number): boolean => {
  let low = 0
  let high = ranges.length / 2 - 1
  while (low <= high) {
    const mid = (low + high) >> 1
    if (code < ranges[mid * 2]!) high = mid - 1
    else if (code > ranges[mid * 2 + 1]!) low = mid + 1
    else return true
  }
  return false
}

/** The segmenter into user-perceived characters, made on first use: making one costs a command's start milliseconds. */
let graphemes: Intl.Segmenter | undefined

/** `text` without its ANSI escape sequences (`ESC [ … final`), which take no column. */
const withoutEscapes = (text: string): string => {
  if (!text.includes("\u001b")) return text
  let plain = ""
  let i = 0
  while (i < text.length) {
    if (text[i] === "\u001b" && text[i + 1] === "[") {
      i += 2
      while (i < text.length && !(text.charCodeAt(i) >= 0x40 && text.charCodeAt(i) <= 0x7e)) i++
      i++
    } else {
      plain += text[i]
      i++
    }
  }
  return plain
}

/** The columns one user-perceived character takes: 0, 1, or 2 (wide, or an emoji by its variation selector). */
const graphemeWidth = (grapheme: string): number => {
  const first = grapheme.codePointAt(0) ?? 0
  if (inRanges(zeroRanges, first)) return 0
  return inRanges(wideRanges, first) || grapheme.includes("\ufe0f") ? 2 : 1
}

/**
 * The columns `text` takes on a terminal: East Asian wide and fullwidth characters and emoji take two, combining
 * marks, invisible format characters and colour codes none, everything else one. Linear in the text's length.
 */
export const width = (text: string): number => {
  let ascii = true
  for (let i = 0; i < text.length && ascii; i++) {
    const code = text.charCodeAt(i)
    ascii = code >= 0x20 && code < 0x7f
  }
  if (ascii) return text.length
  let total = 0
  graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" })
  for (const { segment } of graphemes.segment(withoutEscapes(text))) total += graphemeWidth(segment)
  return total
}

/** `text` padded with spaces to `columns` columns. */
export const pad = (text: string, columns: number): string => text + " ".repeat(Math.max(0, columns - width(text)))

/** `text` padded on the left to `columns` columns. */
export const padStart = (text: string, columns: number): string => " ".repeat(Math.max(0, columns - width(text))) + text

/** Rows of cells as aligned columns, by the columns each cell takes (the last column is not padded). */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>, indent = "  "): Array<string> => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, width(cell))))
  return rows.map(
    (row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : pad(cell, widths[i] ?? 0))).join("  ")
  )
}

/** An epoch-milliseconds time as `2026-12-02 14:03:11 UTC`. */
export const time = (epochMillis: number): string =>
  new Date(epochMillis)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC")

/** ANSI styles, or plain text when colour is off. */
export interface Paint {
  readonly bold: (text: string) => string
  readonly dim: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly red: (text: string) => string
}

const plain = (text: string) => text
const sgr = (on: number, off: number) => (text: string) => `\u001b[${on}m${text}\u001b[${off}m`

/** The styles to use: ANSI colour when `colour`, plain text otherwise. */
export const paint = (colour: boolean): Paint =>
  colour
    ? { bold: sgr(1, 22), dim: sgr(2, 22), green: sgr(32, 39), yellow: sgr(33, 39), red: sgr(31, 39) }
    : { bold: plain, dim: plain, green: plain, yellow: plain, red: plain }

/** How many of the first entries, of these sizes, fit within `limit` characters. */
export const entriesWithin = (sizes: ReadonlyArray<number>, limit: number): number => {
  let total = 0
  for (const [i, size] of sizes.entries()) {
    total += size
    if (total > limit) return i
  }
  return sizes.length
}
