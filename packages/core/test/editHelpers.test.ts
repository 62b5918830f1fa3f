import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as EditHelpers from "../src/internal/editHelpers.ts"
import * as Text from "../src/Text.ts"

/** Text of ASCII letters, white space of every kind and a few code points that fold or lower otherwise. */
const mixedText = fc
  .array(
    fc.constantFrom(
      "a",
      "B",
      "z",
      "Q",
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\u00a0",
      "\u2028",
      "İ",
      "Σ",
      "\u212a",
      "é",
      "茶",
      "1",
      "."
    ),
    {
      maxLength: 12
    }
  )
  .map((parts) => parts.join(""))

describe("editHelpers.hasSameKey", () => {
  it("property: tells a text's same-fact key as Text.sameKey does", () => {
    fc.assert(
      fc.property(mixedText, mixedText, (text, other) => {
        for (const key of [Text.sameKey(other), Text.sameKey(text), other])
          assert.strictEqual(EditHelpers.hasSameKey(text, key), Text.sameKey(text) === key, JSON.stringify([text, key]))
      }),
      { numRuns: 5_000 }
    )
  })

  it("folds white space runs and case, and trims", () => {
    assert.isTrue(EditHelpers.hasSameKey("  The  User\tdrinks\nTEA ", "the user drinks tea"))
    assert.isFalse(EditHelpers.hasSameKey("The user drinks tea", "the user drinks te"))
    assert.isFalse(EditHelpers.hasSameKey("The user", "the user drinks tea"))
  })
})
