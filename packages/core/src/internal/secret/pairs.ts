/**
 * A user name and its password as a pair, "marco / Tr0ub4dor&3-fennel": the password alone is masked, when it reads
 * as one.
 */
import { codes, is, isAscii, isDigit, isLower, isUpper, LEAD, SPACE, TRAIL } from "./chars.ts"
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

/** The password of each "user / password": a "/" with white space on both sides, a word before it, and after it a
 * word that reads as a password. */
const findPairs = (scan: Scan) => {
  const text = scan.text
  for (let at = text.indexOf("/"); at >= 0; at = text.indexOf("/", at + 1)) {
    if (!is(text.charCodeAt(at - 1), SPACE) || !is(text.charCodeAt(at + 1), SPACE)) continue
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
