/**
 * Topic names. A topic is the file `<name>.md` of a scope, so a name must be safe as a file name on every system.
 * "Letters" here are Unicode letters (`旅行`, `café`), with combining marks after the first character so scripts
 * such as Devanagari can be written; digits are decimal digits of any script. Names are NFC-normalised, so one name
 * typed two ways is one file. No name can hold `/`, `\`, `.`, NUL, white space or any other punctuation, be a Windows
 * device name, or look secret.
 */
import { remembered } from "./internal/remembered.ts"
import * as Secret from "./Secret.ts"
import * as Text from "./Text.ts"

const valid = /^[\p{L}\p{Nd}][\p{L}\p{M}\p{Nd}_-]*$/u

/** Windows device names, which no file of that name (whatever its extension) can have there. */
const DEVICES: ReadonlySet<string> = new Set([
  "con",
  "prn",
  "aux",
  "nul",
  ..."123456789¹²³".split("").flatMap((digit) => [`com${digit}`, `lpt${digit}`])
])

/** Whether `name` is a Windows device name (`con`, `prn`, `aux`, `nul`, `com1`–`com9`, `lpt1`–`lpt9`), case ignored,
 * with any extension: a file or folder of that name cannot be opened on Windows. */
export const isDeviceName = (name: string): boolean => {
  const dot = name.indexOf(".")
  return DEVICES.has((dot < 0 ? name : name.slice(0, dot)).toLowerCase())
}

/** `text` lower case and NFC-normalised, its runs of white space made `-`. */
const fold = (text: string): string =>
  folded.test(text) ? text : text.toLowerCase().normalize("NFC").replace(/\s+/gu, "-")

/** A name that folds to itself: lower-case ASCII letters, digits, `_` and `-` (most names a memory links). */
const folded = /^[a-z0-9_-]*$/

/** Whether a name looks secret as given, once folded, or read with its `-` and `_` as spaces ("password-is-hunter2"). */
const looksSecret = (name: string): boolean => {
  const folded = fold(name)
  const spaced = folded.replace(/[-_]+/gu, " ")
  // A name already folded (as every name a memory's index links is) is read once as given, not twice.
  return (
    Secret.looksSecret(name) ||
    (folded !== name && Secret.looksSecret(folded)) ||
    (spaced !== folded && Secret.looksSecret(spaced))
  )
}

/**
 * A topic name cleaned per docs/spec.md 1: trimmed, `[[…]]` and `.md` dropped, lower case, runs of white space made `-`;
 * then 1–48 letters, digits, `_` or `-` starting with a letter or digit, and not `memory`, a device name or anything
 * that looks secret. Undefined otherwise.
 */
export const clean = (name: string): string | undefined => {
  let text = name.trim()
  if (text.startsWith("[[") && text.endsWith("]]") && text.length >= 4) text = text.slice(2, -2).trim()
  if (text.toLowerCase().endsWith(".md")) text = text.slice(0, -3).trim()
  const cleaned = fold(text)
  const size = Text.length(cleaned)
  if (size < 1 || size > 48 || cleaned === "memory" || !valid.test(cleaned) || isDeviceName(cleaned)) return undefined
  return looksSecret(text) ? undefined : cleaned
}

/** Cleans topic names as `clean` does, remembering the names it has cleaned (at most `limit`, all forgotten when full). */
export type Cleaner = (name: string) => string | undefined

/**
 * A `clean` that remembers its answers: for a reader that parses the same index often (cleaning a name checks it for
 * secrets three ways). The memory is the cleaner's own, held by whoever makes it (a store service for its life, a
 * benchmark for its runs); the core keeps none.
 */
export const cleaner = (limit = 4_096): Cleaner => remembered(clean, limit)

/** A name as a message may show it: its secrets masked, and the whole name masked when it looks secret as a name. */
export const shown = (name: string): string => {
  const redacted = Secret.redact(name)
  return looksSecret(redacted) ? Secret.mask : redacted
}
