/**
 * ID numbers under their label: "SSN 123-45-6789", "passport number: X1234567", "tax ID is 12 345 678 901". A label is
 * one word ("ssn", "passport") or two ("social security", "driver's license", "tax id"); the number after it holds 5
 * or more digits and is not a date.
 */
import { isAlnum, isDigit } from "./chars.ts"
import { note, type Scan, type Span, type WordRule, type Words } from "./scan.ts"
import { IN_ID_LABEL, IN_ID_OF, IN_ID_WORD, IN_LINK } from "./vocabulary.ts"
import { isIn, wordAt } from "./words.ts"

/** A date, year first or last: 2026-11-06, 06/11/2026, 6.11.26. */
export const DATE = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$/

/** An ID number starting at `at`: letters, digits, inner "-", "/", "." and spaces between digits, 5+ digits, not a
 * date; at most 40 units. */
export const idNumber = (text: string, at: number): Span | undefined => {
  const limit = Math.min(text.length, at + 40)
  let digits = 0
  let end = at
  for (let k = at; k < limit; k++) {
    const c = text.charCodeAt(k)
    const next = text.charCodeAt(k + 1)
    if (isAlnum(c)) {
      if (isDigit(c)) digits++
      end = k + 1
    } else if (!((c === 45 || c === 47 || c === 46) && isAlnum(next))) {
      if (!(c === 32 && isDigit(text.charCodeAt(k - 1)) && isDigit(next))) break
    }
  }
  const value = text.slice(at, end)
  return digits >= 5 && !DATE.test(value) ? [at, end] : undefined
}

/** Whether the word at `i` ends the label of an ID number. */
const isIdLabel = (ws: Words, i: number): boolean => {
  const before = wordAt(ws, i - 1)
  switch (wordAt(ws, i)) {
    case "ssn":
    case "itin":
    case "passport":
    case "passports":
      return true
    case "security":
      return before === "social"
    case "insurance":
      return before === "national"
    case "id":
      return isIn(ws, i - 1, IN_ID_OF) || isIn(ws, i + 1, IN_ID_WORD)
    case "number":
      return before === "tax" || before === "taxpayer"
    case "license":
    case "licence":
      return before === "driver" || before === "driving"
    default:
      return false
  }
}

/** Notes the ID number after the word at `i`, when it ends an ID label; true when the scan is done. */
const idNumberAt = (scan: Scan, ws: Words, i: number): boolean => {
  if (!isIn(ws, i, IN_ID_LABEL) || !isIdLabel(ws, i)) return false // a word that can end a label, read first
  const w = (k: number) => wordAt(ws, k)
  let v = i + 1
  if (isIn(ws, v, IN_ID_WORD)) v++
  if (isIn(ws, v, IN_LINK)) v++
  if (w(v) === ":") v++
  const id = v < ws.count ? idNumber(scan.text, ws.start[v]!) : undefined
  return id !== undefined && note(scan, id)
}

/** The rule of ID numbers under their label, word by word. */
export const idLabels: WordRule = { name: "ID labels", at: idNumberAt }
