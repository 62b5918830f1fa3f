/**
 * The rules over a text's words, run together: the words are cut once, and each word a rule knows is given to every
 * word rule in turn, so a long text of words is walked once whatever the rules find.
 */
import { english } from "./english.ts"
import { idLabels } from "./idLabels.ts"
import { type Rule, type Scan, WORDS } from "./scan.ts"
import { wordsOf } from "./words.ts"

const findInWords = (scan: Scan) => {
  const ws = wordsOf(scan)
  for (let i = 0; i < ws.count; i++) {
    if (ws.ids[i] === 0) continue // every rule starts at a word it knows
    if (english.at(scan, ws, i) || idLabels.at(scan, ws, i)) return
  }
}

/** The rule of the English words: passwords, PINs, codes and keys given with their value, and ID numbers. */
export const wordRules: Rule = { name: "words", trigger: WORDS, scan: findInWords }
