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

/** The pairs of a bracket's inside, or undefined when it is not metadata (every part `key: value`, at least one). */
const pairs = (inside: string): Metadata | undefined => {
  const found: Array<readonly [string, string]> = []
  for (const part of inside.split(";")) {
    if (part.trim() === "") continue
    const colon = part.indexOf(":")
    if (colon < 0) return undefined
    const key = part.slice(0, colon).trim()
    if (!isKey(key)) return undefined
    found.push([key, Text.fold(part.slice(colon + 1))])
  }
  return found.length > 0 ? found : undefined
}

/** Where the metadata bracket that ends `text` at `end` starts, with its pairs; undefined when there is none. */
const trailing = (text: string, end: number): { readonly start: number; readonly meta: Metadata } | undefined => {
  if (text[end - 1] !== "]") return undefined
  let start = end - 2
  while (start >= 0 && text[start] !== "[" && text[start] !== "]") start--
  if (start < 0 || text[start] !== "[") return undefined
  const meta = pairs(text.slice(start + 1, end - 1))
  return meta === undefined ? undefined : { start, meta }
}

/** Whether a bullet (`-` or `*`, then a space or the end) starts at `at`. */
const isBullet = (text: string, at: number, end: number): boolean =>
  (text[at] === "-" || text[at] === "*") && (at + 1 === end || text[at + 1] === " ")

/** Drops every trailing metadata bracket from folded `text`, then every leading bullet (`-` or `*` and a space). */
const strip = (text: string): string => {
  let end = text.length
  for (;;) {
    while (end > 0 && text[end - 1] === " ") end--
    const found = trailing(text, end)
    if (found === undefined) break
    end = found.start
  }
  let start = 0
  while (start < end && isBullet(text, start, end)) start += 2
  return text.slice(Math.min(start, end), end).trim()
}

/** Entry text cleaned: white space folded to single spaces, leading bullets dropped, trailing metadata dropped. */
export const clean = (text: string): string => strip(Text.fold(text))

/**
 * Splits an entry line's body (the line without its bullet) into its cleaned text and the metadata of its last
 * bracket. Earlier trailing brackets are dropped from the text with the cleaning.
 */
export const split = (body: string): { readonly text: string; readonly meta: Metadata } => {
  const folded = Text.fold(body)
  const found = trailing(folded, folded.length)
  return found === undefined
    ? { text: strip(folded), meta: none }
    : { text: strip(folded.slice(0, found.start)), meta: found.meta }
}

/** A metadata value as written: `;`, `[`, `]` and line breaks become spaces, white space folded. */
const value = (text: string): string => Text.fold(text.replace(/[;[\]\r\n\u2028\u2029]/gu, " "))

/**
 * An entry line: `- text [source: x; added: 2026-11-06]`, the text cleaned; no bracket when no pair is left
 * (pairs whose key is not a key, or whose value is empty once cleaned, are left out).
 */
export const format = (text: string, meta: Metadata): string => {
  const written = meta.flatMap(([key, raw]) => {
    const trimmed = key.trim()
    const cleaned = value(raw)
    return isKey(trimmed) && cleaned !== "" ? [`${trimmed}: ${cleaned}`] : []
  })
  const bracket = written.length > 0 ? `[${written.join("; ")}]` : ""
  return ["-", clean(text), bracket].filter((part) => part !== "").join(" ")
}

/** The value of the first pair with `key` (case ignored), if any. */
export const metaValue = (meta: Metadata, key: string): string | undefined => {
  const wanted = key.toLowerCase()
  return meta.find(([k]) => k.toLowerCase() === wanted)?.[1]
}
