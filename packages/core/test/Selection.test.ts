import { assert, describe, it } from "@effect/vitest"
import * as MemoryConfig from "../src/MemoryConfig.ts"
import * as Selection from "../src/Selection.ts"

const settings = MemoryConfig.defaults

const entry = (
  text: string,
  options: { scope?: "own" | "team"; topic?: string; added?: string } = {}
): Selection.Candidate => ({
  scope: options.scope ?? "own",
  topic: options.topic,
  text,
  meta: options.added === undefined ? [] : [["added", options.added]]
})

const texts = (shown: ReadonlyArray<Selection.Shown>) => shown.map((e) => e.text)

describe("Selection.words", () => {
  it("takes Latin words of three or more letters in lower case, and pairs of adjacent Han characters", () => {
    assert.deepStrictEqual(Selection.words("I go to Café Über, OK? tea"), ["café", "über", "tea"])
    assert.deepStrictEqual(Selection.words("我喜欢喝茶。茶"), ["我喜", "喜欢", "欢喝", "喝茶"])
    assert.deepStrictEqual(Selection.words("𠀀𠀁 x"), ["𠀀𠀁"])
  })
})

describe("Selection.choose", () => {
  it("shows both MEMORY.md files whole, own first, then team, numbered from 1, whatever the budget", () => {
    const own = Array.from({ length: 30 }, (_, i) => entry(`own fact ${i} `.padEnd(300, "o")))
    const team = Array.from({ length: 30 }, (_, i) => entry(`team fact ${i} `.padEnd(300, "t"), { scope: "team" }))
    const { shown, hidden } = Selection.choose({ own, team, topics: [], userText: "" }, { shownTopicsBudget: 10 })
    assert.deepStrictEqual(
      texts(shown),
      [...own, ...team].map((e) => e.text)
    )
    assert.deepStrictEqual(
      shown.map((e) => e.number),
      Array.from({ length: 60 }, (_, i) => i + 1)
    )
    assert.strictEqual(shown[30]?.scope, "team")
    assert.strictEqual(hidden, 0)
  })

  it("shows topic entries sharing words with the user first, then the newest, undated last", () => {
    const topics = [
      entry("The user visited Lisbon", { topic: "travel", added: "2026-01-01" }),
      entry("The user has a cat", { topic: "home" }),
      entry("The user drinks green TEA daily", { topic: "food", added: "2025-03-01" }),
      entry("The user moved to Berlin", { topic: "home", added: "2026-05-01" }),
      entry("The user plays chess", { topic: "hobbies", added: "2026-03-01" })
    ]
    const { shown, hidden } = Selection.choose(
      { own: [entry("The user is called Kim")], team: [], topics, userText: "Which tea should I buy?" },
      settings
    )
    assert.deepStrictEqual(texts(shown), [
      "The user is called Kim",
      "The user drinks green TEA daily",
      "The user moved to Berlin",
      "The user plays chess",
      "The user visited Lisbon",
      "The user has a cat"
    ])
    assert.deepStrictEqual(
      shown.map((e) => [e.number, e.topic]),
      [
        [1, undefined],
        [2, "food"],
        [3, "home"],
        [4, "hobbies"],
        [5, "travel"],
        [6, "home"]
      ]
    )
    assert.strictEqual(hidden, 0)
  })

  it("ranks an entry sharing more distinct words above one sharing fewer", () => {
    const topics = [
      entry("The user likes tea", { added: "2026-09-01" }),
      entry("The user buys tea in Kyoto", { added: "2020-01-01" }),
      entry("tea tea tea tea", { added: "2026-10-01" })
    ]
    const { shown } = Selection.choose({ own: [], team: [], topics, userText: "tea shops in kyoto" }, settings)
    assert.deepStrictEqual(texts(shown), ["The user buys tea in Kyoto", "tea tea tea tea", "The user likes tea"])
  })

  it("matches Han text by pairs of adjacent characters, not single characters", () => {
    const topics = [
      entry("用户喜欢绿茶", { added: "2020-01-01" }),
      entry("用户住在上海", { added: "2026-01-01" }),
      entry("茶很好", { added: "2025-01-01" })
    ]
    const { shown } = Selection.choose({ own: [], team: [], topics, userText: "我喜欢喝茶" }, settings)
    assert.deepStrictEqual(texts(shown), ["用户喜欢绿茶", "用户住在上海", "茶很好"])
  })

  it("ignores words of fewer than three letters and case", () => {
    const topics = [entry("We go to it", { added: "2026-01-02" }), entry("PYTHON is used", { added: "2026-01-01" })]
    const { shown } = Selection.choose({ own: [], team: [], topics, userText: "go to it in python" }, settings)
    assert.deepStrictEqual(texts(shown), ["PYTHON is used", "We go to it"])
  })

  it("breaks ties by the order the topics are given", () => {
    const topics = [
      entry("first entry", { topic: "b", added: "2026-01-01" }),
      entry("second entry", { topic: "a", added: "2026-01-01", scope: "team" }),
      entry("third entry", { topic: "a", added: "2026-01-01" })
    ]
    const { shown } = Selection.choose({ own: [], team: [], topics, userText: "nothing shared" }, settings)
    assert.deepStrictEqual(texts(shown), ["first entry", "second entry", "third entry"])
  })

  it("treats an `added` that is not a date as no date", () => {
    const topics = [entry("a", { added: "soon" }), entry("b", { added: "2001-01-01" })]
    const { shown } = Selection.choose({ own: [], team: [], topics, userText: "" }, settings)
    assert.deepStrictEqual(texts(shown), ["b", "a"])
  })

  it("shows topic entries while 16,000 characters of entry text last, and counts those not shown", () => {
    const topics = Array.from({ length: 200 }, (_, i) =>
      entry(`e${String(i).padStart(3, "0")}`.padEnd(100, "."), { added: `2026-01-01` })
    )
    const { shown, hidden } = Selection.choose(
      { own: [entry("own")], team: [entry("team", { scope: "team" })], topics, userText: "" },
      settings
    )
    assert.strictEqual(shown.length, 2 + 160)
    assert.strictEqual(hidden, 40)
    assert.strictEqual(shown.at(-1)?.number, 162)
    assert.strictEqual(shown.at(-1)?.text, topics[159]?.text)
  })

  it("measures the budget in characters and stops at the first entry that no longer fits", () => {
    const topics = [
      entry("😀".repeat(60), { added: "2026-01-03" }),
      entry("x".repeat(50), { added: "2026-01-02" }),
      entry("y", { added: "2026-01-01" })
    ]
    const { shown, hidden } = Selection.choose({ own: [], team: [], topics, userText: "" }, { shownTopicsBudget: 100 })
    assert.deepStrictEqual(texts(shown), ["😀".repeat(60)])
    assert.strictEqual(hidden, 2)
  })

  it("shows nothing of the topics when the budget is spent on the first one", () => {
    const topics = [entry("x".repeat(10))]
    const { shown, hidden } = Selection.choose({ own: [], team: [], topics, userText: "" }, { shownTopicsBudget: 9 })
    assert.deepStrictEqual(shown, [])
    assert.strictEqual(hidden, 1)
  })
})
