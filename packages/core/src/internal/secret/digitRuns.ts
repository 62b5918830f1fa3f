/**
 * Numbers of 15 or more digits outside a URL (card and account numbers), read through single spaces between digits
 * and hyphens between groups of three or more digits.
 */
import { isDigit } from "./chars.ts"
import { DIGITS, note, type Rule, type Scan } from "./scan.ts"
import { within } from "./urls.ts"

const findDigitRuns = (scan: Scan) => {
  const text = scan.text
  const inUrl = within(scan)
  let i = 0
  while (i < text.length) {
    if (!isDigit(text.charCodeAt(i))) {
      i++
      continue
    }
    const start = i
    let count = 0
    let group = 0
    let early = scan.first // whether to stop once the number is long enough, without walking to its end
    for (;;) {
      const from = i
      while (isDigit(text.charCodeAt(i))) i++
      count += i - from
      group += i - from
      const c = text.charCodeAt(i)
      const spaced = c === 32 && isDigit(text.charCodeAt(i + 1))
      const hyphened =
        c === 45 &&
        group >= 3 &&
        isDigit(text.charCodeAt(i + 1)) &&
        isDigit(text.charCodeAt(i + 2)) &&
        isDigit(text.charCodeAt(i + 3))
      if (!spaced && !hyphened) break
      if (early && count >= 15) {
        if (!inUrl(start)) return void note(scan, [start, i])
        early = false
      }
      i++
      group = 0
    }
    if (count >= 15 && !inUrl(start) && note(scan, [start, i])) return
  }
}

/** The rule of long numbers. */
export const digitRuns: Rule = { name: "digit runs", trigger: DIGITS, scan: findDigitRuns }
