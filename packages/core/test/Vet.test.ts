import { assert, describe, it } from "@effect/vitest"
import * as MemoryConfig from "../src/MemoryConfig.ts"
import * as Vet from "../src/Vet.ts"

const settings = MemoryConfig.defaults

describe("Vet", () => {
  it("keeps an ordinary entry", () => {
    assert.isUndefined(Vet.problem("The user likes green tea", settings))
  })

  it("finds an empty entry, even when the host would call it secret", () => {
    const everythingSecret = { entryMax: 300, isSecret: () => true }
    assert.deepStrictEqual(Vet.problem("", everythingSecret), { _tag: "Empty" })
    assert.deepStrictEqual(Vet.problem("   ", settings), { _tag: "Empty" })
  })

  it("measures length in code points, so 300 emoji or Chinese characters fit and 301 do not", () => {
    assert.isUndefined(Vet.problem("x".repeat(300), settings))
    assert.isUndefined(Vet.problem("😀".repeat(300), settings))
    assert.isUndefined(Vet.problem("记".repeat(300), settings))
    assert.deepStrictEqual(Vet.problem("😀".repeat(301), settings), { _tag: "TooLong", length: 301, max: 300 })
    assert.deepStrictEqual(Vet.problem("记".repeat(348), settings), { _tag: "TooLong", length: 348, max: 300 })
  })

  it("uses the configured limit", () => {
    const small = MemoryConfig.make({ entryMax: 10 })
    assert.isUndefined(Vet.problem("ten chars!", small))
    assert.deepStrictEqual(Vet.problem("eleven chars", small), { _tag: "TooLong", length: 12, max: 10 })
  })

  it("finds a secret before the length, so a long secret is dropped silently rather than warned about", () => {
    assert.deepStrictEqual(Vet.problem("the root password is hunter2", settings), { _tag: "Secret" })
    assert.deepStrictEqual(Vet.problem("my PIN is 1234 " + "x".repeat(400), settings), { _tag: "Secret" })
  })

  it("consults the host's own test", () => {
    const host = MemoryConfig.make({ isSecret: (text) => text.includes("ZX-") })
    assert.deepStrictEqual(Vet.problem("ticket ZX-99", host), { _tag: "Secret" })
    assert.isUndefined(Vet.problem("ticket ZX-99", settings))
    assert.isUndefined(Vet.problem("ticket AB-12", host))
  })

  it("describes each problem in a short sentence", () => {
    assert.strictEqual(Vet.describe({ _tag: "Empty" }), "the entry is empty")
    assert.strictEqual(
      Vet.describe({ _tag: "TooLong", length: 348, max: 300 }),
      "the entry is 348 characters, over the limit of 300"
    )
    assert.strictEqual(
      Vet.describe({ _tag: "Secret" }),
      "the entry looks like a secret (a key, password or ID number), which memory never keeps"
    )
  })
})
