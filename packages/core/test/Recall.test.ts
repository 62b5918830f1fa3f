import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Recall from "../src/Recall.ts"

const entry = (
  text: string,
  added: string | undefined = undefined,
  scope: "own" | "team" = "own",
  topic: string | undefined = undefined
): Recall.Candidate => ({ scope, topic, text, meta: added === undefined ? [] : [["added", added]] })

const texts = (found: Recall.Found) => found.entries.map((e) => e.text)

/** The texts `query` finds in `memory`, every one that is relevant. */
const find = (memory: ReadonlyArray<Recall.Candidate>, query: string, today?: string) =>
  texts(Recall.search(memory, query, Recall.unlimited, { today }))

describe("Recall.search", () => {
  const work = [
    entry("Fennel Health deploys on Thursdays", "2026-05-14"),
    entry("The team keeps billing data in PostgreSQL 16", "2026-03-02"),
    entry("The user likes green tea", "2026-01-01"),
    entry("The user plays chess on Sundays", "2026-02-01")
  ]

  it("finds an entry by a word in another form: deploy, Thursday, postgres", () => {
    assert.deepStrictEqual(find(work, "deploy"), ["Fennel Health deploys on Thursdays"])
    assert.deepStrictEqual(find(work, "Thursday"), ["Fennel Health deploys on Thursdays"])
    assert.deepStrictEqual(find(work, "when do we deploy?"), ["Fennel Health deploys on Thursdays"])
    assert.deepStrictEqual(find(work, "postgres"), ["The team keeps billing data in PostgreSQL 16"])
  })

  it("folds word forms: endings by their stem, irregular verbs and plurals by their base form", () => {
    const memory = [
      entry("The release process is changing in spring"),
      entry("The user ran a charity race last Saturday"),
      entry("The user's children love dinosaurs")
    ]
    assert.deepStrictEqual(find(memory, "changes"), ["The release process is changing in spring"])
    assert.deepStrictEqual(
      find(memory, "When did the user run a race?")[0],
      "The user ran a charity race last Saturday"
    )
    assert.deepStrictEqual(
      find([entry("The user walks"), entry("The user ran a marathon")], "Did the user run?")[0],
      "The user ran a marathon"
    )
    assert.deepStrictEqual(find(memory, "child"), ["The user's children love dinosaurs"])
    assert.deepStrictEqual(find([entry("Le café est fermé le lundi")], "cafe ferme"), ["Le café est fermé le lundi"])
  })

  it("does not count stop words and question words, unless the query has no other", () => {
    const memory = [entry("When the user is tired, the user drinks tea"), entry("The deadline is in March")]
    // "when", "did", "the" are in both entries or none: only "deadline" counts.
    assert.deepStrictEqual(find(memory, "When is the deadline?"), ["The deadline is in March"])
    // Nothing but stop words: they count after all.
    assert.deepStrictEqual(find(memory, "when"), ["When the user is tired, the user drinks tea"])
    assert.deepStrictEqual(find(memory, "what about it"), [])
  })

  it("meets a date the query names with the entries added then", () => {
    const memory = [
      entry("The user went hiking with Ada", "2023-05-20"),
      entry("The user went hiking alone", "2023-06-02"),
      entry("The user adopted a cat", "2025-10-12"),
      entry("The user painted a sunset", "2026-06-09")
    ]
    assert.deepStrictEqual(find(memory, "hiking in May 2023")[0], "The user went hiking with Ada")
    assert.deepStrictEqual(find(memory, "hiking in June")[0], "The user went hiking alone")
    assert.deepStrictEqual(find(memory, "What happened on 2 June 2023?"), ["The user went hiking alone"])
    assert.deepStrictEqual(find(memory, "2023-05-20"), ["The user went hiking with Ada"])
    // "last October" is the latest October before this month, "yesterday" the day before today.
    assert.deepStrictEqual(find(memory, "What happened last October?", "2026-06-10"), ["The user adopted a cat"])
    assert.deepStrictEqual(find(memory, "What happened last October?", "2025-11-01"), ["The user adopted a cat"])
    assert.deepStrictEqual(find(memory, "What happened last October?", "2025-10-20"), [])
    assert.deepStrictEqual(find(memory, "anything yesterday?", "2026-06-10"), ["The user painted a sunset"])
    // Without today's date, a relative date names none; "may" and "march" are words too.
    assert.deepStrictEqual(find(memory, "anything yesterday?"), [])
    assert.deepStrictEqual(find(memory, "May I ask about the cat?"), ["The user adopted a cat"])
  })

  it("matches Han characters by pairs, kana and Hangul as well, and a query of one such character by it", () => {
    const chinese = [entry("用户喜欢喝绿茶"), entry("用户住在北京")]
    assert.deepStrictEqual(find(chinese, "绿茶"), ["用户喜欢喝绿茶"])
    assert.deepStrictEqual(find(chinese, "北京的天气"), ["用户住在北京"])
    assert.deepStrictEqual(find(chinese, "茶"), ["用户喜欢喝绿茶"])
    const japanese = [entry("ユーザーは東京に住んでいる"), entry("データベースを毎週バックアップする")]
    assert.deepStrictEqual(find(japanese, "東京"), ["ユーザーは東京に住んでいる"])
    assert.deepStrictEqual(find(japanese, "データ"), ["データベースを毎週バックアップする"])
    const korean = [entry("사용자는 서울에서 일한다"), entry("사용자는 녹차를 좋아한다")]
    assert.deepStrictEqual(find(korean, "서울"), ["사용자는 서울에서 일한다"])
    assert.deepStrictEqual(find(korean, "녹차"), ["사용자는 녹차를 좋아한다"])
  })

  it("counts a query's word that begins a longer word as a share of it: after the entries holding the word itself", () => {
    const memory = [
      entry("PostgreSQL runs the billing service"),
      entry("Lunch is at noon"),
      entry("Postgres backups run nightly")
    ]
    const found = Recall.search(memory, "postgres", Recall.unlimited)
    assert.deepStrictEqual(texts(found), ["Postgres backups run nightly", "PostgreSQL runs the billing service"])
    assert.isBelow(found.entries[1]!.score, found.entries[0]!.score * 0.6)
    // A word of fewer than 3 letters begins none.
    assert.deepStrictEqual(find(memory, "po"), [])
  })

  it("gives nothing for a query nothing in memory shares", () => {
    assert.deepStrictEqual(Recall.search(work, "quantum physics", Recall.unlimited), { entries: [], more: false })
    assert.deepStrictEqual(Recall.search(work, "zz", Recall.unlimited), { entries: [], more: false })
    assert.deepStrictEqual(Recall.search([], "tea", Recall.unlimited), { entries: [], more: false })
  })

  it("ranks by how rare the shared words are, each entry with its score, and leaves out what only shares common ones", () => {
    const memory = [
      entry("The user drinks coffee at home"),
      entry("The user drinks tea at work"),
      entry("The user drinks water at the gym"),
      entry("Oolong is the user's favourite tea, from Taiwan"),
      entry("The user drinks juice with lunch")
    ]
    // "tea" is in two entries, "drinks" in four, "user" in all: the tea entries first, though the others share as many.
    const tea = Recall.search(memory, "Does the user drink tea?", Recall.unlimited)
    assert.sameMembers(texts(tea).slice(0, 2), [
      "The user drinks tea at work",
      "Oolong is the user's favourite tea, from Taiwan"
    ])
    const scores = tea.entries.map((e) => e.score)
    assert.deepStrictEqual(
      scores,
      scores.toSorted((a, b) => b - a)
    )
    assert.isAbove(scores[1]!, scores[2]!)
    // "oolong" is in one, "tea" in two: the entries that only share "drinks" and "user" are not relevant beside them.
    assert.deepStrictEqual(find(memory, "Which oolong tea does the user drink?"), [
      "Oolong is the user's favourite tea, from Taiwan",
      "The user drinks tea at work"
    ])
  })

  it("breaks only ties by recency: the newest first, then as listed; an older entry that means more stays first", () => {
    const memory = [
      entry("Ada likes tea", "2026-01-01"),
      entry("Bob likes tea", "2026-03-01"),
      entry("Cy likes tea", undefined),
      entry("Dee likes tea", "2026-03-01"),
      entry("Eve likes green tea and green tea cake", "2025-01-01")
    ]
    assert.deepStrictEqual(find(memory, "green tea"), ["Eve likes green tea and green tea cake"])
    const tied = Recall.search(memory.slice(0, 4), "likes tea", Recall.unlimited)
    assert.deepStrictEqual(texts(tied), ["Bob likes tea", "Dee likes tea", "Ada likes tea", "Cy likes tea"])
    assert.strictEqual(new Set(tied.entries.map((e) => e.score)).size, 1)
  })

  it("ranks an entry whose subject the query names above one that only mentions it", () => {
    const memory = [entry("Ben said Ada should rest more"), entry("Ada rests on Sundays, says Ben")]
    assert.deepStrictEqual(find(memory, "When does Ada rest?"), [
      "Ada rests on Sundays, says Ben",
      "Ben said Ada should rest more"
    ])
  })

  it("lifts an entry that matches by the entry beside it that matches better, as entries written together go together", () => {
    const memory = [
      entry("Ada asked which pottery class the user took"),
      entry("Thanks, it was the Thursday class"),
      entry("The user took a long walk"),
      entry("The user likes tea"),
      entry("A class on pottery glazes starts in May")
    ]
    // The answer shares only "class": alone, a third of what the question beside it scores; with it, relevant.
    const found = Recall.search(memory, "Which pottery class did the user take?", Recall.unlimited)
    assert.deepStrictEqual(texts(found)[0], "Ada asked which pottery class the user took")
    assert.include(texts(found), "Thanks, it was the Thursday class")
    // Its neighbour does not make an entry that shares no word with the query relevant.
    const alone = [entry("The user adores pottery"), entry("Thanks, it was great")]
    assert.deepStrictEqual(find(alone, "pottery"), ["The user adores pottery"])
  })

  it("reads the words of Chinese, names and numbers case aside", () => {
    assert.deepStrictEqual(find(work, "CHESS"), ["The user plays chess on Sundays"])
    assert.deepStrictEqual(find(work, "16"), ["The team keeps billing data in PostgreSQL 16"])
    assert.deepStrictEqual(find(work, "fennel health"), ["Fennel Health deploys on Thursdays"])
  })

  it("finds the entries that hold a query of no word (one letter, a sign) as text, the newest first", () => {
    const memory = [entry("Plan B is the fallback", "2026-01-01"), entry("Use plan b + c", "2026-02-01")]
    assert.deepStrictEqual(find(memory, " b "), ["Use plan b + c", "Plan B is the fallback"])
    assert.deepStrictEqual(find(memory, "+"), ["Use plan b + c"])
    assert.deepStrictEqual(find(memory, "#"), [])
  })

  const memory = [
    entry("The user likes green tea", "2026-01-01"),
    entry("Tea is served at noon", "2026-03-01"),
    entry("The user plays chess on Sundays", "2026-02-01"),
    entry("Everyone drinks green juice", "2026-02-01", "team"),
    entry("The team ships green tea to Lyon", undefined, "team", "shipping")
  ]

  it("gives every entry for an empty query, the newest first, undated last", () => {
    assert.deepStrictEqual(find(memory, "  "), [
      "Tea is served at noon",
      "The user plays chess on Sundays",
      "Everyone drinks green juice",
      "The user likes green tea",
      "The team ships green tea to Lyon"
    ])
  })

  it("gives at most resultsMax entries within the budget, and says whether more are relevant", () => {
    const teas = [
      entry("Green tea: sencha", "2026-01-04"),
      entry("Green tea: gyokuro", "2026-01-03"),
      entry("Green tea: matcha", "2026-01-02"),
      entry("Green tea: bancha", "2026-01-01")
    ]
    const found = Recall.search(teas, "green tea", { resultsMax: 2, budget: 1_000 })
    assert.deepStrictEqual(texts(found), ["Green tea: sencha", "Green tea: gyokuro"])
    assert.isTrue(found.more)
    // 17 + 18 characters: the second does not fit in 30, and nothing after it is taken in its place.
    const cut = Recall.search(teas, "green tea", { resultsMax: 10, budget: 30 })
    assert.deepStrictEqual(texts(cut), ["Green tea: sencha"])
    assert.isTrue(cut.more)
    // Exactly the four's 17 + 18 + 17 + 17 characters: all of them, and no more.
    const exact = Recall.search(teas, "green tea", { resultsMax: 10, budget: 69 })
    assert.strictEqual(exact.entries.length, 4)
    assert.isFalse(exact.more)
    assert.isTrue(Recall.search(teas, "green tea", { resultsMax: 10, budget: 68 }).more)
    const newest = Recall.search(memory, "", { resultsMax: 2, budget: 1_000 })
    assert.deepStrictEqual(texts(newest), ["Tea is served at noon", "The user plays chess on Sundays"])
    assert.isTrue(newest.more)
  })

  it("always gives the first entry found, however long, and counts the budget in code points", () => {
    const chess = Recall.search(memory, "chess", { resultsMax: 10, budget: 1 })
    assert.deepStrictEqual(texts(chess), ["The user plays chess on Sundays"])
    assert.isFalse(chess.more)
    assert.deepStrictEqual(texts(Recall.search(memory, "+", { resultsMax: 10, budget: 1 })), [])
    const emoji = [entry("tea 😀😀😀😀", "2026-02-01"), entry("tea 😀😀😀😀", "2026-01-01")]
    // 8 characters each (16 UTF-16 units): both fit in 16.
    assert.strictEqual(Recall.search(emoji, "tea", { resultsMax: 10, budget: 16 }).entries.length, 2)
    assert.strictEqual(Recall.search(emoji, "tea", { resultsMax: 10, budget: 15 }).entries.length, 1)
  })

  const word = fc.constantFrom("tea", "teas", "green", "chess", "lyon", "user", "绿茶", "北京", "an", "茶", "the", "x")
  const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(" "))
  const memories = fc
    .array(text, { maxLength: 30 })
    .map((entries) => entries.map((t, i) => entry(t, `2026-01-${String((i % 28) + 1).padStart(2, "0")}`)))

  it("property: what it gives shares a word with the query, best first, and a limited search gives the first of them", () => {
    fc.assert(
      fc.property(memories, text, (candidates, query) => {
        const found = Recall.search(candidates, query, Recall.unlimited)
        assert.isFalse(found.more)
        const scores = found.entries.map((e) => e.score)
        assert.deepStrictEqual(
          scores,
          scores.toSorted((a, b) => b - a)
        )
        for (const given of found.entries) {
          const shared = Recall.search([given], query, Recall.unlimited)
          assert.strictEqual(shared.entries.length, 1, `${JSON.stringify(given.text)} shares nothing with ${query}`)
        }
        const some = Recall.search(candidates, query, { resultsMax: 3, budget: 40 })
        assert.deepStrictEqual(
          some.entries.map((e) => e.text),
          found.entries.slice(0, some.entries.length).map((e) => e.text)
        )
        assert.strictEqual(some.more, some.entries.length < found.entries.length)
      }),
      { numRuns: 500 }
    )
  })

  it("property: memory given as indexes finds what the entries find, and an index kept finds what a new one does", () => {
    fc.assert(
      fc.property(memories, fc.integer({ min: 1, max: 5 }), text, text, (candidates, files, earlier, query) => {
        const lists = Array.from({ length: files }, (_, f) => candidates.filter((_, i) => i % files === f))
        const kept = lists.map(Recall.index)
        Recall.search({ indexes: kept }, earlier, Recall.unlimited)
        const fresh = Recall.search({ indexes: lists.map(Recall.index) }, query, Recall.unlimited)
        assert.deepStrictEqual(Recall.search({ indexes: kept }, query, Recall.unlimited), fresh)
        // One file: the same as its entries given whole (with several, neighbours are read within each file).
        if (files === 1) assert.deepStrictEqual(fresh, Recall.search(candidates, query, Recall.unlimited))
      }),
      { numRuns: 300 }
    )
  })
})
