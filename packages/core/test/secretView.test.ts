import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as SecretView from "../src/internal/secretView.ts"

/** The view as its rules say, code point by code point: what each reads as, and where it starts in the original. */
const expected = (text: string) => {
  let view = ""
  const origin: Array<number> = []
  for (let i = 0; i < text.length;) {
    const codePoint = text.codePointAt(i)!
    const ch = String.fromCodePoint(codePoint)
    const lone = codePoint >= 0xd800 && codePoint <= 0xdfff
    const reads =
      codePoint < 0x80 || lone || "，。；！？、".includes(ch) ? ch : /^\p{Cf}$/u.test(ch) ? "" : ch.normalize("NFKC")
    view += reads
    for (let k = 0; k < reads.length; k++) origin.push(i)
    i += ch.length
  }
  return { view, origin }
}

const pieces = [
  "a",
  "7",
  " ",
  "９",
  "ｐ",
  "\u200b",
  "\u00ad",
  "\ufeff",
  "\u00a0",
  "㎖",
  "ﬁ",
  "密码",
  "，",
  "！",
  "；",
  "？",
  "～",
  "\u2060",
  "😀",
  "\ud800",
  "\udc00",
  "é"
]

describe("SecretView.of", () => {
  it("reads each code point as its rules say, and maps every unit back to the code point it came from", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 200 }), (parts) => {
        const text = parts.join("")
        const view = SecretView.of(text)
        const { view: text2, origin } = expected(text)
        assert.strictEqual(view.text, text2)
        if (view.origin === undefined) assert.strictEqual(view.text, text)
        else assert.deepStrictEqual(Array.from(view.origin), origin)
      }),
      { numRuns: 2_000 }
    )
  })

  it("reads a text whose folds are longer than what they fold, at every point the view's buffers fill up", () => {
    // The buffers start 16 units longer than the text: 17 "ﬁ" (each "fi") fill them exactly, and what comes next
    // (a full-width digit, a longer fold, a character that reads as itself) is written past where they began.
    for (let count = 14; count <= 40; count++) {
      for (const next of ["９", "㎖", "密", "a", "\u200b", ""]) {
        const text = "ﬁ".repeat(count) + next + "９".repeat(count)
        const view = SecretView.of(text)
        const { view: text2, origin } = expected(text)
        assert.strictEqual(view.text, text2)
        assert.deepStrictEqual(Array.from(view.origin ?? []), origin)
      }
    }
  })

  it("reads a text longer than one string piece (8,192 units) whole", () => {
    const text = "９\u200b１\u00ad".repeat(10_000)
    assert.strictEqual(SecretView.of(text).text, "91".repeat(10_000))
  })

  it("reads every code point it takes as plain without asking Unicode as itself, as Unicode does", () => {
    const plain: Array<number> = []
    for (let codePoint = 0x80; codePoint <= 0xffff; codePoint++) {
      if (SecretView.plainCodePoint(codePoint)) plain.push(codePoint)
    }
    assert.isAbove(plain.length, 30_000)
    const folding = plain.filter((codePoint) => {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) return false // a lone surrogate reads as itself
      const ch = String.fromCodePoint(codePoint)
      return /^\p{Cf}$/u.test(ch) || ch.normalize("NFKC") !== ch
    })
    assert.deepStrictEqual(folding, [])
  })

  it("folds the forms it knows without asking Unicode as Unicode does", () => {
    const known: Array<number> = [0xad, 0xfeff]
    for (let codePoint = 0xff01; codePoint <= 0xff5e; codePoint++) known.push(codePoint)
    for (let codePoint = 0x200b; codePoint <= 0x200f; codePoint++) known.push(codePoint)
    for (let codePoint = 0x2060; codePoint <= 0x2064; codePoint++) known.push(codePoint)
    for (const codePoint of known) {
      const ch = String.fromCodePoint(codePoint)
      const expected = "，；！？".includes(ch) ? undefined : /^\p{Cf}$/u.test(ch) ? "" : ch.normalize("NFKC")
      assert.strictEqual(SecretView.quickFold(codePoint), expected, codePoint.toString(16))
    }
  })

  it("reads a text the same however often it is read, with nothing kept between reads", () => {
    const text = "密码：９\u200b１ ㎖ ﬁ 😀 \ud800 é"
    const once = SecretView.of(text)
    const twice = SecretView.of(text)
    assert.strictEqual(once.text, "密码:91 ml fi 😀 \ud800 é")
    assert.strictEqual(twice.text, once.text)
    assert.deepStrictEqual(Array.from(twice.origin!), Array.from(once.origin!))
  })
})
