/**
 * Passwords, PINs, codes and keys given with their value in English, never from their name alone. After the name,
 * the value is the word a link gives ("the password is X", "set the PIN to X", "password - X"), unless it reads as
 * talk about the password ("is reset", "is on …"), or what follows a colon later in its sentence when it holds digits
 * ("the DB password for staging if you want to check: X"). Before the name, the value is what a verb of using or
 * choosing names: "uses X as the root password", "picked X for the router password"; not a description ("the same
 * password", "his birthday"), and not when the name names something else ("uses Bitwarden as the password manager").
 */
import { codes, is, QUOTES, SPACE } from "./chars.ts"
import { DATE } from "./idLabels.ts"
import { note, type Scan, type Span, type WordRule, type Words } from "./scan.ts"
import {
  CODE_NAME,
  fits,
  IN_ADVERB,
  IN_CODE_OF,
  IN_COMPOUND,
  IN_DETERMINER,
  IN_KEY_OF,
  IN_LINK,
  IN_MEASURE,
  IN_NUMBER,
  IN_OF,
  IN_OWNER,
  IN_PICK,
  IN_SETTING,
  IN_USE,
  IN_VAGUE,
  KEY_NAME,
  type Kind,
  NAMES_CODE,
  NAMES_KEY,
  NAMES_PASSWORD
} from "./vocabulary.ts"
import { isIn, setsAt, valueOf, wordAt } from "./words.ts"

/** The kind of secret the word at `k` names, read from the sets of it and the words before it (as `kindOf` says). */
export const kindAt = (ws: Words, k: number): Kind | undefined => {
  const sets = setsAt(ws, k)
  if ((sets & NAMES_PASSWORD) !== 0) return "password"
  if ((sets & NAMES_CODE) !== 0) return "code"
  if (
    (sets & CODE_NAME) !== 0 &&
    (isIn(ws, k - 1, IN_CODE_OF) || (wordAt(ws, k - 1) === "time" && wordAt(ws, k - 2) === "one"))
  ) {
    return "code"
  }
  if ((sets & NAMES_KEY) !== 0) return "key"
  if ((sets & KEY_NAME) !== 0 && isIn(ws, k - 1, IN_KEY_OF)) return "key"
  return undefined
}

/** A value after the keyword at `i`: "password is X", "pin: X", "the password for the wifi is X", "PIN 4821". */
const givenAfter = (text: string, ws: Words, i: number, kind: Kind): Span | undefined => {
  const w = (k: number) => wordAt(ws, k)
  let j = i + 1
  if (isIn(ws, j, IN_NUMBER)) j++
  if (w(j) === "-") return valueOf(text, ws, j + 1, kind, "direct") // "password - Tr0ub4dor&3"
  let v: number | undefined
  if (isIn(ws, j, IN_LINK)) v = j + 1
  else if (w(j) === "to" && (isIn(ws, i - 1, IN_SETTING) || isIn(ws, i - 2, IN_SETTING) || isIn(ws, i - 3, IN_SETTING)))
    v = j + 1
  else if (isIn(ws, j, IN_OF)) {
    for (let k = j + 2; k <= j + 4 && v === undefined; k++) if (isIn(ws, k, IN_LINK)) v = k + 1
  } else return ws.stop[j - 1] === 1 ? undefined : valueOf(text, ws, j, kind, "direct") // not past punctuation
  if (v === undefined) return undefined
  if (w(v) === ":") v++
  if (isIn(ws, v, IN_ADVERB)) v++
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
      if (v >= ws.count || isIn(ws, v + 1, IN_MEASURE)) return undefined
      const value = text.slice(ws.start[v], ws.end[v])
      const fitting = fits(value.toLowerCase(), kind, "direct") && !DATE.test(value) && !value.includes("/")
      return fitting ? [ws.start[v]!, ws.end[v]!] : undefined
    }
    if (k > i && isIn(ws, k, IN_LINK)) return undefined
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
  if (ws.stop[i] !== 1 && isIn(ws, i + 1, IN_COMPOUND)) return undefined
  for (let named = i - 1; named >= Math.max(0, i - 3); named--) {
    const owned = isIn(ws, named, IN_OWNER)
    const link = owned ? named - 1 : named
    switch (w(link)) {
      case "as":
        return usedBefore(text, ws, link, IN_USE) ?? usedBefore(text, ws, link, IN_PICK)
      case "for":
        return usedBefore(text, ws, link, IN_PICK)
      case "is":
      case "was":
        if (owned && link >= 1) return valueOf(text, ws, link - 1, kind, "direct")
    }
  }
  return undefined
}

/** The words between one of `verbs` and the link word at `link` ("uses X as", "picked X for"), when they read as a
 * value. */
const usedBefore = (text: string, ws: Words, link: number, verbs: number): Span | undefined => {
  for (let u = link - 1; u >= Math.max(0, link - 7); u--) {
    if (!isIn(ws, u, verbs)) continue
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
  if ((to - from === 1 && isIn(ws, from, IN_VAGUE)) || isIn(ws, from, IN_DETERMINER)) return false
  if (w(to - 1) === "well" && w(to - 2) === "as") return false
  for (let k = from; k < to; k++) if (kindAt(ws, k) !== undefined) return false
  return true
}

/** Notes the value the word at `i` gives, when it names a password, code or key; true when the scan is done. */
const passwordAt = (scan: Scan, ws: Words, i: number): boolean => {
  // Called at every word a rule knows: no closure made before a kind is found.
  const kind = kindAt(ws, i)
  if (kind === undefined) return false
  const after = givenAfter(scan.text, ws, i, kind) ?? givenAfterColon(scan.text, ws, i, kind)
  if (after !== undefined && note(scan, after)) return true
  const before = kind === "key" ? undefined : givenBefore(scan.text, ws, i, kind)
  return before !== undefined && note(scan, before)
}

/** The rule of passwords, PINs, codes and keys in English, word by word. */
export const english: WordRule = { name: "passwords in English", at: passwordAt }
