import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Recall from "../src/Recall.ts"
import * as Selection from "../src/Selection.ts"

const entry = (
  text: string,
  added: string | undefined = undefined,
  scope: "own" | "team" = "own",
  topic: string | undefined = undefined
): Recall.Candidate => ({ scope, topic, text, meta: added === undefined ? [] : [["added", added]] })

const texts = (found: Recall.Found) => found.entries.map((e) => e.text)

describe("Recall.search", () => {
  const memory = [
    entry("The user likes green tea", "2026-01-01"),
    entry("Tea is served at noon", "2026-03-01"),
    entry("The user plays chess on Sundays", "2026-02-01"),
    entry("Everyone drinks green juice", "2026-02-01", "team"),
    entry("The team ships green tea to Lyon", undefined, "team", "shipping")
  ]

  it("gives the entries sharing the most words first, then the newest, then as listed; none that shares no word", () => {
    const found = Recall.search(memory, "green tea please", Recall.unlimited)
    assert.deepStrictEqual(texts(found), [
      "The user likes green tea",
      "The team ships green tea to Lyon",
      "Tea is served at noon",
      "Everyone drinks green juice"
    ])
    assert.isFalse(found.more)
  })

  it("matches words case and order aside, and pairs of Han characters", () => {
    const chinese = [entry("用户喜欢喝绿茶"), entry("用户住在北京")]
    assert.deepStrictEqual(texts(Recall.search(chinese, "绿茶", Recall.unlimited)), ["用户喜欢喝绿茶"])
    assert.deepStrictEqual(texts(Recall.search(chinese, "北京的天气", Recall.unlimited)), ["用户住在北京"])
    assert.deepStrictEqual(texts(Recall.search(memory, "CHESS", Recall.unlimited)), ["The user plays chess on Sundays"])
  })

  it("finds the entries that hold a query of no word (short, one Han character) as text", () => {
    assert.deepStrictEqual(texts(Recall.search(memory, " AT ", Recall.unlimited)), ["Tea is served at noon"])
    const chinese = [entry("用户喜欢喝绿茶"), entry("用户住在北京")]
    assert.deepStrictEqual(texts(Recall.search(chinese, "茶", Recall.unlimited)), ["用户喜欢喝绿茶"])
    assert.deepStrictEqual(Recall.search(memory, "zz", Recall.unlimited), { entries: [], more: false })
  })

  it("gives every entry for an empty query, the newest first, undated last", () => {
    assert.deepStrictEqual(texts(Recall.search(memory, "  ", Recall.unlimited)), [
      "Tea is served at noon",
      "The user plays chess on Sundays",
      "Everyone drinks green juice",
      "The user likes green tea",
      "The team ships green tea to Lyon"
    ])
  })

  it("gives at most resultsMax entries within the budget, and says whether more match", () => {
    const found = Recall.search(memory, "green tea", { resultsMax: 2, budget: 1_000 })
    assert.deepStrictEqual(texts(found), ["The user likes green tea", "The team ships green tea to Lyon"])
    assert.isTrue(found.more)
    // 24 + 32 characters: the second does not fit in 50, and nothing after it is taken in its place.
    const cut = Recall.search(memory, "green tea", { resultsMax: 10, budget: 50 })
    assert.deepStrictEqual(texts(cut), ["The user likes green tea"])
    assert.isTrue(cut.more)
    // Exactly the matches' 24 + 32 + 21 + 27 characters: all of them, and no more.
    const exact = Recall.search(memory, "green tea", { resultsMax: 10, budget: 104 })
    assert.strictEqual(exact.entries.length, 4)
    assert.isFalse(exact.more)
    assert.isTrue(Recall.search(memory, "green tea", { resultsMax: 10, budget: 103 }).more)
    const newest = Recall.search(memory, "", { resultsMax: 2, budget: 1_000 })
    assert.deepStrictEqual(texts(newest), ["Tea is served at noon", "The user plays chess on Sundays"])
    assert.isTrue(newest.more)
  })

  it("always gives the first entry found, however long, and counts the budget in code points", () => {
    assert.deepStrictEqual(Recall.search(memory, "chess", { resultsMax: 10, budget: 1 }), {
      entries: [memory[2]!],
      more: false
    })
    const long = Recall.search(memory, "green tea", { resultsMax: 10, budget: 1 })
    assert.deepStrictEqual(texts(long), ["The user likes green tea"])
    assert.isTrue(long.more)
    assert.deepStrictEqual(texts(Recall.search(memory, "AT", { resultsMax: 10, budget: 1 })), ["Tea is served at noon"])
    const emoji = [entry("tea 😀😀😀😀", "2026-02-01"), entry("tea 😀😀😀😀", "2026-01-01")]
    // 8 characters each (16 UTF-16 units): both fit in 16.
    assert.strictEqual(Recall.search(emoji, "tea", { resultsMax: 10, budget: 16 }).entries.length, 2)
    assert.strictEqual(Recall.search(emoji, "tea", { resultsMax: 10, budget: 15 }).entries.length, 1)
  })

  it("property: it finds exactly the entries sharing a word with the query (or holding a query of none), each once", () => {
    const word = fc.constantFrom("tea", "green", "chess", "lyon", "user", "绿茶", "北京", "an", "茶")
    const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(" "))
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), text, (entries, query) => {
        const candidates = entries.map((t, i) => entry(t, `2026-01-${String((i % 28) + 1).padStart(2, "0")}`))
        const terms = new Set(Selection.words(query))
        const expected = candidates.filter((c) =>
          terms.size === 0 ? c.text.includes(query) : Selection.words(c.text).some((w) => terms.has(w))
        )
        const found = Recall.search(candidates, query, Recall.unlimited)
        assert.isFalse(found.more)
        assert.deepStrictEqual(found.entries.map((e) => e.text).toSorted(), expected.map((e) => e.text).toSorted())
        const some = Recall.search(candidates, query, { resultsMax: 3, budget: 40 })
        assert.deepStrictEqual(
          some.entries.map((e) => e.text),
          found.entries.slice(0, some.entries.length).map((e) => e.text)
        )
        assert.strictEqual(some.more, some.entries.length < expected.length)
      }),
      { numRuns: 500 }
    )
  })
})
