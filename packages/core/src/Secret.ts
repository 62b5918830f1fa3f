/**
 * Secret detection and redaction (docs/spec.md 2). One scanner finds the spans of keys, tokens, passwords, PINs and ID
 * numbers; `looksSecret` asks whether there is any, `redact` masks each with `[secret]`. Every pass is linear in the
 * text: hand-written scans with bounded look-around, and only regexes without nested or ambiguous repetition.
 *
 * The scanners read the text as a person sees it (`internal/secretView.ts`: compatibility forms folded, invisible
 * format characters left out), and what they find is mapped back to whole code points of the original. One cheap
 * pass first notes what could start a finding (a run long enough for a key, enough digits, a keyword, an "@"), and
 * only the scanners that can find something run; `looksSecret` stops at the first finding.
 *
 * A password is found with its value, never from its name alone ("the Wi-Fi password is on the fridge" gives none).
 * After its name, the value is the word a link gives ("the password is X", "set the PIN to X", "password - X"), unless
 * it reads as talk about the password ("is reset", "is on …", "was changed"), or what follows a colon later in its
 * sentence when it holds digits ("the DB password for staging if you want to check: X"). Before its name, the value is
 * what a verb of using or choosing names: "uses X as the root password", "picked X for the router password",
 * "我用X当密码". There X may be any word, even an ordinary one ("picked swordfish as the password"), but not one that
 * reads as a description: a vague word alone ("it", "这个"), words opening with a determiner or an owner ("the same
 * password", "his birthday", "a new one"; quoted words are a value all the same), words naming a secret themselves
 * ("root password") or "… as well"; and the password's name must not name something else ("uses Bitwarden as the
 * password manager"), while any other word may follow it ("… as my password lately"). In Chinese, X reaches back to
 * 用 within its clause, through ASCII punctuation inside or ending an ASCII value (我用S3cure!pass当密码). A user and
 * password pair ("marco / Tr0ub4dor&3-fennel") gives the second word when it reads as a password.
 *
 * Each subject is a rule of its own (`internal/secret/`): key formats and PEM keys, runs of letters and digits, digit
 * runs, passwords in English, ID labels, passwords in Chinese, URLs and user and password pairs. This module runs
 * them over a scan made per call, and holds nothing between calls.
 */
import { remembered } from "./internal/remembered.ts"
import { chinese } from "./internal/secret/chinese.ts"
import { digitRuns } from "./internal/secret/digitRuns.ts"
import { keys, pem } from "./internal/secret/keys.ts"
import { mixedRuns } from "./internal/secret/mixedRuns.ts"
import { pairs } from "./internal/secret/pairs.ts"
import * as Scan from "./internal/secret/scan.ts"
import { triggers } from "./internal/secret/triggers.ts"
import { urlPasswords } from "./internal/secret/urls.ts"
import { wordRules } from "./internal/secret/wordRules.ts"
import * as View from "./internal/secretView.ts"

/** A secret found in a text: `[start, end)` in UTF-16 units, never inside a surrogate pair. */
export type Span = Scan.Span

/** What a redacted secret reads as. */
export const mask = Scan.mask

/** The rules, likeliest first. */
const rules: ReadonlyArray<Scan.Rule> = [mixedRuns, wordRules, keys, digitRuns, chinese, urlPasswords, pairs, pem]

/** The secret spans of `text` as detection reads it (`view`), in no particular order, possibly overlapping; with
 * `first`, only as many as it takes to know there is one. */
const findings = (text: string, first: boolean): { readonly view: View.View; readonly found: ReadonlyArray<Span> } => {
  let flags = triggers(text, first)
  let view: View.View = { text, origin: undefined }
  if ((flags & Scan.NON_ASCII) !== 0) {
    view = View.of(text)
    if (view.text !== text) flags = triggers(view.text, first)
  }
  const scan = Scan.make(view.text, first)
  for (const rule of rules) {
    if ((flags & rule.trigger) === 0) continue
    rule.scan(scan)
    if (first && scan.found.length > 0) break
  }
  return { view, found: scan.found }
}

/** Whether spans are already in order of their starts, as one rule finds them: no copy to sort. */
const inOrder = (found: ReadonlyArray<Span>): boolean => {
  for (let i = 1; i < found.length; i++) if (found[i]![0] < found[i - 1]![0]) return false
  return true
}

/** Spans sorted and disjoint: touching or overlapping ones merged, empty ones left out. Sorted, not marked in an array
 * the text's length: a long text with few findings would pay for the whole array. */
const merged = (found: ReadonlyArray<Span>): Array<Span> => {
  const sorted = inOrder(found) ? found : found.toSorted((a, b) => a[0] - b[0])
  const out: Array<Span> = []
  let start = -1
  let end = -1
  for (const [from, to] of sorted) {
    if (from >= to) continue
    if (from <= end) {
      if (to > end) end = to
      continue
    }
    if (end > start) out.push([start, end])
    start = from
    end = to
  }
  if (end > start) out.push([start, end])
  return out
}

/** The secrets in `text`: sorted, disjoint spans (findings that touch or overlap as the text is read merged), each
 * of whole code points. */
export const spans = (text: string): ReadonlyArray<Span> => {
  const { view, found } = findings(text, false)
  if (found.length === 0) return []
  if (view.origin === undefined) return merged(found) // the text reads as itself: its spans are the view's
  const out: Array<Span> = []
  for (const [from, to] of merged(found)) {
    const [start, end] = View.original(view, text, from, to)
    const last = out.at(-1)
    // Two findings inside one character that folds to several ("⑴" reads as "(1)") are one span of it.
    if (last !== undefined && start <= last[1]) out[out.length - 1] = [last[0], Math.max(last[1], end)]
    else out.push([start, end])
  }
  return out
}

/** Whether `text` holds a key, token, password, PIN or ID number; `extra` is the host's own test, if any. */
export const looksSecret = (text: string, extra?: ((text: string) => boolean) | undefined): boolean =>
  findings(text, true).found.length > 0 || extra?.(text) === true

/** `text` with each secret replaced by `[secret]`, scanned now: what `redact` does, for a text masked once (a
 * transcript line as a review reads it). */
export const redactOnce = (text: string): string => {
  const found = spans(text)
  if (found.length === 0) return text
  let out = ""
  let at = 0
  for (const [start, end] of found) {
    out += text.slice(at, start) + mask
    at = end
  }
  return out + text.slice(at)
}

/** `text` with each secret replaced by `[secret]`, the rest kept as it was. */
export const redact = (text: string): string => redactOnce(text)

/** Redacts texts as `redact` does, remembering what it was given (see `redactor`). */
export type Redactor = (text: string) => string

/**
 * A `redact` that remembers its answers (at most `limit` texts of up to 4,096 units, all forgotten when full): for a
 * caller that masks the same texts again and again, as a reviewer shows the same entries on every pass. The memory is
 * the redactor's own, held by whoever makes it; this module keeps none.
 */
export const redactor = (limit = 4_096): Redactor => remembered(redact, limit, 4_096)

/** `value` masked by `mask`: a string, or each string of a list; anything else as it is. */
const maskValue = (value: unknown, mask: (text: string) => string): unknown =>
  typeof value === "string" ? mask(value) : Array.isArray(value) ? value.map((item) => maskValue(item, mask)) : value

/** A record of fields with each string (and each string of a list) masked by `mask`. */
const maskFields = (fields: unknown, mask: (text: string) => string): unknown =>
  typeof fields === "object" && fields !== null && !Array.isArray(fields)
    ? Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, maskValue(value, mask)]))
    : fields

/**
 * An error class (or any class made from a record of fields) whose string fields, and the strings of its list
 * fields, are masked as it is made: for the errors that quote outside text, so that neither their message nor their
 * fields nor their JSON keep a secret (docs/spec.md 2). `mask` masks one field, `redact` by default.
 */
export const withFieldsMasked = <C extends new (...args: Array<any>) => object>(
  Base: C,
  mask: (text: string) => string = redact
): C =>
  class extends Base {
    constructor(...args: Array<any>) {
      super(maskFields(args[0], mask), ...args.slice(1))
      // A class may also be made from fields it trusts (decoded, say), which skip the masking above.
      const fields = this as Record<string, unknown>
      for (const key of Object.keys(fields)) fields[key] = maskValue(fields[key], mask)
    }
  }
