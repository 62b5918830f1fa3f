import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Match from "../src/Match.ts"
import * as MemoryFile from "../src/MemoryFile.ts"

const entries = (...texts: ReadonlyArray<string>) =>
  MemoryFile.parse(["# Memory", "", ...texts.map((text) => `- ${text} [added: 2026-01-01]`)].join("\n")).entries

/** The text of the entry found, or the candidates listed. */
const outcome = (found: Match.Found) =>
  Result.isSuccess(found) ? { entry: found.success.text } : { candidates: found.failure }

describe("Match.find (docs/spec.md 3)", () => {
  const memory = entries("The user likes green tea", "The user likes black tea", "Likes tea", "Lives in Oslo")

  it("takes the entry with exactly that text, even when others contain it", () => {
    assert.deepStrictEqual(outcome(Match.find(memory, "Likes tea")), { entry: "Likes tea" })
  })

  it("else the one entry equal to it with case and white space ignored", () => {
    assert.deepStrictEqual(outcome(Match.find(memory, "  likes   TEA ")), { entry: "Likes tea" })
  })

  it("else the only entry containing it (case and white space ignored)", () => {
    assert.deepStrictEqual(outcome(Match.find(memory, "in  OSLO")), { entry: "Lives in Oslo" })
    assert.deepStrictEqual(outcome(Match.find(memory, "green")), { entry: "The user likes green tea" })
  })

  it("cleans the match as an entry: a quoted bullet with metadata names its entry", () => {
    assert.deepStrictEqual(outcome(Match.find(memory, "- the user likes BLACK tea [source: c #1]")), {
      entry: "The user likes black tea"
    })
  })

  it("several entries containing it is no match, listing them", () => {
    assert.deepStrictEqual(outcome(Match.find(memory, "user likes")), {
      candidates: ["The user likes green tea", "The user likes black tea"]
    })
  })

  it("two entries equal to it but for case are both candidates", () => {
    assert.deepStrictEqual(outcome(Match.find(entries("Tea", "TEA"), "tea")), { candidates: ["Tea", "TEA"] })
  })

  it("nothing containing it, or an empty match, is no match without candidates", () => {
    assert.deepStrictEqual(outcome(Match.find(memory, "rooibos")), { candidates: [] })
    assert.deepStrictEqual(outcome(Match.find(memory, "   ")), { candidates: [] })
    assert.deepStrictEqual(outcome(Match.find([], "tea")), { candidates: [] })
  })

  it("lists at most eight candidates, in file order", () => {
    const notes = entries(...Array.from({ length: 11 }, (_, i) => `note ${i}`))
    assert.deepStrictEqual(outcome(Match.find(notes, "note")), {
      candidates: Array.from({ length: 8 }, (_, i) => `note ${i}`)
    })
  })
})

describe("Match.exact", () => {
  it("takes only the entry whose text is exactly the given text", () => {
    const memory = entries("Likes tea with milk", "Likes tea")
    const found = Match.exact(memory, "Likes tea")
    assert.deepStrictEqual(outcome(found), { entry: "Likes tea" })
    assert.strictEqual(Result.isSuccess(found) ? found.success.line : -1, 3)
  })

  it("never an entry that merely contains it, or equals it but for case: no match, no candidates", () => {
    const memory = entries("Likes tea with milk", "LIKES TEA")
    assert.deepStrictEqual(outcome(Match.exact(memory, "Likes tea")), { candidates: [] })
    assert.deepStrictEqual(outcome(Match.find(memory, "Likes tea")), { entry: "LIKES TEA" })
  })

  it("cleans the given text as an entry, so an entry's own line names it", () => {
    const memory = entries("Likes tea")
    assert.deepStrictEqual(outcome(Match.exact(memory, "- Likes  tea [added: 2026-01-01]")), { entry: "Likes tea" })
    assert.deepStrictEqual(outcome(Match.exact(memory, "")), { candidates: [] })
  })
})
