/**
 * The forms of a text the instruction check reads: the text plain (compatibility-folded, invisible marks dropped,
 * lower case, each white space a space), unmasked (look-alikes and leetspeak read as Latin letters), unspaced,
 * squeezed (letters and digits only, look-alike letters and digits read as the
 * Latin letters they mimic), and what its encoded runs (Base64, hexadecimal, percent escapes, HTML entities and
 * `\u` escapes) decode to. Each form is made in one pass over the text.
 */

/** Marks that show nothing: zero-width characters, the soft hyphen, direction controls, the byte order mark. */
const invisible =
  /[\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\u034f|\u17b4|\u17b5/gu

/** Quotes and dashes of print, as their ASCII forms. */
const printed: Readonly<Record<string, string>> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u2013": "-"
}

/** The text as the rules read it, but for white space: each white space character a space. */
const spread = (text: string): string =>
  text
    .normalize("NFKC")
    .replace(invisible, "")
    .toLowerCase()
    .replace(/[\u2018\u2019\u201c\u201d\u2013]/gu, (c) => printed[c] ?? c)
    .replace(/[^\S\n]/gu, " ")

/** The text as the rules read it: NFKC, no invisible marks, lower case, curly quotes straight, white space folded. */
export const plain = (text: string): string => spread(text).replace(/ {2,}/gu, " ")

/** Letters and digits that stand for Latin letters: leetspeak digits, and Cyrillic and Greek look-alikes. */
const lookAlike: Readonly<Record<string, string>> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "@": "a",
  $: "s",
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  і: "i",
  ѕ: "s",
  ј: "j",
  һ: "h",
  ԁ: "d",
  ο: "o",
  α: "a",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ρ: "p",
  τ: "t",
  υ: "u"
}

const isAsciiLetter = (unit: number) => unit >= 97 && unit <= 122

/** Whether the UTF-16 unit is a CJK ideograph, kana or Hangul syllable (kept in the squeezed form). */
const isCjk = (unit: number) =>
  (unit >= 0x3040 && unit <= 0x30ff) || (unit >= 0x4e00 && unit <= 0x9fff) || (unit >= 0xac00 && unit <= 0xd7a3)

/** The plain text with look-alike letters and leetspeak digits read as the Latin letters they mimic. */
export const unmasked = (plainText: string): string =>
  plainText.replace(/[0134579@$\u0370-\u03ff\u0400-\u052f]/gu, (c) => lookAlike[c] ?? c)

/** The plain text's letters only, look-alikes read as Latin letters: what spacing, dots and leetspeak hide. */
export const squeeze = (plainText: string): string => {
  const kept: Array<string> = []
  for (let i = 0; i < plainText.length; i++) {
    const char = plainText[i]!
    const unit = plainText.charCodeAt(i)
    if (isAsciiLetter(unit) || isCjk(unit)) kept.push(char)
    else {
      const latin = lookAlike[char]
      if (latin !== undefined) kept.push(latin)
    }
  }
  return kept.join("")
}

/**
 * The text, read plain, with letters spaced apart joined again (`a l w a y s  a n s w e r` → `always answer`), when most
 * of its words are single characters; `undefined` when they are not.
 */
export const unspaced = (text: string): string | undefined => {
  const spaced = spread(text)
  const words = spaced.split(" ")
  let single = 0
  for (const word of words) if (Array.from(word).length === 1) single++
  if (single * 3 < words.length * 2) return undefined
  return spaced.replace(/(\S) (?=\S)/gu, "$1").replace(/ {2,}/gu, " ")
}

/** The text with each Latin letter turned 13 places (ROT13 undone). */
export const rot13 = (text: string): string =>
  text.replace(/[a-z]/gu, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97))

/** The text read backwards, code point by code point. */
export const reversed = (text: string): string => Array.from(text).reverse().join("")

const utf8 = new TextDecoder("utf-8")

const base64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const base64Value: ReadonlyMap<string, number> = new Map(Array.from(base64Digits, (c, i) => [c, i] as const))

/** The bytes a Base64 run (no padding needed) stands for. */
const fromBase64 = (run: string): Uint8Array => {
  const bytes: Array<number> = []
  let bits = 0
  let count = 0
  for (const char of run) {
    const value = base64Value.get(char === "-" ? "+" : char === "_" ? "/" : char)
    if (value === undefined) break
    bits = ((bits << 6) | value) & 0xffffff
    count += 6
    if (count >= 8) {
      count -= 8
      bytes.push((bits >> count) & 0xff)
    }
  }
  return Uint8Array.from(bytes)
}

/** The bytes a run of hexadecimal digit pairs stands for. */
const fromHex = (run: string): Uint8Array => {
  const bytes = new Uint8Array(run.length >> 1)
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/** Whether decoded bytes read as text: at least nine in ten are printable ASCII or bytes of UTF-8 letters. */
const readable = (bytes: Uint8Array): boolean => {
  let printable = 0
  for (const byte of bytes) if ((byte >= 32 && byte < 127) || byte >= 0x80 || byte === 10) printable++
  return bytes.length > 0 && printable * 10 >= bytes.length * 9
}

/** A code point from its digits, or U+FFFD where there is none such. */
const codePoint = (digits: string, radix: number): string => {
  const value = parseInt(digits, radix)
  return value <= 0x10ffff && (value < 0xd800 || value > 0xdfff) ? String.fromCodePoint(value) : "\ufffd"
}

/**
 * What the text's encoded runs decode to, joined by new lines (empty when it holds none): each Base64 or hexadecimal
 * run that reads as text, and the text with its percent escapes, HTML entities and `\u` escapes decoded. Its patterns
 * are global, so each call makes its own: none keeps where an earlier call stopped.
 */
export const decoded = (text: string): string => {
  const base64Run = /[A-Za-z0-9+/_-]{16,}={0,2}/gu
  const hexRun = /\b(?:[0-9a-fA-F]{2}){8,}\b/gu
  const percentRun = /(?:%[0-9a-fA-F]{2})+/gu
  const entity = /&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/gu
  const escape = /\\u\{?([0-9a-fA-F]{4,6})\}?|\\x([0-9a-fA-F]{2})/gu
  const parts: Array<string> = []
  for (const [run] of text.matchAll(base64Run)) {
    const bytes = fromBase64(run.replace(/=+$/u, ""))
    if (readable(bytes)) parts.push(utf8.decode(bytes))
  }
  for (const [run] of text.matchAll(hexRun)) {
    const bytes = fromHex(run)
    if (readable(bytes)) parts.push(utf8.decode(bytes))
  }
  const unescaped = text
    .replace(percentRun, (run) => utf8.decode(fromHex(run.replace(/%/gu, ""))))
    .replace(entity, (_, hex: string | undefined, dec: string | undefined) =>
      hex === undefined ? codePoint(dec ?? "", 10) : codePoint(hex, 16)
    )
    .replace(escape, (_, wide: string | undefined, byte: string | undefined) => codePoint(wide ?? byte ?? "", 16))
  if (unescaped !== text) parts.push(unescaped)
  return parts.join("\n")
}
