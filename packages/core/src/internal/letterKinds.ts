/**
 * What a code point is to the language of the user's lines (`Prompt.language`): a letter or not, and of which scripts.
 */

/** What a code point is to the language: a letter, and of which script (bits, any of them). */
export const letter = 1
export const latinScript = 2
export const hanScript = 4
export const kanaScript = 8
export const hangulScript = 16

const isLetter = /\p{L}/u
const isLatin = /\p{Script=Latin}/u
const isHan = /\p{Script=Han}/u
const isKana = /[\p{Script=Hiragana}\p{Script=Katakana}]/u
const isHangul = /\p{Script=Hangul}/u

/** What the code point `c` is, read from the Unicode properties: `letter` and the script bits. */
export const kindByProperties = (c: number): number => {
  const char = String.fromCodePoint(c)
  return (
    (isLetter.test(char) ? letter : 0) |
    (isLatin.test(char) ? latinScript : 0) |
    (isHan.test(char) ? hanScript : 0) |
    (isKana.test(char) ? kanaScript : 0) |
    (isHangul.test(char) ? hangulScript : 0)
  )
}

/**
 * What the code point `c` (beyond ASCII) is: `letter` and the script bits. The blocks most text is written in are
 * told by range (Latin-1 and Latin Extended letters, the main CJK block, Hangul syllables, kana, and punctuation, arrows,
 * symbols and emoji, which are no letters); any other code point by its properties, looked up once and kept in `known`
 * (which its caller holds while it reads one text). A test checks every code point against `kindByProperties`.
 */
export const kindOf = (c: number, known: Map<number, number>): number => {
  if (c >= 0xc0 && c <= 0x24f) return c === 0xd7 || c === 0xf7 ? 0 : letter | latinScript
  if (c >= 0x4e00 && c <= 0x9fff) return letter | hanScript
  if (c >= 0xac00 && c <= 0xd7a3) return letter | hangulScript
  if ((c >= 0x3041 && c <= 0x3096) || (c >= 0x30a1 && c <= 0x30fa)) return letter | kanaScript
  if ((c >= 0x2000 && c <= 0x206f) || (c >= 0x2190 && c <= 0x2bff) || (c >= 0xfe00 && c <= 0xfe0f)) return 0
  if ((c >= 0x1f000 && c <= 0x1f1ff) || (c >= 0x1f300 && c <= 0x1faff)) return 0
  const kept = known.get(c)
  if (kept !== undefined) return kept
  const kind = kindByProperties(c)
  known.set(c, kind)
  return kind
}
