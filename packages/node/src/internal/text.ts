/**
 * Text helpers for the CLI's human output: numbers with thousands separators, sizes against limits, padded columns,
 * and colour that is only used on a terminal.
 */
import { Text } from "@mneme/core"

/** A whole number with thousands separators: `1,234`. */
export const count = (n: number): string => n.toLocaleString("en-US")

/** A size against its limit: `1,234 / 4,000`. */
export const size = (n: number, max: number): string => `${count(n)} / ${count(max)}`

/** `n` and the noun, plural when `n` is not 1: `1 entry`, `2 entries`. */
export const plural = (n: number, one: string, many: string): string => `${count(n)} ${n === 1 ? one : many}`

/** `text` padded with spaces to `width` code points. */
export const pad = (text: string, width: number): string => text + " ".repeat(Math.max(0, width - Text.length(text)))

/** `text` padded on the left to `width` code points. */
export const padStart = (text: string, width: number): string =>
  " ".repeat(Math.max(0, width - Text.length(text))) + text

/** Rows of cells as aligned columns (the last column is not padded). */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>, indent = "  "): Array<string> => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, Text.length(cell))))
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
