/**
 * URLs: a run of printable ASCII with a scheme ("https://"), starting "www.", or a host name and a path
 * ("docs.google.com/document/d/…"). Long runs and numbers inside one are not secrets (`within` tells the run rules);
 * a password in its user part is (the rule `urlPasswords`).
 */
import { is, isAscii, isLower, isSlackChar, isUpper, LEAD } from "./chars.ts"
import { AT, mask, note, type Rule, type Scan, type Span, type Urls } from "./scan.ts"

export const isUrl = (text: string, from: number, to: number): boolean => {
  let s = from
  while (s < to && is(text.charCodeAt(s), LEAD)) s++
  if ((text.charCodeAt(s) | 32) === 119 && (text.charCodeAt(s + 1) | 32) === 119) {
    if ((text.charCodeAt(s + 2) | 32) === 119 && text.charCodeAt(s + 3) === 46) return true // "www."
  }
  if (scheme(text, s, to) >= 0) return true
  if (indexWithin(text, "/", s, to) < 0) return false // a host, then "/"
  let k = s
  let dot = -1
  for (; k < to; k++) {
    const c = text.charCodeAt(k)
    if (c === 46) dot = k
    else if (!isSlackChar(c)) break
  }
  if (dot < 0 || text.charCodeAt(k) !== 47 || k - dot < 3) return false // a host, then "/"
  for (let t = dot + 1; t < k; t++) if (!isUpper(text.charCodeAt(t)) && !isLower(text.charCodeAt(t))) return false
  return true
}

/** Where `needle` first lies wholly in `[from, to)`, or -1: a search that reads nothing past `to`, so the runs of a
 * text are searched in time linear in the text. */
const indexWithin = (text: string, needle: string, from: number, to: number): number => {
  const first = needle.charCodeAt(0)
  for (let k = from; k + needle.length <= to; k++) {
    if (text.charCodeAt(k) === first && text.startsWith(needle, k)) return k
  }
  return -1
}

/** The index just past "://" in `[from, to)`, or -1. */
const scheme = (text: string, from: number, to: number): number => {
  const k = indexWithin(text, "://", from, to)
  return k >= 0 ? k + 3 : -1
}

const NOT_PRINTABLE = /[^\x21-\x7e]/

/** The end of the run of printable ASCII starting at `from` (a long run is walked by the regex engine, on a slice of
 * the text, which shares its characters). */
const asciiRunEnd = (text: string, from: number): number => {
  const limit = Math.min(text.length, from + 64)
  let i = from
  while (i < limit && isAscii(text.charCodeAt(i))) i++
  if (i < limit || i === text.length) return i
  const end = text.slice(i).search(NOT_PRINTABLE)
  return end < 0 ? text.length : i + end
}

const urlsOf = (text: string): Urls => {
  const ranges: Array<Span> = []
  let i = 0 // every run of printable ASCII starting before `i` has been looked at
  const reach = (position: number) => {
    while (i < text.length && i <= position) {
      if (!isAscii(text.charCodeAt(i))) {
        i++
        continue
      }
      const from = i
      i = asciiRunEnd(text, from)
      if (isUrl(text, from, i)) ranges.push([from, i])
    }
  }
  return { ranges, reach }
}

/** The scan's URLs, made when first asked for. */
const urlsIn = (scan: Scan): Urls => (scan.urls ??= urlsOf(scan.text))

/** Whether a position lies in a URL; ask in increasing positions. */
export const within = (scan: Scan) => {
  let k = 0
  return (position: number): boolean => {
    const urls = urlsIn(scan)
    urls.reach(position)
    while (k < urls.ranges.length && urls.ranges[k]![1] <= position) k++
    return k < urls.ranges.length && urls.ranges[k]![0] <= position
  }
}

/** The password of each `scheme://user:password@host`. */
const findUrlPasswords = (scan: Scan) => {
  const text = scan.text
  const urls = urlsIn(scan)
  urls.reach(text.length)
  for (const [from, to] of urls.ranges) {
    const host = scheme(text, from, to)
    if (host < 0) continue
    let colon = -1
    let at = -1
    for (let k = host; k < to; k++) {
      const c = text.charCodeAt(k)
      if (c === 47 || c === 63 || c === 35) break // the authority ends at "/", "?" or "#"
      if (c === 58 && colon < 0) colon = k
      else if (c === 64) at = k
    }
    if (colon >= 0 && at > colon + 1 && text.slice(colon + 1, at) !== mask && note(scan, [colon + 1, at])) return
  }
}

/** The rule of passwords in URLs. */
export const urlPasswords: Rule = { name: "URL passwords", trigger: AT, scan: findUrlPasswords }
