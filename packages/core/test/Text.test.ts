import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Text from "../src/Text.ts"

/** Every character `\s` matches, and a few that look like white space but are not. */
const spaces = [..."\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"]
const notSpaces = [..."\u0085\u180e\u200b\u2060x"]

describe("Text.fold", () => {
  it("folds every kind of white space to single spaces, and trims", () => {
    assert.strictEqual(Text.fold("  a \t b\u3000\u3000c\u00a0d\n"), "a b c d")
    assert.strictEqual(Text.fold("a b"), "a b")
    assert.strictEqual(Text.fold("a\u200bb\u0085c"), "a\u200bb\u0085c")
  })

  it("property: the same as replacing each run of `\\s` by a space and trimming", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...spaces, ...notSpaces, "😀", "中") }), (text) => {
        assert.strictEqual(Text.fold(text), text.replace(/\s+/gu, " ").trim())
      }),
      { numRuns: 5000 }
    )
  })
})
