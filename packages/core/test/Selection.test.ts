import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
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

/** The words of docs/spec.md 4.3 the plain way: the text lower-cased whole, read code point by code point, words as strings. */
const referenceWords = (text: string): Array<string> => {
  const found: Array<string> = []
  let run = ""
  let previousHan: string | undefined
  for (const char of text.toLowerCase()) {
    const han = /\p{Script=Han}/u.test(char)
    if (!han && /\p{Script=Latin}/u.test(char)) run += char
    else {
      if (run.length >= 3) found.push(run)
      run = ""
    }
    if (han && previousHan !== undefined) found.push(previousHan + char)
    previousHan = han ? char : undefined
  }
  if (run.length >= 3) found.push(run)
  return found
}

/** `choose` the plain way: sets of words, a sort with a comparator, `added` read with a regex. */
const referenceChoose = (
  input: Parameters<typeof Selection.choose>[0],
  budget: number
): ReturnType<typeof Selection.choose> => {
  const user = new Set(referenceWords(input.userText))
  const added = (meta: Selection.Candidate["meta"]) => {
    const value = meta.find(([key]) => key.toLowerCase() === "added")?.[1] ?? ""
    return /^\d{4}-\d{2}-\d{2}$/.test(value) ? Number(value.replaceAll("-", "")) : 0
  }
  const all = "lists" in input.topics ? input.topics.lists.flat() : input.topics
  const ranked = all
    .map((entry, i) => ({ entry, i, shared: new Set(referenceWords(entry.text).filter((w) => user.has(w))).size }))
    .sort((a, b) => b.shared - a.shared || added(b.entry.meta) - added(a.entry.meta) || a.i - b.i)
  const topics: Array<Selection.Candidate> = []
  let used = 0
  for (const { entry } of ranked) {
    used += [...entry.text].length
    if (used > budget) break
    topics.push(entry)
  }
  const shown = [...input.own, ...input.team, ...topics].map((entry, i) => ({ ...entry, number: i + 1 }))
  return { shown, hidden: all.length - topics.length }
}

/**
 * Text of Latin (ASCII, accented, İ that lower-cases to two code points, astral), Han (main block, others, astral)
 * and other characters, lone surrogates among them.
 */
const pieces = [
  "tea",
  "Tea",
  "TEA",
  "kyoto",
  "Kyoto",
  "café",
  "CAFÉ",
  "é",
  "É",
  "ß",
  "ẞ",
  "İ",
  "i",
  "ı",
  "\u212A",
  "Å",
  "ǅ",
  "ﬀ",
  "ſ",
  "\u{10780}",
  "\u{1DF00}",
  "Σ",
  "Ω",
  "😀",
  "\uD800",
  "\uDC00",
  " ",
  ".",
  "\n",
  "a",
  "b",
  "x",
  "茶",
  "绿茶",
  "喜欢",
  "㐀",
  "𠀀",
  "𠀁"
]
const mixedText = fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((pieces) => pieces.join(""))

describe("Selection.words", () => {
  it("takes Latin words of three or more letters in lower case, and pairs of adjacent Han characters", () => {
    assert.deepStrictEqual(Selection.words("I go to Café Über, OK? tea"), ["café", "über", "tea"])
    assert.deepStrictEqual(Selection.words("我喜欢喝茶。茶"), ["我喜", "喜欢", "欢喝", "喝茶"])
    assert.deepStrictEqual(Selection.words("𠀀𠀁 x"), ["𠀀𠀁"])
  })

  it("lower-cases as the whole text would: İ gives i and a dot, which ends a word", () => {
    assert.deepStrictEqual(Selection.words("ABİCDE İstanbul"), ["abi", "cde", "stanbul"])
    assert.deepStrictEqual(Selection.words("\u212Aelvin ẞtraße"), ["kelvin", "ßtraße"])
  })

  it("keeps no more units of a code point than it has, so a text's length is room enough for its words", () => {
    const wordChar = /[\p{Script=Latin}\p{Script=Han}]/u
    for (let c = 0; c <= 0x10ffff; c++) {
      const char = String.fromCodePoint(c)
      const lower = char.toLowerCase()
      if (lower !== char) assert.isAtMost([...lower].filter((x) => wordChar.test(x)).join("").length, char.length)
    }
    assert.deepStrictEqual(Selection.words("İ".repeat(5) + "A".repeat(100_000)), ["a".repeat(100_000)])
  })

  it("property: the same words as lower-casing the whole text and reading it code point by code point", () => {
    fc.assert(
      fc.property(mixedText, (text) => assert.deepStrictEqual(Selection.words(text), referenceWords(text))),
      { numRuns: 2_000 }
    )
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

  it("counts a word only when its letters are the same, not when its hash is", () => {
    // "tcbua" and "xbaee" have the same hash in the table the user's words are kept in.
    const topics = [entry("xbaee", { added: "2026-01-02" }), entry("tcbua", { added: "2026-01-01" })]
    const { shown } = Selection.choose({ own: [], team: [], topics, userText: "tcbua" }, settings)
    assert.deepStrictEqual(texts(shown), ["tcbua", "xbaee"])
  })

  it("counts a long word only when its letters are the same, not when its hash is", () => {
    // Words of 7 letters or more are looked up by a hash: "zhqulmn" and "ofiamzs" have the same one.
    const topics = [entry("ofiamzs", { added: "2026-01-02" }), entry("zhqulmn", { added: "2026-01-01" })]
    const { shown } = Selection.choose({ own: [], team: [], topics, userText: "zhqulmn" }, settings)
    assert.deepStrictEqual(texts(shown), ["zhqulmn", "ofiamzs"])
    const again = Selection.choose({ own: [], team: [], topics, userText: "ofiamzs" }, settings)
    assert.deepStrictEqual(texts(again.shown), ["ofiamzs", "zhqulmn"])
  })

  it("ranks by a long user text as the plain way does", () => {
    const words = "tea kyoto green morning billing service typescript migration database café über straße"
    const pick = (i: number) => words.split(" ")[(i * 7919) % 12]!
    const han = "用户喜欢喝绿茶早上工作在北京上海项目数据库迁移每周会议"
    const line = (i: number, size: number) =>
      Array.from({ length: size }, (_, k) => (k % 5 === 4 ? han.slice((i + k) % 20, ((i + k) % 20) + 3) : pick(i + k)))
    const topics = Array.from({ length: 400 }, (_, i) =>
      entry(line(i, 2 + (i % 9)).join(" "), { added: `2026-0${1 + (i % 9)}-1${i % 10}` })
    )
    const userText = Array.from({ length: 300 }, (_, i) => line(i * 3, 6).join(" ")).join("\n")
    assert.isAbove(userText.length, 11_000)
    const input = { own: [], team: [], topics, userText }
    assert.deepStrictEqual(Selection.choose(input, settings), referenceChoose(input, settings.shownTopicsBudget))
  })

  it("chooses the same over entries it has chosen among before, whatever was chosen in between", () => {
    const topics = [
      entry("The user drinks green tea", { added: "2026-01-01" }),
      entry("用户喜欢喝绿茶", { added: "2026-01-02" }),
      entry("The user's migration to Postgres", { added: "2026-01-03" }),
      entry("The user drinks green tea", { added: "2025-01-01" })
    ]
    const held = Selection.wordIndex()
    const check = (userText: string, topics: ReadonlyArray<Selection.Candidate>) => {
      const input = { own: [], team: [], topics, userText }
      assert.deepStrictEqual(
        Selection.choose(input, settings, held),
        referenceChoose(input, settings.shownTopicsBudget)
      )
    }
    for (const userText of ["green tea", "我喜欢喝茶", "postgres migration", "", "green tea"]) check(userText, topics)
    // Thousands of other entries in between, with more distinct words than are kept for entries no longer chosen.
    const word = (i: number) =>
      Array.from({ length: 4 }, (_, k) => String.fromCharCode(97 + (Math.floor(i / 26 ** k) % 26))).join("")
    for (let round = 0; round < 3; round++) {
      const others = Array.from({ length: 3_000 }, (_, i) =>
        entry(Array.from({ length: 12 }, (_, k) => word(round * 36_000 + i * 12 + k)).join(" "))
      )
      check(word(round * 36_000 + 5), others)
      check("green tea postgres", topics)
    }
  })

  it("matches among thousands of distinct words of the user's", () => {
    const word = (i: number) =>
      Array.from({ length: 4 }, (_, k) => String.fromCharCode(97 + (Math.floor(i / 26 ** k) % 26))).join("")
    const han = (i: number) => String.fromCharCode(0x4e00 + i, 0x4e00 + i + 1)
    const topics = Array.from({ length: 300 }, (_, i) =>
      entry(`${word(i * 11)} ${word(i * 13)} ${han(i * 5)}${han(i * 3)} ${word(i)}`, {
        added: `2026-01-0${1 + (i % 9)}`
      })
    )
    // A few user words (which a count passes other words over by one bit each), a hundred or so, and thousands.
    for (const count of [5, 60, 128, 129, 3_000]) {
      const userText = Array.from({ length: count }, (_, i) => `${word(i * 7)} ${han(i * 3)}`).join(" ")
      const input = { own: [], team: [], topics, userText }
      const chosen = Selection.choose(input, settings)
      assert.deepStrictEqual(chosen, referenceChoose(input, settings.shownTopicsBudget), `${count} user words`)
    }
  })

  it("property: chooses as sets of words, a sort and a regex would", () => {
    const candidate = fc.record({
      scope: fc.constantFrom<Selection.Candidate["scope"]>("own", "team"),
      topic: fc.constantFrom(undefined, "travel", "food"),
      text: mixedText,
      meta: fc.array(
        fc.tuple(
          fc.constantFrom("added", "Added", "ADDED", "source", "addeds"),
          fc.constantFrom("2026-01-01", "2025-12-31", "2026-1-01", "soon", "", "2026-01-01x", "２０２６-01-01")
        ),
        { maxLength: 3 }
      )
    })
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 2 }),
        fc.array(candidate, { maxLength: 2 }),
        fc.array(candidate, { maxLength: 12 }),
        fc.array(mixedText, { maxLength: 3 }).map((lines) => lines.join("\n")),
        fc.integer({ min: 0, max: 80 }),
        (own, team, topics, userText, budget) => {
          const input = { own, team, topics, userText }
          assert.deepStrictEqual(Selection.choose(input, { shownTopicsBudget: budget }), referenceChoose(input, budget))
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it("property: chooses from lists, one a file, as from one list, when the same lists are given again", () => {
    const candidate = fc.record({
      scope: fc.constantFrom<Selection.Candidate["scope"]>("own", "team"),
      topic: fc.constantFrom(undefined, "travel", "food"),
      text: mixedText,
      meta: fc.array(fc.tuple(fc.constantFrom("added", "source"), fc.constantFrom("2026-01-01", "2025-12-31", "")), {
        maxLength: 2
      })
    })
    fc.assert(
      fc.property(
        fc.array(fc.array(candidate, { maxLength: 5 }), { maxLength: 4 }),
        fc.array(mixedText, { minLength: 2, maxLength: 2 }),
        fc.integer({ min: 0, max: 80 }),
        (lists, userTexts, budget) => {
          const held = Selection.wordIndex()
          for (const userText of userTexts) {
            const input = { own: [], team: [], topics: { lists }, userText }
            const flat = { own: [], team: [], topics: lists.flat(), userText }
            assert.deepStrictEqual(
              Selection.choose(input, { shownTopicsBudget: budget }, held),
              referenceChoose(flat, budget)
            )
          }
        }
      ),
      { numRuns: 1_000 }
    )
  })

  it("chooses from lists given again after thousands of other entries were chosen among in between", () => {
    const lists = [
      [entry("The user drinks green tea", { added: "2026-01-01" }), entry("用户喜欢喝绿茶", { added: "2026-01-02" })],
      [entry("The user's migration to Postgres", { added: "2026-01-03" })]
    ]
    const held = Selection.wordIndex()
    const check = (userText: string) => {
      const input = { own: [], team: [], topics: { lists }, userText }
      const flat = { own: [], team: [], topics: lists.flat(), userText }
      assert.deepStrictEqual(Selection.choose(input, settings, held), referenceChoose(flat, settings.shownTopicsBudget))
    }
    check("green tea")
    const word = (i: number) =>
      Array.from({ length: 4 }, (_, k) => String.fromCharCode(97 + (Math.floor(i / 26 ** k) % 26))).join("")
    for (let round = 0; round < 3; round++) {
      // More distinct words than are kept for entries no longer chosen: the words are numbered again from scratch.
      const others = Array.from({ length: 3_000 }, (_, i) =>
        entry(Array.from({ length: 12 }, (_, k) => word(round * 36_000 + i * 12 + k)).join(" "))
      )
      Selection.choose({ own: [], team: [], topics: others, userText: word(round * 36_000 + 5) }, settings, held)
      check("postgres migration 喝绿茶")
    }
  })

  it("shows nothing of the topics when the budget is spent on the first one", () => {
    const topics = [entry("x".repeat(10))]
    const { shown, hidden } = Selection.choose({ own: [], team: [], topics, userText: "" }, { shownTopicsBudget: 9 })
    assert.deepStrictEqual(shown, [])
    assert.strictEqual(hidden, 1)
  })
})
