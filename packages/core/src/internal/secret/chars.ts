/**
 * The characters secret detection reads by: classes of ASCII units as plain tests, and the classes of every BMP unit
 * (white space, punctuation around a word, breaks, separators) as one read-only table, built once, one read a unit.
 * Also the small text helpers every rule shares: quotes, lower case with every index kept, digits counted.
 */

/** A table of numbers by index that nothing can write to (a typed array filled once, when it is built). */
export interface Table {
  readonly [index: number]: number
}

/** The UTF-16 units of `chars`, each a single unit. */
export const unitsOf = (chars: string): Array<number> => Array.from(chars, (ch) => ch.charCodeAt(0))

/** The set of the units of `chars`. */
export const codes = (chars: string): ReadonlySet<number> => new Set(unitsOf(chars))

export const isDigit = (c: number) => c >= 48 && c <= 57
export const isUpper = (c: number) => c >= 65 && c <= 90
export const isLower = (c: number) => c >= 97 && c <= 122

/** The classes of the ASCII units a key is made of, as bit flags of `KEY_CLASSES`: one read a unit, where the
 * range tests of each class took several (the scans of runs and keys ask at every unit). */
const ALNUM = 1 // [A-Za-z0-9]
const UNDERSCORE = 2
const HYPHEN = 4
const UPPER_OR_DIGIT = 8 // [A-Z0-9]
const keyClasses = (): Table => {
  const table = new Uint8Array(128)
  for (let c = 0; c < 128; c++) {
    table[c] =
      (isDigit(c) || isUpper(c) || isLower(c) ? ALNUM : 0) |
      (c === 95 ? UNDERSCORE : 0) |
      (c === 45 ? HYPHEN : 0) |
      (isUpper(c) || isDigit(c) ? UPPER_OR_DIGIT : 0)
  }
  return table
}
const KEY_CLASSES: Table = keyClasses()
/** Whether the unit `c` (NaN past a text's end) has one of the key class `flags`. */
const keyClass = (c: number, flags: number): boolean => ((KEY_CLASSES[c] ?? 0) & flags) !== 0

export const isAlnum = (c: number) => keyClass(c, ALNUM)
export const isKeyChar = (c: number) => keyClass(c, ALNUM | UNDERSCORE | HYPHEN) // [A-Za-z0-9_-]
export const isWordChar = (c: number) => keyClass(c, ALNUM | UNDERSCORE) // [A-Za-z0-9_]
export const isUpperOrDigit = (c: number) => keyClass(c, UPPER_OR_DIGIT)
export const isSlackChar = (c: number) => keyClass(c, ALNUM | HYPHEN)
export const isAscii = (c: number) => c > 32 && c < 127 // printable, not a space
export const isLabelChar = (c: number) => isUpper(c) || c === 32 // "RSA PRIVATE KEY"

/** Character classes of the BMP, as bit flags of `CLASSES`. */
export const SPACE = 1
export const LEAD = 2 // punctuation before a word or value that is not part of it
export const TRAIL = 4 // punctuation after a word or value that is not part of it
export const BREAK = 8 // CJK punctuation and dashes that end a word
export const SEPARATOR = 16 // ":", "=", "：" — words of their own
export const JSON_AFTER = 32 // what follows where JSON text ends a string: ",", "}", "]" after a quote, a quote after ","

/** The units of white space (`SPACE`). */
export const SPACES: ReadonlyArray<number> = [
  9, 10, 11, 12, 13, 32, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a
]

/** The class flags of every BMP unit. */
const classes = (): Table => {
  const table = new Uint8Array(0x10000)
  const mark = (flag: number, units: ReadonlyArray<number>) => units.forEach((c) => (table[c]! |= flag))
  mark(SPACE, SPACES)
  mark(LEAD, unitsOf("([{<\"'`“‘«「『（#*"))
  mark(TRAIL, unitsOf(".,;:!?)]}>\"'`”’»」』）*"))
  mark(BREAK, unitsOf("，。；！？、—–"))
  mark(SEPARATOR, unitsOf(":=："))
  mark(JSON_AFTER, unitsOf(',}]"'))
  return table
}

const CLASSES: Table = classes()

/** The class flags of the unit `c` (0 for NaN, past a text's end). */
export const classOf = (c: number): number => CLASSES[c] ?? 0

/** Whether the unit `c` (NaN past a text's end) has one of the class `flag`s. */
export const is = (c: number, flag: number): boolean => (classOf(c) & flag) !== 0

/** Opening quote → closing quote. */
export const QUOTES: ReadonlyMap<number, number> = new Map(
  ['""', "''", "``", "“”", "‘’", "「」", "『』", "«»"].map((pair) => [pair.charCodeAt(0), pair.charCodeAt(1)])
)

export const digitsIn = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) if (isDigit(text.charCodeAt(i))) count++
  return count
}

/** `text` in lower case with every index kept. Full lowering keeps the length (and so every index) except where a
 * character grows (U+0130 İ); then A–Z alone are lowered. */
export const lowerCase = (text: string): string => {
  const lower = text.toLowerCase()
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (run) => run.toLowerCase())
}

/** A quoted value starting at `at` (the opening quote), closed within 100 units: the span inside the quotes. */
export const quoted = (text: string, at: number): readonly [number, number] | undefined => {
  const close = QUOTES.get(text.charCodeAt(at))
  if (close === undefined) return undefined
  const limit = Math.min(text.length, at + 101)
  for (let k = at + 1; k < limit; k++) if (text.charCodeAt(k) === close) return k > at + 1 ? [at + 1, k] : undefined
  return undefined
}
