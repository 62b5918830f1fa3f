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

  it("reads a text longer than one string piece (8,192 units) whole", () => {
    const text = "９\u200b１\u00ad".repeat(10_000)
    assert.strictEqual(SecretView.of(text).text, "91".repeat(10_000))
  })
})
