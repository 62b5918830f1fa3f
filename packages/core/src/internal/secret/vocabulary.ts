/**
 * The words the English rules look for: the names of passwords, codes and keys, the link words that give their value
 * ("is", "set … to"), the words that make a value a description, and the words of ID labels. Every word a rule
 * compares with has an id in `VOCABULARY`, so a text's words are read as small numbers once (`words.ts`), and a long
 * text of other words holds no strings.
 */
import { type Table, digitsIn, isLower } from "./chars.ts"
import { mask } from "./scan.ts"

export type Kind = "password" | "code" | "key"

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

const PASSWORD_ENDS: ReadonlyArray<string> = ["password", "passwd", "pwd", "pass"]
const KEY_ENDS: ReadonlyArray<string> = ["key", "token", "secret"]

/** Whether `word` ends in "_" or "-" and one of `ends` ("db_password", "wifi-password", "api_key"). */
const suffixed = (word: string, ends: ReadonlyArray<string>): boolean =>
  ends.some((end) => word.endsWith(end) && (word.endsWith("_" + end) || word.endsWith("-" + end)))

/** The kind of secret `word` names, `before` and `before2` the words before it (the plain reference of `kindAt` in
 * `english.ts`, which reads the same from each word's sets). */
export const kindOf = (word: string, before: string, before2: string): Kind | undefined => {
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
export const fits = (value: string, kind: Kind, how: "linked" | "direct" | "quoted"): boolean => {
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
export const VOCABULARY: ReadonlyArray<string> = [
  "",
  ...new Set(
    [PASSWORD, CODE, CODE_OF, KEY, KEY_OF, LINK, NUMBER, OF, SETTING, ADVERB, USE, PICK, OWNER, COMPOUND, MEASURE]
      .concat([VAGUE, DETERMINER, ID_OF, ID_WORD, ID_LABEL, PARTS, LABEL_PARTS])
      .flatMap((set) => [...set])
  )
]
const VOCABULARY_IDS: ReadonlyMap<string, number> = new Map(VOCABULARY.map((word, id) => [word, id]))

/** A word's id in `VOCABULARY`; "db_password" reads as "password", "api_key" as "token", "driver's" as "driver". */
export const vocabularyId = (word: string): number => {
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

/** For each ASCII unit, a bit per length (31 for any longer) of a word that may have an id starting with it: the
 * vocabulary's, and "driver…" (6 units or more). A word holding "_" or "-" may have one whatever it starts with. */
const startings = (): Table => {
  const table = new Uint32Array(128)
  for (const word of VOCABULARY.slice(1)) table[word.charCodeAt(0)]! |= 1 << Math.min(word.length, 31)
  table[100]! |= ~0 << 6 // "d": "driver", "driver's", "drivers"
  return table
}
const STARTINGS: Table = startings()

/** Room in `BY_HASH`: a power of two several times the vocabulary, so most probes end at their first slot. */
const HASH_SLOTS = 4096

/** A hash of the units `[from, to)` of `text`, within `HASH_SLOTS`. */
const hashOf = (text: string, from: number, to: number): number => {
  let hash = to - from
  for (let k = from; k < to; k++) hash = (Math.imul(hash, 31) + text.charCodeAt(k)) | 0
  return (hash ^ (hash >>> 13)) & (HASH_SLOTS - 1)
}

/** The vocabulary's ids by the hash of their word, open addressing (0: a free slot, which ends a probe). */
const byHash = (): Table => {
  const table = new Uint16Array(HASH_SLOTS)
  VOCABULARY.forEach((word, id) => {
    if (id === 0) return
    let slot = hashOf(word, 0, word.length)
    while (table[slot] !== 0) slot = (slot + 1) & (HASH_SLOTS - 1)
    table[slot] = id
  })
  return table
}
const BY_HASH: Table = byHash()

/** Whether the units `[from, to)` of `text` are `word`. */
const isAt = (text: string, from: number, to: number, word: string): boolean =>
  to - from === word.length && text.startsWith(word, from)

/** Whether the units `[from, to)` of `text` are one of `words`. */
const isOneOf = (text: string, from: number, to: number, words: ReadonlyArray<string>): boolean => {
  for (const word of words) if (isAt(text, from, to, word)) return true
  return false
}

/** The last "_" or "-" of `[from, to)` of `text`, or `from - 1`. */
const lastJoint = (text: string, from: number, to: number): number => {
  let k = to - 1
  while (k >= from && text.charCodeAt(k) !== 95 && text.charCodeAt(k) !== 45) k--
  return k
}

/**
 * The id of the word `[from, to)` of `lower` (a text in lower case), as `vocabularyId` gives it, read in place: a word
 * that cannot have one (no word of its first unit and length in the vocabulary, no "_" or "-") is told at once, and
 * any other is looked up by its hash, without making a string.
 */
export const idAt = (lower: string, from: number, to: number): number => {
  const first = lower.charCodeAt(from)
  const listed = first >= 128 || ((STARTINGS[first]! >>> Math.min(to - from, 31)) & 1) === 1
  if (!listed && lastJoint(lower, from, to) < from) return 0
  for (let slot = hashOf(lower, from, to); BY_HASH[slot] !== 0; slot = (slot + 1) & (HASH_SLOTS - 1)) {
    if (isAt(lower, from, to, VOCABULARY[BY_HASH[slot]!]!)) return BY_HASH[slot]!
  }
  const joint = lastJoint(lower, from, to)
  if (joint >= from && isOneOf(lower, joint + 1, to, PASSWORD_ENDS)) return PASSWORD_ID
  if (joint >= from && isOneOf(lower, joint + 1, to, KEY_ENDS)) return TOKEN_ID
  return to - from >= 6 && lower.startsWith("driver", from) ? DRIVER_ID : 0
}

/** The words a word rule starts at, whole or as the end of a longer word ("db_password"): what the one pass that
 * notes which rules to run looks for. */
export const KEYWORDS: ReadonlyArray<string> = [
  ...[PASSWORD, CODE, KEY, ID_LABEL].flatMap((set) => [...set]),
  ...PASSWORD_ENDS,
  ...KEY_ENDS,
  "code",
  "codes",
  "key",
  "keys"
]

/** The sets the rules ask about a word, each a bit of what `SETS` holds for a vocabulary id. */
export const IN_LINK = 1 << 0
export const IN_NUMBER = 1 << 1
export const IN_OF = 1 << 2
export const IN_SETTING = 1 << 3
export const IN_ADVERB = 1 << 4
export const IN_USE = 1 << 5
export const IN_PICK = 1 << 6
export const IN_OWNER = 1 << 7
export const IN_COMPOUND = 1 << 8
export const IN_MEASURE = 1 << 9
export const IN_ID_OF = 1 << 10
export const IN_ID_WORD = 1 << 11
export const IN_VAGUE = 1 << 12
export const IN_DETERMINER = 1 << 13
export const IN_CODE_OF = 1 << 14
export const IN_KEY_OF = 1 << 15
/** Words that name a secret of their kind alone ("password", "db_password", "pin", "token"). */
export const NAMES_PASSWORD = 1 << 16
export const NAMES_CODE = 1 << 17
export const NAMES_KEY = 1 << 18
/** "code", "codes", "key" and "keys", which name a secret after some words ("door code", "API key"). */
export const CODE_NAME = 1 << 19
export const KEY_NAME = 1 << 20
/** Words that can end the label of an ID number ("ssn", "passport", "id"). */
export const IN_ID_LABEL = 1 << 21

/** The sets `word` is in, as bits. */
const setsOf = (word: string): number => {
  const member: ReadonlyArray<readonly [number, boolean]> = [
    [IN_LINK, LINK.has(word)],
    [IN_NUMBER, NUMBER.has(word)],
    [IN_OF, OF.has(word)],
    [IN_SETTING, SETTING.has(word)],
    [IN_ADVERB, ADVERB.has(word)],
    [IN_USE, USE.has(word)],
    [IN_PICK, PICK.has(word)],
    [IN_OWNER, OWNER.has(word)],
    [IN_COMPOUND, COMPOUND.has(word)],
    [IN_MEASURE, MEASURE.has(word)],
    [IN_ID_OF, ID_OF.has(word)],
    [IN_ID_WORD, ID_WORD.has(word)],
    [IN_VAGUE, VAGUE.has(word)],
    [IN_DETERMINER, DETERMINER.has(word)],
    [IN_CODE_OF, CODE_OF.has(word)],
    [IN_KEY_OF, KEY_OF.has(word)],
    [NAMES_PASSWORD, PASSWORD.has(word) || suffixed(word, PASSWORD_ENDS)],
    [NAMES_CODE, CODE.has(word)],
    [NAMES_KEY, KEY.has(word) || suffixed(word, KEY_ENDS)],
    [CODE_NAME, word === "code" || word === "codes"],
    [KEY_NAME, word === "key" || word === "keys"],
    [IN_ID_LABEL, ID_LABEL.has(word)]
  ]
  return member.reduce((bits, [bit, isIn]) => (isIn ? bits | bit : bits), 0)
}

/** For each vocabulary id, the sets its word is in: one read where asking each set would hash the word again. */
const sets = (): Table => Uint32Array.from(VOCABULARY, setsOf)
export const SETS: Table = sets()
