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
 */
import * as View from "./internal/secretView.ts"

/** A secret found in a text: `[start, end)` in UTF-16 units, never inside a surrogate pair. */
export type Span = readonly [start: number, end: number]

/** What a redacted secret reads as. */
export const mask = "[secret]"

// ---------------------------------------------------------------------------------------------------------------
// Characters

const unitsOf = (chars: string): Array<number> => Array.from(chars, (ch) => ch.charCodeAt(0))
const codes = (chars: string): ReadonlySet<number> => new Set(unitsOf(chars))

const isDigit = (c: number) => c >= 48 && c <= 57
const isUpper = (c: number) => c >= 65 && c <= 90
const isLower = (c: number) => c >= 97 && c <= 122
const isAlnum = (c: number) => isDigit(c) || isUpper(c) || isLower(c)
const isKeyChar = (c: number) => isAlnum(c) || c === 95 || c === 45 // [A-Za-z0-9_-]
const isWordChar = (c: number) => isAlnum(c) || c === 95 // [A-Za-z0-9_]
const isUpperOrDigit = (c: number) => isUpper(c) || isDigit(c)
const isSlackChar = (c: number) => isAlnum(c) || c === 45
const isAscii = (c: number) => c > 32 && c < 127 // printable, not a space
const isLabelChar = (c: number) => isUpper(c) || c === 32 // "RSA PRIVATE KEY"

/** Character classes of the BMP, as bit flags: one table read per character. */
const SPACE = 1
const LEAD = 2 // punctuation before a word or value that is not part of it
const TRAIL = 4 // punctuation after a word or value that is not part of it
const BREAK = 8 // CJK punctuation and dashes that end a word
const SEPARATOR = 16 // ":", "=", "：" — words of their own
const ZH_FIRST = 32 // the first unit of a Chinese keyword
const CLASSES = new Uint8Array(0x10000)
const mark = (flag: number, units: ReadonlyArray<number>) => units.forEach((c) => (CLASSES[c]! |= flag))
mark(SPACE, [9, 10, 11, 12, 13, 32, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000])
mark(SPACE, [0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a])
mark(LEAD, unitsOf("([{<\"'`“‘«「『（#*"))
mark(TRAIL, unitsOf(".,;:!?)]}>\"'`”’»」』）*"))
mark(BREAK, unitsOf("，。；！？、—–"))
mark(SEPARATOR, unitsOf(":=："))
const is = (c: number, flag: number): boolean => ((CLASSES[c] ?? 0) & flag) !== 0

/** One scan of a text (as detection reads it): the findings so far, and whether the first one is enough. */
interface Scan {
  readonly text: string
  readonly found: Array<Span>
  readonly first: boolean
  lower: string | undefined
  urls: Urls | undefined
}

/** Notes a finding; true when the scan is done (the first finding is enough). */
const note = (scan: Scan, span: Span): boolean => {
  scan.found.push(span)
  return scan.first
}

/** The scan's text in lower case, every index kept. */
const lowerOf = (scan: Scan): string => (scan.lower ??= lowerCase(scan.text))

/** Opening quote → closing quote. */
const QUOTES: ReadonlyMap<number, number> = new Map(
  ['""', "''", "``", "“”", "‘’", "「」", "『』", "«»"].map((pair) => [pair.charCodeAt(0), pair.charCodeAt(1)])
)

const digitsIn = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) if (isDigit(text.charCodeAt(i))) count++
  return count
}

/** `text` in lower case with every index kept. Full lowering keeps the length (and so every index) except where a
 * character grows (U+0130 İ); then A–Z alone are lowered. */
const lowerCase = (text: string): string => {
  const lower = text.toLowerCase()
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (run) => run.toLowerCase())
}

/** A quoted value starting at `at` (the opening quote), closed within 100 units: the span inside the quotes. */
const quoted = (text: string, at: number): Span | undefined => {
  const close = QUOTES.get(text.charCodeAt(at))
  if (close === undefined) return undefined
  const limit = Math.min(text.length, at + 101)
  for (let k = at + 1; k < limit; k++) if (text.charCodeAt(k) === close) return k > at + 1 ? [at + 1, k] : undefined
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// URLs: a run of printable ASCII with a scheme ("https://"), starting "www.", or a host name and a path
// ("docs.google.com/document/d/…"). Long runs and numbers inside one are not secrets; a password in its user part is.

const isUrl = (text: string, from: number, to: number): boolean => {
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

const NOT_PRINTABLE = /[^\x21-\x7e]/g

/** The end of the run of printable ASCII starting at `from` (a long run is walked by the regex engine). */
const asciiRunEnd = (text: string, from: number): number => {
  const limit = Math.min(text.length, from + 64)
  let i = from
  while (i < limit && isAscii(text.charCodeAt(i))) i++
  if (i < limit || i === text.length) return i
  NOT_PRINTABLE.lastIndex = i
  return NOT_PRINTABLE.test(text) ? NOT_PRINTABLE.lastIndex - 1 : text.length
}

/** The URLs of a text, found only as far as they are asked for. */
interface Urls {
  /** The URLs found so far, in order. */
  readonly ranges: Array<Span>
  /** Finds every URL starting at or before `position`. */
  readonly reach: (position: number) => void
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
const within = (scan: Scan) => {
  let k = 0
  return (position: number): boolean => {
    const urls = urlsIn(scan)
    urls.reach(position)
    while (k < urls.ranges.length && urls.ranges[k]![1] <= position) k++
    return k < urls.ranges.length && urls.ranges[k]![0] <= position
  }
}

/** The password of each `scheme://user:password@host`. */
const urlPasswords = (scan: Scan) => {
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

// ---------------------------------------------------------------------------------------------------------------
// A user name and its password as a pair, "marco / Tr0ub4dor&3-fennel": the password alone is masked.

/** Symbols a password holds and a word of prose seldom does. */
const PASSWORD_SYMBOL = codes("!#$%&*+=?@^~")

/** The most units a word of a pair may have. */
const PAIR_WORD = 64

/**
 * Whether `[from, to)` reads as a password: 8 to 64 printable ASCII units, no "/", holding a letter, a digit, and a
 * symbol of `PASSWORD_SYMBOL` or a digit between letters with both cases ("Tr0ub4dor").
 */
const passwordShaped = (text: string, from: number, to: number): boolean => {
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
const pairs = (scan: Scan) => {
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

// ---------------------------------------------------------------------------------------------------------------
// Known key formats, on each run of [A-Za-z0-9_-] (a "piece"): a prefix, then enough characters of its kind.

interface Format {
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

const BY_FIRST = Map.groupBy(FORMATS, (format) => format.prefix.charCodeAt(0))
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
const keys = (scan: Scan) => {
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
const pem = (scan: Scan) => {
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

// ---------------------------------------------------------------------------------------------------------------
// Runs outside URLs: 32+ letters and digits mixing upper case, lower case and digits; 15+ digits in a row, read
// through single spaces between digits and hyphens between groups of three or more digits.

const mixedRuns = (scan: Scan) => {
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

const longNumbers = (scan: Scan) => {
  const text = scan.text
  const inUrl = within(scan)
  const at = (k: number) => text.charCodeAt(k)
  let i = 0
  while (i < text.length) {
    if (!isDigit(at(i))) {
      i++
      continue
    }
    const start = i
    let count = 0
    let group = 0
    let early = scan.first // whether to stop once the number is long enough, without walking to its end
    for (;;) {
      while (isDigit(at(i))) {
        i++
        count++
        group++
      }
      const spaced = at(i) === 32 && isDigit(at(i + 1))
      const hyphened = at(i) === 45 && group >= 3 && isDigit(at(i + 1)) && isDigit(at(i + 2)) && isDigit(at(i + 3))
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

// ---------------------------------------------------------------------------------------------------------------
// Words: passwords, PINs, codes and keys given with their value, and ID numbers under their label. The text is cut
// into words at white space, CJK punctuation, ":" and "=" (those two are words of their own); each rule looks at a
// bounded window of words around a keyword.

/** The words of a text as parallel arrays (a text of 1M characters may hold 500k words). */
interface Words {
  readonly count: number
  readonly start: Int32Array
  readonly end: Int32Array
  /** 1 where punctuation follows the word. */
  readonly stop: Uint8Array
  /** Each word's index in `VOCABULARY` (0 for a word no rule looks for). */
  readonly ids: Uint16Array
}

/** How many units a text may have for `words` to use the buffers below, made once: allocating them costs more
 * than reading a short text. (A scan never runs inside another, and each word's fields are written before read.) */
const REUSED = 4096
const reused = {
  start: new Int32Array(REUSED),
  end: new Int32Array(REUSED),
  stop: new Uint8Array(REUSED),
  ids: new Uint16Array(REUSED)
}

/** Whether a word ends between `before` and `after`, as between the strings of JSON text: a closing quote then ",",
 * "}" or "]" (`password","x"`), or "," then an opening quote. */
const endsJsonString = (before: number, after: number): boolean =>
  (before === 34 && (after === 44 || after === 125 || after === 93)) || (before === 44 && after === 34)

const words = (text: string, lower: string): Words => {
  const small = text.length <= REUSED
  const start = small ? reused.start : new Int32Array(text.length)
  const end = small ? reused.end : new Int32Array(text.length)
  const stop = small ? reused.stop : new Uint8Array(text.length)
  const ids = small ? reused.ids : new Uint16Array(text.length)
  let count = 0
  const stopLast = () => {
    if (count > 0) stop[count - 1] = 1
  }
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (is(c, SPACE | BREAK)) {
      if (is(c, BREAK)) stopLast()
      i++
      continue
    }
    let s = i++
    if (!is(c, SEPARATOR)) {
      while (i < text.length && !is(text.charCodeAt(i), SPACE | BREAK | SEPARATOR)) {
        if (endsJsonString(text.charCodeAt(i - 1), text.charCodeAt(i))) break
        i++
      }
    }
    let e = i
    if (!is(c, SEPARATOR)) {
      while (s < e && is(text.charCodeAt(s), LEAD)) s++
      while (e > s && is(text.charCodeAt(e - 1), TRAIL)) e--
    }
    if (s === e) {
      stopLast()
      continue
    }
    start[count] = s
    end[count] = e
    stop[count] = e < i ? 1 : 0
    ids[count++] = e - s > 40 ? 0 : vocabularyId(lower.slice(s, e)) // no word a rule knows is longer
  }
  return { count, start, end, stop, ids }
}

type Kind = "password" | "code" | "key"

/** A set of the words of a space-separated list. */
const wordSet = (list: string): ReadonlySet<string> => new Set(list.split(" "))

const PASSWORD = wordSet(
  "password passwords passwd pwd passphrase passphrases passcode passcodes credential credentials creds"
)
const CODE = wordSet("pin pins pincode otp cvv cvc cvv2 puk")
/** Words before "code" that make it a secret code: "security code", "door code". */
const CODE_OF = wordSet(
  "one-time security verification 2fa mfa access auth authentication backup recovery sms login door alarm gate " +
    "unlock reset confirmation pin locker lock safe garage entry building phone sim"
)
const KEY = wordSet("token tokens secret secrets apikey")
const KEY_OF = wordSet("api access secret private license licence product encryption ssh")

const PASSWORD_ENDS = ["password", "passwd", "pwd", "pass"]
const KEY_ENDS = ["key", "token", "secret"]

/** Whether `word` ends in "_" or "-" and one of `ends` ("db_password", "wifi-password", "api_key"). */
const suffixed = (word: string, ends: ReadonlyArray<string>): boolean =>
  ends.some((end) => word.endsWith(end) && (word.endsWith("_" + end) || word.endsWith("-" + end)))

const kindOf = (word: string, before: string, before2: string): Kind | undefined => {
  if (PASSWORD.has(word) || suffixed(word, PASSWORD_ENDS)) return "password"
  if (CODE.has(word)) return "code"
  if ((word === "code" || word === "codes") && (CODE_OF.has(before) || (before === "time" && before2 === "one"))) {
    return "code"
  }
  if (KEY.has(word) || suffixed(word, KEY_ENDS)) return "key"
  if ((word === "key" || word === "keys") && KEY_OF.has(before)) return "key"
  return undefined
}

const LINK = wordSet("is was are were : = equals")
const NUMBER = wordSet("number numbers code codes no num")
const OF = wordSet("for to of at on in")
const SETTING = wordSet("set sets setting change changed changes changing reset update")
const ADVERB = wordSet("now still currently actually just simply always")
const USE = wordSet("use used uses using")
/** Verbs of choosing a value: "picked X for the router password", "chose 4821 as her PIN". */
const PICK = wordSet("pick picks picked picking choose chooses chose chosen choosing")
const OWNER = wordSet("my the our your his her their a")
/** Words after a password's name that make it the name of something else: "I use Bitwarden as my password
 * manager", "uses bcrypt as the password hash". Any other word after it leaves the password named ("I use X as my
 * password lately", "… as my password hint"). */
const COMPOUND = wordSet(
  "manager managers policy policies generator generators rule rules requirement requirements vault vaults store " +
    "stores storage keeper keychain field fields prompt prompts strength checker box form page screen dialog reset " +
    "resets recovery change changes expiry expiration history length complexity rotation app apps tool tools system " +
    "systems extension plugin service provider software program utility wallet hash hashes hashing salt algorithm " +
    "format pattern template list database file files spreadsheet sheet document book notebook reminder reminders " +
    "replacement alternative protection hygiene security practice practices advice tips pad pads"
)
/** Words after a value that make it a length, not a value: "the password is 8+ characters", "a 6-digit PIN". */
const MEASURE = wordSet("characters chars digits letters symbols numbers words long")
/** Words that are not a password, so "the password is reset" gives none. */
const NOT_VALUE = wordSet(
  "a an the this that these those it its not no none never also too very so in on at by for from with without to " +
    "of as and or but be been being same different required optional wrong incorrect invalid correct right expired " +
    "reset set kept hidden secret secure safe strong weak long short easy hard simple complex good bad empty blank " +
    "missing unknown known something anything nothing what which where who how why when here there my your his her " +
    "our their mine yours ours theirs due now still case-sensitive unique available sensitive about saved stored " +
    "written given shown sent stolen taken forgotten lost broken made done gone see ask check off out up down only " +
    "less more least most please"
)
const ID_OF = wordSet("tax taxpayer national government personal citizen resident")
const ID_WORD = wordSet("number numbers no num card id")
/** What "I use … as my password" may name without giving a value. */
const VAGUE = wordSet("it this that them these those one something same secret mine")
/** Words that open a description, not a value: "uses the same password as …", "picked a new one for …". */
const DETERMINER = wordSet(
  "a an the my your his her our their its this that these those same another some any no every each"
)

/** Whether `value` can be the value of a secret of `kind`, given after a link word, directly, or in quotes. */
const fits = (value: string, kind: Kind, how: "linked" | "direct" | "quoted"): boolean => {
  if (value === mask) return false
  const digits = digitsIn(value)
  if (kind === "code") return digits > 0 && value.length >= 3
  if (kind === "key") return digits > 0 && value.length >= 8
  if (how === "direct") return digits > 0 && value.length >= 4
  if (how === "quoted") return value.length > 0
  return !NOT_VALUE.has(value) && !isWordForm(value)
}

/** A plain word of 5+ letters ending in -ed, -ing or -ly ("changed", "expiring", "usually"): not a value. */
const isWordForm = (value: string): boolean => {
  if (value.length < 5) return false
  for (let i = 0; i < value.length; i++) if (!isLower(value.charCodeAt(i))) return false
  return value.endsWith("ed") || value.endsWith("ing") || value.endsWith("ly")
}

/** The words that can end an ID number's label (`isIdLabel` says when they do). */
const ID_LABEL = wordSet("ssn itin passport passports security insurance id number license licence")

/** Further words the rules compare with: parts of keywords, of ID labels and of "as well". */
const PARTS = wordSet(
  "code codes key keys time one as ssn itin passport passports social security insurance national well -"
)
const LABEL_PARTS = wordSet("id tax taxpayer license licence driver driving")

/** The words the rules look for, "" first for every other word (so a long text of other words holds no strings). */
const VOCABULARY: ReadonlyArray<string> = [
  "",
  ...new Set(
    [PASSWORD, CODE, CODE_OF, KEY, KEY_OF, LINK, NUMBER, OF, SETTING, ADVERB, USE, PICK, OWNER, COMPOUND, MEASURE]
      .concat([VAGUE, DETERMINER, ID_OF, ID_WORD, ID_LABEL, PARTS, LABEL_PARTS])
      .flatMap((set) => [...set])
  )
]
const VOCABULARY_IDS: ReadonlyMap<string, number> = new Map(VOCABULARY.map((word, id) => [word, id]))

/** A word's id in `VOCABULARY`; "db_password" reads as "password", "api_key" as "token", "driver's" as "driver". */
const vocabularyId = (word: string): number => {
  const id = VOCABULARY_IDS.get(word)
  if (id !== undefined) return id
  const joint = Math.max(word.lastIndexOf("_"), word.lastIndexOf("-"))
  if (joint >= 0) {
    const end = word.slice(joint + 1)
    if (PASSWORD_ENDS.includes(end)) return PASSWORD_ID
    if (KEY_ENDS.includes(end)) return TOKEN_ID
  }
  return word.startsWith("driver") ? DRIVER_ID : 0
}
const PASSWORD_ID = VOCABULARY_IDS.get("password")!
const TOKEN_ID = VOCABULARY_IDS.get("token")!
const DRIVER_ID = VOCABULARY_IDS.get("driver")!

/** The lower-case text of word `k` ("" past either end). */
const wordAt = (ws: Words, k: number): string => (k >= 0 && k < ws.count ? VOCABULARY[ws.ids[k]!]! : "")

/** The value word `k` gives: the words inside its quotes, or the word itself. */
const valueOf = (text: string, ws: Words, k: number, kind: Kind, how: "linked" | "direct"): Span | undefined => {
  if (k >= ws.count) return undefined
  const inner = quoted(text, ws.start[k]! - 1) // an opening quote just before the word
  if (inner !== undefined) return fits(text.slice(inner[0], inner[1]), kind, "quoted") ? inner : undefined
  const value = text.slice(ws.start[k], ws.end[k]).toLowerCase()
  if (MEASURE.has(wordAt(ws, k + 1))) return undefined
  return fits(value, kind, how) ? [ws.start[k]!, ws.end[k]!] : undefined
}

/** A value after the keyword at `i`: "password is X", "pin: X", "the password for the wifi is X", "PIN 4821". */
const givenAfter = (text: string, ws: Words, i: number, kind: Kind): Span | undefined => {
  const w = (k: number) => wordAt(ws, k)
  let j = i + 1
  if (NUMBER.has(w(j))) j++
  if (w(j) === "-") return valueOf(text, ws, j + 1, kind, "direct") // "password - Tr0ub4dor&3"
  let v: number | undefined
  if (LINK.has(w(j))) v = j + 1
  else if (w(j) === "to" && (SETTING.has(w(i - 1)) || SETTING.has(w(i - 2)) || SETTING.has(w(i - 3)))) v = j + 1
  else if (OF.has(w(j))) {
    for (let k = j + 2; k <= j + 4 && v === undefined; k++) if (LINK.has(w(k))) v = k + 1
  } else return ws.stop[j - 1] === 1 ? undefined : valueOf(text, ws, j, kind, "direct") // not past punctuation
  if (v === undefined) return undefined
  if (w(v) === ":") v++
  if (ADVERB.has(w(v))) v++
  return valueOf(text, ws, v, kind, "linked")
}

/** Units that end a sentence. */
const SENTENCE_END = codes(".!?;。！？；")

/** How many words after a keyword a colon may stand and still give its value. */
const COLON_REACH = 12

/**
 * A value after a colon later in the keyword's sentence, with no link word between (which gives the value itself), one
 * word that reads as a password (digits in it, not a date nor a path): "the DB password for staging if you want to
 * check: Tr0ub4dor&3-fennel".
 */
const givenAfterColon = (text: string, ws: Words, i: number, kind: Kind): Span | undefined => {
  for (let k = i; k < Math.min(ws.count, i + COLON_REACH); k++) {
    if (k > i && wordAt(ws, k) === ":") {
      // A colon that ends a label, followed by white space: not one inside "http://x" or "10:30".
      const v = k + 1
      if (!is(text.charCodeAt(ws.start[k]! + 1), SPACE)) return undefined
      if (v >= ws.count || MEASURE.has(wordAt(ws, v + 1))) return undefined
      const value = text.slice(ws.start[v], ws.end[v])
      const fitting = fits(value.toLowerCase(), kind, "direct") && !DATE.test(value) && !value.includes("/")
      return fitting ? [ws.start[v]!, ws.end[v]!] : undefined
    }
    if (k > i && LINK.has(wordAt(ws, k))) return undefined
    if (SENTENCE_END.has(text.charCodeAt(ws.end[k]!))) return undefined
  }
  return undefined
}

/**
 * A value before the keyword at `i`, which names no other thing: "I use X as my password", "hunter2 is my password",
 * "uses X as the root password", "picked X for the router password". Between the link word ("as", "for", "is") and
 * the keyword stand an owner ("my", "the") and up to two words naming what the password opens.
 */
const givenBefore = (text: string, ws: Words, i: number, kind: Kind): Span | undefined => {
  const w = (k: number) => wordAt(ws, k)
  if (ws.stop[i] !== 1 && COMPOUND.has(w(i + 1))) return undefined
  for (let named = i - 1; named >= Math.max(0, i - 3); named--) {
    const owned = OWNER.has(w(named))
    const link = owned ? named - 1 : named
    switch (w(link)) {
      case "as":
        return usedBefore(text, ws, link, USE) ?? usedBefore(text, ws, link, PICK)
      case "for":
        return usedBefore(text, ws, link, PICK)
      case "is":
      case "was":
        if (owned && link >= 1) return valueOf(text, ws, link - 1, kind, "direct")
    }
  }
  return undefined
}

/** The words between one of `verbs` and the link word at `link` ("uses X as", "picked X for"), when they read as a
 * value. */
const usedBefore = (text: string, ws: Words, link: number, verbs: ReadonlySet<string>): Span | undefined => {
  for (let u = link - 1; u >= Math.max(0, link - 7); u--) {
    if (!verbs.has(wordAt(ws, u))) continue
    return readsAsValue(text, ws, u + 1, link) ? [ws.start[u + 1]!, ws.end[link - 1]!] : undefined
  }
  return undefined
}

/**
 * Whether words `[from, to)`, named as a password by what follows them, read as its value: quoted, or none of a
 * vague word alone ("it"), words opening with a determiner or an owner ("the same password", "his birthday", "a new
 * one"), words naming a secret themselves ("root password", "SSH keys") and "… as well" ("uses 2FA as well as …").
 */
const readsAsValue = (text: string, ws: Words, from: number, to: number): boolean => {
  const w = (k: number) => wordAt(ws, k)
  if (from >= to) return false
  if (QUOTES.has(text.charCodeAt(ws.start[from]! - 1))) return true
  if ((to - from === 1 && VAGUE.has(w(from))) || DETERMINER.has(w(from))) return false
  if (w(to - 1) === "well" && w(to - 2) === "as") return false
  for (let k = from; k < to; k++) if (kindOf(w(k), w(k - 1), w(k - 2)) !== undefined) return false
  return true
}

/** A date, year first or last: 2026-11-06, 06/11/2026, 6.11.26. */
const DATE = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$/

/** An ID number starting at `at`: letters, digits, inner "-", "/", "." and spaces between digits, 5+ digits, not a
 * date; at most 40 units. */
const idNumber = (text: string, at: number): Span | undefined => {
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
  if (!ID_LABEL.has(wordAt(ws, i))) return false
  const before = wordAt(ws, i - 1)
  const after = wordAt(ws, i + 1)
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
      return ID_OF.has(before) || ID_WORD.has(after)
    case "number":
      return before === "tax" || before === "taxpayer"
    case "license":
    case "licence":
      return before === "driver" || before === "driving"
    default:
      return false
  }
}

const wordRules = (scan: Scan) => {
  const text = scan.text
  const ws = words(text, lowerOf(scan))
  const w = (k: number) => wordAt(ws, k)
  for (let i = 0; i < ws.count; i++) {
    if (w(i) === "") continue // every rule starts at a word it knows
    const kind = kindOf(w(i), w(i - 1), w(i - 2))
    if (kind !== undefined) {
      const after = givenAfter(text, ws, i, kind) ?? givenAfterColon(text, ws, i, kind)
      if (after !== undefined && note(scan, after)) return
      const before = kind === "key" ? undefined : givenBefore(text, ws, i, kind)
      if (before !== undefined && note(scan, before)) return
    }
    if (isIdLabel(ws, i)) {
      let v = i + 1
      if (ID_WORD.has(w(v))) v++
      if (LINK.has(w(v))) v++
      if (w(v) === ":") v++
      const id = v < ws.count ? idNumber(text, ws.start[v]!) : undefined
      if (id !== undefined && note(scan, id)) return
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Chinese: 密码是…, 密码：…, 验证码是…, 我用…当密码, and ID numbers after 身份证, 护照, 社保 ….

const CHINESE = new Map<string, Kind | "id">([
  ...["密码", "密碼", "口令"].map((word) => [word, "password"] as const),
  ...["验证码", "驗證碼", "校验码", "校驗碼", "安全码", "安全碼", "动态码", "動態碼", "pin码", "pin碼"].map(
    (word) => [word, "code"] as const
  ),
  ...["身份证", "身份證", "护照", "護照", "社保", "社会保障", "社會保障", "驾照", "駕照", "驾驶证", "駕駛證"]
    .concat(["税号", "稅號", "纳税人识别号", "納稅人識別號"])
    .map((word) => [word, "id"] as const)
])
const CHINESE_BY_FIRST = Map.groupBy(CHINESE.keys(), (word) => word.charCodeAt(0))
mark(ZH_FIRST, [...CHINESE_BY_FIRST.keys()])
const ZH_LINKS = ["设置为", "設置為", "设为", "設為", "改为", "改為", "改成", "是", "为", "為", "：", ":", "="]
const ZH_USE_AS = ["当作", "當作", "作为", "作為", "当", "當", "做"]
const ZH_ID_GAP = codes("号號码碼卡是为為：:= ")
const ZH_ADVERB = codes("就都也还還仍")
const ZH_CLAUSE_END = codes("。，！？；,.!?;")

/** What 我用…当密码 may name without giving a value ("this", "it", "the same one"). */
const ZH_VAGUE: ReadonlySet<string> = new Set(["这", "那", "这个", "那个", "这些", "那些", "它", "同一个", "一样的"])

/** Whether the unit at `u` ends a clause: CJK punctuation, or ASCII punctuation that is not part of an ASCII value:
 * followed by printable ASCII (`S3cure!pass`, `my.pass`), or ending one right before what follows (`hunter2!当密码`).
 * Followed by a space, it ends the clause ("我用Bitwarden管理账号. 当密码忘了就重置"). */
const endsClause = (text: string, u: number): boolean => {
  const c = text.charCodeAt(u)
  if (!ZH_CLAUSE_END.has(c)) return false
  if (c >= 0x80) return true
  const next = text.charCodeAt(u + 1)
  return !(isAscii(next) || (isAscii(text.charCodeAt(u - 1)) && u + 1 < text.length && !is(next, SPACE)))
}

const skipSpaces = (text: string, at: number): number => {
  let k = at
  while (k < at + 2 && text.charCodeAt(k) === 32) k++
  return k
}

/** A value in ASCII starting at `at`, without surrounding punctuation. */
const asciiValue = (text: string, at: number): Span | undefined => {
  let end = at
  while (end < text.length && isAscii(text.charCodeAt(end))) end++
  let start = at
  while (start < end && is(text.charCodeAt(start), LEAD)) start++
  while (end > start && is(text.charCodeAt(end - 1), TRAIL)) end--
  return end > start ? [start, end] : undefined
}

/** An ID number after a Chinese label ending at `at` ("号码是", "：" between). */
const chineseId = (text: string, at: number): Span | undefined => {
  let k = at
  while (k < at + 6 && ZH_ID_GAP.has(text.charCodeAt(k))) k++
  return isAlnum(text.charCodeAt(k)) ? idNumber(text, k) : undefined
}

/** The value after a Chinese keyword ending at `at`: 密码是X, 密码：X, 密码就是“X”, 验证码 482913. */
const chineseValue = (text: string, lower: string, at: number, kind: Kind): Span | undefined => {
  let k = skipSpaces(text, at)
  if (ZH_ADVERB.has(text.charCodeAt(k))) k++
  const link = ZH_LINKS.find((word) => text.startsWith(word, k))
  if (link !== undefined) k += link.length
  if (text.charCodeAt(k) === 0xff1a || text.charCodeAt(k) === 58) k++
  k = skipSpaces(text, k)
  const inner = quoted(text, k)
  const value = inner ?? asciiValue(text, k)
  const how = inner !== undefined ? "quoted" : link !== undefined ? "linked" : "direct"
  return value !== undefined && fits(lower.slice(value[0], value[1]), kind, how) ? value : undefined
}

/** X in 我用X当密码, for a password keyword starting at `at`: X lies between 用 and 当 (作为, 做 …), in one clause. */
const usedAs = (text: string, at: number): Span | undefined => {
  const useAs = ZH_USE_AS.find((word) => at >= word.length && text.startsWith(word, at - word.length))
  if (useAs === undefined) return undefined
  const end = at - useAs.length
  for (let u = end - 1; u >= Math.max(0, end - 24) && !endsClause(text, u); u--) {
    if (text.charCodeAt(u) !== 0x7528) continue // 用
    let start = u + 1
    let stop = end
    while (start < stop && text.charCodeAt(start) === 32) start++
    while (stop > start && text.charCodeAt(stop - 1) === 32) stop--
    const value = text.slice(start, stop)
    return stop > start && value !== mask && !ZH_VAGUE.has(value) ? [start, stop] : undefined
  }
  return undefined
}

/** The Chinese keyword starting at `at`, if any. */
const chineseWord = (lower: string, at: number): string | undefined => {
  if (!is(lower.charCodeAt(at), ZH_FIRST)) return undefined
  for (const word of CHINESE_BY_FIRST.get(lower.charCodeAt(at))!) if (lower.startsWith(word, at)) return word
  return undefined
}

const chinese = (scan: Scan) => {
  const text = scan.text
  const lower = lowerOf(scan)
  for (let at = 0; at < lower.length; at++) {
    const word = chineseWord(lower, at)
    if (word === undefined) continue
    const kind = CHINESE.get(word)!
    const end = at + word.length
    const value = kind === "id" ? chineseId(text, end) : chineseValue(text, lower, end, kind)
    if (value !== undefined && note(scan, value)) return
    const used = kind === "password" ? usedAs(text, at) : undefined
    if (used !== undefined && note(scan, used)) return
    at = end - 1
  }
}

// ---------------------------------------------------------------------------------------------------------------

// What could start a finding: one pass over the text notes which scanners can find anything in it.

const RUNS = 1 // a run of [A-Za-z0-9_-] long enough for a known key or a JWT, starting as one does
const MIXED = 2 // 32+ letters and digits in a row, mixing upper case, lower case and digits
const DIGITS = 4 // 15 or more digits
const WORDS = 8 // a keyword of the word rules
const AT = 16 // an "@", which a URL with a password holds
const CHINESE_WORD = 32 // a unit of a Chinese keyword
const PEM = 64 // "-----BEGIN "
const NON_ASCII = 128 // a unit past ASCII: the text may not read as itself
const SLASH = 256 // a "/", which a user and password pair holds

/** BMP units by kind: upper case, lower case, digit, or "_" and "-" (the rest of a key's characters); any other
 * unit that starts something carries its flag above the low byte ("@", "/", a unit past ASCII, and a unit every
 * Chinese keyword holds one of: its first, or 码 of "pin码"). */
const UPPER = 1
const LOWER = 2
const DIGIT = 4
const JOIN = 8
const KINDS = new Uint32Array(0x10000).fill(NON_ASCII << 8)
for (let c = 0; c < 128; c++) {
  KINDS[c] = isUpper(c) ? UPPER : isLower(c) ? LOWER : isDigit(c) ? DIGIT : c === 95 || c === 45 ? JOIN : 0
}
KINDS[64] = AT << 8
KINDS[47] = SLASH << 8
const CHINESE_UNITS = [...CHINESE_BY_FIRST.keys(), ...unitsOf("码碼")].filter((c) => c >= 0x80)
for (const c of CHINESE_UNITS) KINDS[c] = (CHINESE_WORD | NON_ASCII) << 8

/** The runs of letters of every keyword a word rule starts at ("cvv2" gives "cvv", "db_password" is "password"). */
const KEYWORD_RUNS: ReadonlyArray<string> = [
  ...new Set(
    [...PASSWORD, ...CODE, ...KEY, ...PASSWORD_ENDS, ...KEY_ENDS, ...ID_LABEL, "code", "codes", "key", "keys"].flatMap(
      (word) => word.match(/[a-z]+/g) ?? []
    )
  )
]
const LONGEST_KEYWORD = Math.max(...KEYWORD_RUNS.map((run) => run.length))

/** The letters `[from, to)` of `text` as one number, case ignored (base 27: exact below 2^53, so up to 11). */
const letterCode = (text: string, from: number, to: number): number => {
  let code = 0
  for (let i = from; i < to; i++) code = code * 27 + ((text.charCodeAt(i) | 32) - 96)
  return code
}
const KEYWORD_CODES: ReadonlySet<number> = new Set(KEYWORD_RUNS.map((run) => letterCode(run, 0, run.length)))
/** For each first letter (1–26), a bit per length of a keyword starting with it: most words need no code. */
const KEYWORD_LENGTHS = new Uint16Array(27)
for (const run of KEYWORD_RUNS) KEYWORD_LENGTHS[run.charCodeAt(0) - 96]! |= 1 << run.length

/** Whether the ASCII letters `[from, to)` of `text` are a keyword's. */
const isKeyword = (text: string, from: number, to: number): boolean =>
  to - from <= LONGEST_KEYWORD &&
  ((KEYWORD_LENGTHS[(text.charCodeAt(from) | 32) - 96]! >> (to - from)) & 1) === 1 &&
  KEYWORD_CODES.has(letterCode(text, from, to))

/** The first unit of every known key format and of a JWT ("eyJ"), and the shortest run that can hold one. */
const KEY_FIRST = new Uint8Array(128)
for (const c of [...BY_FIRST.keys(), 101]) KEY_FIRST[c] = 1
const KEY_RUN = 10

/** Which scanners can find something in `text`. With `first`, the pass stops at a run of 32 mixing upper case, lower
 * case and digits (a secret unless it is in a URL), with every scanner to run (-1). */
const triggers = (text: string, first: boolean): number => {
  const n = text.length
  let flags = 0
  let digits = 0
  let i = 0
  while (i < n) {
    const unit = KINDS[text.charCodeAt(i)]!
    if (unit < UPPER || unit > JOIN) {
      flags |= unit >> 8
      i++
      continue
    }
    const start = i
    let word = i // where the current run of letters starts
    let alnum = i // where the current run of letters and digits starts, and the kinds it holds
    let kinds = 0
    for (; i < n; i++) {
      const kind = KINDS[text.charCodeAt(i)]!
      if (kind < UPPER || kind > JOIN) break
      if (kind > LOWER) {
        if (i > word && isKeyword(text, word, i)) flags |= WORDS
        word = i + 1
        if (kind === JOIN) {
          if (text.startsWith("-----BEGIN ", i)) flags |= PEM
          alnum = i + 1
          kinds = 0
          continue
        }
        digits++
      }
      kinds |= kind
      if (i - alnum >= 31 && kinds === (UPPER | LOWER | DIGIT)) {
        if (first) return -1
        flags |= MIXED
      }
    }
    if (i > word && isKeyword(text, word, i)) flags |= WORDS
    if (i - start >= KEY_RUN && KEY_FIRST[text.charCodeAt(start)] === 1) flags |= RUNS
  }
  return digits >= 15 ? flags | DIGITS : flags
}

// ---------------------------------------------------------------------------------------------------------------

/** The scanners, each with what starts its findings, likeliest first. */
const SCANNERS: ReadonlyArray<readonly [flag: number, scanner: (scan: Scan) => void]> = [
  [MIXED, mixedRuns],
  [WORDS, wordRules],
  [RUNS, keys],
  [DIGITS, longNumbers],
  [CHINESE_WORD, chinese],
  [AT, urlPasswords],
  [SLASH, pairs],
  [PEM, pem]
]

/** The secret spans of `text` as detection reads it (`view`), in no particular order, possibly overlapping; with
 * `first`, only as many as it takes to know there is one. */
const findings = (text: string, first: boolean): { readonly view: View.View; readonly found: ReadonlyArray<Span> } => {
  let flags = triggers(text, first)
  let view: View.View = { text, origin: undefined }
  if ((flags & NON_ASCII) !== 0) {
    view = View.of(text)
    if (view.text !== text) flags = triggers(view.text, first)
  }
  const scan: Scan = { text: view.text, found: [], first, lower: undefined, urls: undefined }
  for (const [flag, scanner] of SCANNERS) {
    if ((flags & flag) === 0) continue
    scanner(scan)
    if (first && scan.found.length > 0) break
  }
  return { view, found: scan.found }
}

/** Spans of a text of `length` units, sorted and disjoint: touching or overlapping ones merged. */
const merged = (found: ReadonlyArray<Span>, length: number): Array<Span> => {
  const depth = new Int32Array(length + 1)
  for (const [start, end] of found) {
    depth[start]! += 1
    depth[end]! -= 1
  }
  const out: Array<Span> = []
  let open = 0
  let start = 0
  for (let i = 0; i <= length; i++) {
    const before = open
    open += depth[i]!
    if (before === 0 && open > 0) start = i
    else if (before > 0 && open === 0) out.push([start, i])
  }
  return out
}

/** The secrets in `text`: sorted, disjoint spans (findings that touch or overlap as the text is read merged), each
 * of whole code points. */
export const spans = (text: string): ReadonlyArray<Span> => {
  const { view, found } = findings(text, false)
  if (found.length === 0) return []
  const out: Array<Span> = []
  for (const [from, to] of merged(found, view.text.length)) {
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

/**
 * `text` with each secret replaced by `[secret]`, scanned now and not remembered: for a text masked once (a transcript
 * line as a review reads it), which would only push the entries `redact` remembers out of its memory.
 */
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

/**
 * The texts redacted lately, the least recently used let go first: memory entries are masked again and again (every
 * prompt, every recall), and a text's redaction never changes. At most `redactedMax` texts of at most `redactedLength`
 * units each (an entry's size; a longer text is not kept): 16 MB at the very most, a few hundred KB for a full memory.
 */
const redacted = new Map<string, string>()
const redactedMax = 8_192
const redactedLength = 512

/** `text` with each secret replaced by `[secret]`, the rest kept as it was. */
export const redact = (text: string): string => {
  if (text.length > redactedLength) return redactOnce(text)
  const known = redacted.get(text)
  if (known !== undefined) {
    redacted.delete(text)
    redacted.set(text, known)
    return known
  }
  const result = redactOnce(text)
  redacted.set(text, result)
  if (redacted.size > redactedMax) redacted.delete(redacted.keys().next().value!)
  return result
}

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
