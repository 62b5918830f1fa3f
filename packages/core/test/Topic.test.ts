import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Text from "../src/Text.ts"
import * as Topic from "../src/Topic.ts"

describe("Topic.clean", () => {
  it("trims, drops [[…]] and .md, lower-cases and joins words with -", () => {
    assert.strictEqual(Topic.clean("  Travel Plans "), "travel-plans")
    assert.strictEqual(Topic.clean("[[travel]]"), "travel")
    assert.strictEqual(Topic.clean("[[ Work Notes.md ]]"), "work-notes")
    assert.strictEqual(Topic.clean("Recipes.MD"), "recipes")
    assert.strictEqual(Topic.clean("a \t\n b"), "a-b")
    assert.strictEqual(Topic.clean("2026_trips-eu"), "2026_trips-eu")
  })

  it("keeps letters and digits of any script, one name for one spelling", () => {
    assert.strictEqual(Topic.clean("旅行"), "旅行")
    assert.strictEqual(Topic.clean("Café"), "café")
    assert.strictEqual(Topic.clean("Cafe\u0301"), "café")
    assert.strictEqual(Topic.clean("हिन्दी"), "हिन्दी")
    assert.strictEqual(Topic.clean("٣ things"), "٣-things")
  })

  it("refuses what is not a topic name", () => {
    for (const name of [
      "",
      "   ",
      "[[]]",
      "memory",
      "MEMORY.md",
      "[[Memory]]",
      "../etc",
      "a/b",
      "a\\b",
      "a.b",
      "a\u0000b",
      "-lead",
      "_lead",
      "what?",
      "emoji😀",
      "zero\u200bwidth",
      "x".repeat(49)
    ]) {
      assert.strictEqual(Topic.clean(name), undefined, JSON.stringify(name))
    }
  })

  it("accepts up to 48 characters, counted in code points", () => {
    assert.strictEqual(Topic.clean("x".repeat(48)), "x".repeat(48))
    assert.strictEqual(Topic.clean("𠀀".repeat(48)), "𠀀".repeat(48))
    assert.strictEqual(Topic.clean("𠀀".repeat(49)), undefined)
  })

  it("gives only safe names, and cleaning one again keeps it", () => {
    const unit = fc.constantFrom("a", "Q", "7", " ", "-", "_", ".", "/", "\\", "\u0000", "[", "]", "中", "é", "\u0301")
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit }), fc.string({ unit: "binary" })), (name) => {
        const cleaned = Topic.clean(name)
        if (cleaned === undefined) return
        assert.strictEqual(Topic.clean(cleaned), cleaned)
        assert.notMatch(cleaned, /[/\\.\s]/u)
        assert.notInclude(cleaned, "\u0000")
        assert.isAtLeast(Text.length(cleaned), 1)
        assert.isAtMost(Text.length(cleaned), 48)
        assert.notStrictEqual(cleaned, "memory")
      })
    )
  })
})
