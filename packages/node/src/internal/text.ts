/**
 * Text helpers for the CLI's human output: numbers with thousands separators, sizes against limits, columns padded
 * to the width text takes on a terminal (CJK and emoji take two columns), and colour that is only used on a terminal.
 */
import { Text } from "@mneme/core"
import { CliOutput } from "effect/cli"

/** A whole number with thousands separators: `1,234`. */
export const count = Text.count

/** A size against its limit: `1,234 / 4,000`. */
export const size = (n: number, max: number): string => `${count(n)} / ${count(max)}`

/** `n` and the noun, plural when `n` is not 1: `1 entry`, `2 entries`. */
export const plural = (n: number, one: string, many: string): string => `${count(n)} ${n === 1 ? one : many}`

// ---------------------------------------------------------------------------------------------------------------------
// Display width

/**
 * The columns `text` takes on a terminal, as effect's own CLI measures them (`CliOutput.displayWidth`): East Asian
 * wide and fullwidth characters and emoji take two, combining marks, invisible format characters and colour codes
 * none, everything else one. Printable ASCII, most of what is measured, is counted without splitting it.
 */
export const width = (text: string): number => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code >= 0x7f) return CliOutput.displayWidth(text)
  }
  return text.length
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
