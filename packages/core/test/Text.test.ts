import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { vi } from "vitest"
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

describe("Text.count", () => {
  const intl = new Intl.NumberFormat("en-US")

  it('writes a count as Intl.NumberFormat("en-US") does', () => {
    for (const value of [0, 7, 999, 1_000, 4_000, 16_000, 123_456, 1_234_567, Number.MAX_SAFE_INTEGER]) {
      assert.strictEqual(Text.count(value), intl.format(value), String(value))
    }
    assert.strictEqual(Text.count(4_000), "4,000")
    for (const value of [-0, -1_234, 0.5, 1.25, 1_234.5678, 2 ** 60, NaN, Infinity, -Infinity]) {
      assert.strictEqual(Text.count(value), intl.format(value), String(value))
    }
  })

  it("loads no locale data, at import nor for a whole number", async () => {
    vi.resetModules()
    const original = Intl.NumberFormat
    let made = 0
    const spy = new Proxy(original, {
      apply: (target, self, args: Array<never>) => (made++, Reflect.apply(target, self, args)),
      construct: (target, args: Array<never>) => (made++, Reflect.construct(target, args))
    })
    Object.defineProperty(Intl, "NumberFormat", { value: spy, configurable: true, writable: true })
    try {
      const Fresh = await import("../src/Text.ts")
      assert.strictEqual(Fresh.count(16_000), "16,000")
      assert.strictEqual(made, 0)
      assert.strictEqual(Fresh.count(0.5), "0.5")
      assert.strictEqual(made, 1)
    } finally {
      Object.defineProperty(Intl, "NumberFormat", { value: original, configurable: true, writable: true })
    }
  })

  it('property: the same as Intl.NumberFormat("en-US") for whole numbers and fractions', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.maxSafeNat(), fc.double()), (value) => {
        assert.strictEqual(Text.count(value), intl.format(value))
      }),
      { numRuns: 5000 }
    )
  })
})

describe("Text.length", () => {
  it("counts code points: a surrogate pair is one, a lone surrogate is one", () => {
    assert.strictEqual(Text.length(""), 0)
    assert.strictEqual(Text.length("plain"), 5)
    assert.strictEqual(Text.length("a😀b"), 3)
    assert.strictEqual(Text.length("\ud83d"), 1)
    assert.strictEqual(Text.length("x\ude00\ud83d"), 3)
  })

  it("property: the same count as iterating the string's code points", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", " ", "é", "中", "😀", "\ud83d", "\ude00") }), (text) => {
        assert.strictEqual(Text.length(text), [...text].length)
      }),
      { numRuns: 5000 }
    )
  })
})
