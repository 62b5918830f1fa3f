/**
 * A user name and its password as a pair, "marco / Tr0ub4dor&3-fennel": the password alone is masked, when it reads
 * as one.
 */
import { codes, is, isAscii, isDigit, isLower, isUpper, LEAD, SPACE, SPACES, TRAIL } from "./chars.ts"
import { note, type Rule, type Scan, SLASH } from "./scan.ts"

/** Symbols a password holds and a word of prose seldom does. */
const PASSWORD_SYMBOL = codes("!#$%&*+=?@^~")

/** The most units a word of a pair may have. */
const PAIR_WORD = 64

/**
 * Whether `[from, to)` reads as a password: 8 to 64 printable ASCII units, no "/", holding a letter, a digit, and a
 * symbol of `PASSWORD_SYMBOL` or a digit between letters with both cases ("Tr0ub4dor").
 */
export const passwordShaped = (text: string, from: number, to: number): boolean => {
  if (to - from < 8 || to - from > PAIR_WORD) return false
  let upper = false
  let lower = false
  let digit = false
  let symbol = false
  let inner = false // a digit between letters
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k)
    if (!isAscii(c) || c === 47) return false
    if (isUpper(c)) upper = true
    else if (isLower(c)) lower = true
    else if (isDigit(c)) {
      digit = true
      const before = text.charCodeAt(k - 1)
      const after = text.charCodeAt(k + 1)
      if (k > from && k + 1 < to && (isUpper(before) || isLower(before)) && (isUpper(after) || isLower(after))) {
        inner = true
      }
    } else if (PASSWORD_SYMBOL.has(c)) symbol = true
  }
  return (upper || lower) && digit && (symbol || (upper && lower && inner))
}

/** White space, as a regex character class. */
const SPACE_CLASS = `[${SPACES.map((c) => `\\u${c.toString(16).padStart(4, "0")}`).join("")}]`
/** A "/" between white space. */
const SPACED_SLASH = new RegExp(`${SPACE_CLASS}/${SPACE_CLASS}`)
/** How many "/" in a row without white space around them before the rest of a text is left to `SPACED_SLASH`. */
const DENSE = 8

/**
 * The first "/" at `from` or later with white space on both sides, or -1. Each "/" is found by `indexOf`, which
 * passes a text with few of them at once; after `DENSE` in a row with no white space around them (a run of URLs holds
 * one every few units), the regex engine passes the rest, on a slice of the text, which shares its characters.
 */
const spacedSlash = (text: string, from: number): number => {
  let unspaced = 0
  for (let at = text.indexOf("/", from); at >= 0; at = text.indexOf("/", at + 1)) {
    if (is(text.charCodeAt(at - 1), SPACE) && is(text.charCodeAt(at + 1), SPACE)) return at
    if (++unspaced === DENSE) {
      // A "/" past this one has its white space before it at `at + 1` or later.
      const found = text.slice(at + 1).search(SPACED_SLASH)
      return found < 0 ? -1 : at + 2 + found
    }
  }
  return -1
}

/** The password of each "user / password": a "/" with white space on both sides, a word before it, and after it a
 * word that reads as a password. */
const findPairs = (scan: Scan) => {
  const text = scan.text
  for (let at = spacedSlash(text, 0); at >= 0; at = spacedSlash(text, at + 1)) {
    let user = at - 1
    while (user > at - 4 && is(text.charCodeAt(user), SPACE)) user--
    if (user < 0 || !isAscii(text.charCodeAt(user))) continue // no word before the "/"
    let from = at + 1
    while (from < at + 4 && is(text.charCodeAt(from), SPACE)) from++
    let to = from
    while (to < text.length && to - from <= PAIR_WORD && isAscii(text.charCodeAt(to))) to++
    if (isAscii(text.charCodeAt(to))) continue // a word too long for a password
    while (from < to && is(text.charCodeAt(from), LEAD)) from++
    while (to > from && is(text.charCodeAt(to - 1), TRAIL)) to--
    if (passwordShaped(text, from, to) && note(scan, [from, to])) return
  }
}

/** The rule of user and password pairs. */
export const pairs: Rule = { name: "user and password pairs", trigger: SLASH, scan: findPairs }
