/**
 * Runs of 32 or more letters and digits outside a URL, mixing upper case, lower case and digits: a token of some kind
 * whatever its format.
 */
import { isAlnum, isDigit, isLower, isUpper } from "./chars.ts"
import { MIXED, note, type Rule, type Scan } from "./scan.ts"
import { within } from "./urls.ts"

const findMixedRuns = (scan: Scan) => {
  const text = scan.text
  const inUrl = within(scan)
  let i = 0
  while (i < text.length) {
    if (!isAlnum(text.charCodeAt(i))) {
      i++
      continue
    }
    const start = i
    let upper = false
    let lower = false
    let digit = false
    let early = scan.first // whether to stop once the run is long enough, without walking to its end
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (isUpper(c)) upper = true
      else if (isLower(c)) lower = true
      else if (isDigit(c)) digit = true
      else break
      if (early && upper && lower && digit && i + 1 - start >= 32) {
        if (!inUrl(start)) return void note(scan, [start, i + 1])
        early = false
      }
    }
    if (i - start >= 32 && upper && lower && digit && !inUrl(start) && note(scan, [start, i])) return
  }
}

/** The rule of long runs of letters and digits. */
export const mixedRuns: Rule = { name: "runs of letters and digits", trigger: MIXED, scan: findMixedRuns }
