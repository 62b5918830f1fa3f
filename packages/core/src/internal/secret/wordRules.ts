/**
 * The rules over a text's words, run together: the words are cut once, as far as the rules have read, and each word a
 * rule knows is given to every word rule in turn, so a long text of words is walked once whatever the rules find.
 */
import { english } from "./english.ts"
import { idLabels } from "./idLabels.ts"
import { type Rule, type Scan, WORDS } from "./scan.ts"
import { wordsOf } from "./words.ts"

/** How many words after the one it starts at a word rule may read (14 at most: a colon 12 words on, and the word
 * after its value), with room to spare. */
const REACH = 16

/** How many words are cut at a time past those the rules read, so that cutting is asked for once in many words. */
const AHEAD = 64

/** The word rules at each word, the words cut only a little further than the rules have read: a scan that stops at
 * its first finding cuts no further. */
const findInWords = (scan: Scan) => {
  let ws = wordsOf(scan, REACH + AHEAD)
  for (let i = 0; i < ws.count; i++) {
    if (i + REACH >= ws.count) ws = wordsOf(scan, i + REACH + AHEAD)
    if (ws.ids[i] === 0) continue // every rule starts at a word it knows
    if (english.at(scan, ws, i) || idLabels.at(scan, ws, i)) return
  }
}

/** The rule of the English words: passwords, PINs, codes and keys given with their value, and ID numbers. */
export const wordRules: Rule = { name: "words", trigger: WORDS, scan: findInWords }
