/**
 * Topic names. A topic is the file `<name>.md` of a scope, so a name must be safe as a file name on every system.
 * "Letters" here are Unicode letters (`旅行`, `café`), with combining marks after the first character so scripts
 * such as Devanagari can be written; digits are decimal digits of any script. Names are NFC-normalised, so one name
 * typed two ways is one file. No name can hold `/`, `\`, `.`, NUL, white space or any other punctuation.
 */
import * as Text from "./Text.ts"

const valid = /^[\p{L}\p{Nd}][\p{L}\p{M}\p{Nd}_-]*$/u

/**
 * A topic name cleaned per SPEC 1: trimmed, `[[…]]` and `.md` dropped, lower case, runs of white space made `-`;
 * then 1–48 letters, digits, `_` or `-` starting with a letter or digit, and not `memory`. Undefined otherwise.
 */
export const clean = (name: string): string | undefined => {
  let text = name.trim()
  if (text.startsWith("[[") && text.endsWith("]]") && text.length >= 4) text = text.slice(2, -2).trim()
  if (text.toLowerCase().endsWith(".md")) text = text.slice(0, -3).trim()
  const cleaned = text.toLowerCase().normalize("NFC").replace(/\s+/gu, "-")
  const size = Text.length(cleaned)
  return size >= 1 && size <= 48 && cleaned !== "memory" && valid.test(cleaned) ? cleaned : undefined
}
