/**
 * Known key formats, on each run of [A-Za-z0-9_-] (a "piece"): a prefix, then enough characters of its kind; JWTs
 * (`eyJ….eyJ….signature`); and PEM private keys, from their BEGIN line to their END line.
 */
import { isAlnum, isDigit, isKeyChar, isLabelChar, isSlackChar, isUpperOrDigit, isWordChar } from "./chars.ts"
import { note, PEM, type Rule, RUNS, type Scan } from "./scan.ts"

export interface Format {
  readonly prefix: string
  readonly body: (c: number) => boolean
  readonly min: number
  readonly max?: number
  readonly digit?: boolean
}

const FORMATS: ReadonlyArray<Format> = [
  { prefix: "sk-", body: isKeyChar, min: 20, digit: true }, // OpenAI and alike, sk-proj-…
  ...["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].map((prefix) => ({ prefix, body: isAlnum, min: 30 })), // GitHub
  { prefix: "github_pat_", body: isWordChar, min: 22 },
  { prefix: "AKIA", body: isUpperOrDigit, min: 16, max: 16 }, // AWS access key ids
  { prefix: "ASIA", body: isUpperOrDigit, min: 16, max: 16 },
  ...["xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"].map((prefix) => ({ prefix, body: isSlackChar, min: 10 })), // Slack
  { prefix: "AIza", body: isKeyChar, min: 35 }, // Google API keys
  ...["sk_live_", "rk_live_", "pk_live_", "sk_test_", "rk_test_"].map((prefix) => ({ prefix, body: isAlnum, min: 10 })),
  { prefix: "hf_", body: isAlnum, min: 30 } // Hugging Face
]

/** The formats by the first unit of their prefix. */
export const BY_FIRST: ReadonlyMap<number, ReadonlyArray<Format>> = Map.groupBy(FORMATS, (format) =>
  format.prefix.charCodeAt(0)
)
const NO_FORMATS: ReadonlyArray<Format> = []

/** The end of a known key starting the piece `[start, end)`, or `start`. */
const knownKey = (text: string, start: number, end: number): number => {
  for (const format of BY_FIRST.get(text.charCodeAt(start)) ?? NO_FORMATS) {
    if (!text.startsWith(format.prefix, start)) continue
    let k = start + format.prefix.length
    let digits = 0
    while (k < end && format.body(text.charCodeAt(k))) if (isDigit(text.charCodeAt(k++))) digits++
    const size = k - start - format.prefix.length
    if (size >= format.min && size <= (format.max ?? Infinity) && (format.digit !== true || digits > 0)) return k
  }
  return start
}

/** Known keys and JWTs (`eyJ….eyJ….signature`). */
const findKeys = (scan: Scan) => {
  const text = scan.text
  const n = text.length
  let header = -1 // start of the piece before, when it can open a JWT
  let headerDot = -2 // the "." that ends it
  let i = 0
  while (i < n) {
    if (!isKeyChar(text.charCodeAt(i))) {
      i++
      continue
    }
    const start = i
    while (i < n && isKeyChar(text.charCodeAt(i))) i++
    const key = knownKey(text, start, i)
    if (key > start && note(scan, [start, key])) return
    const part = i - start >= 10 && text.startsWith("eyJ", start) && text.charCodeAt(i) === 46
    if (part && headerDot === start - 1) {
      let signature = i + 1
      while (signature < n && isKeyChar(text.charCodeAt(signature))) signature++
      if (note(scan, [header, signature])) return
    }
    header = part ? start : -1
    headerDot = part ? i : -2
  }
}

/** The end of a PEM label ("RSA PRIVATE KEY") starting at `at`, at most 40 units on. */
const labelEnd = (text: string, at: number): number => {
  let k = at
  while (k < text.length && k - at < 40 && isLabelChar(text.charCodeAt(k))) k++
  return k
}

/** PEM private keys, from `-----BEGIN … PRIVATE KEY-----` to its END line (or the end of the text). */
const findPem = (scan: Scan) => {
  const text = scan.text
  let from = 0
  for (;;) {
    const begin = text.indexOf("-----BEGIN ", from)
    if (begin < 0) return
    const label = begin + 11
    const k = labelEnd(text, label)
    if (!text.startsWith("-----", k) || !text.slice(label, k).includes("PRIVATE KEY")) {
      from = label
      continue
    }
    const close = text.indexOf("-----END ", k)
    if (close < 0) return void note(scan, [begin, text.length])
    let end = labelEnd(text, close + 9)
    if (text.startsWith("-----", end)) end += 5
    if (note(scan, [begin, end])) return
    from = end
  }
}

/** The rule of known keys and JWTs. */
export const keys: Rule = { name: "known keys", trigger: RUNS, scan: findKeys }

/** The rule of PEM private keys. */
export const pem: Rule = { name: "PEM private keys", trigger: PEM, scan: findPem }
