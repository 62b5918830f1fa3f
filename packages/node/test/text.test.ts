/** The CLI's text helpers: the columns text takes on a terminal, and columns padded by it. */
import { assert, describe, it } from "@effect/vitest"
import * as Txt from "../src/internal/text.ts"

describe("text width", () => {
  it("counts the columns a terminal gives each character", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["", 0],
      ["plain text", 10],
      ["漢字", 4],
      ["한국어", 6],
      ["かな", 4],
      ["ｶﾀｶﾅ", 4],
      ["ＡＢ", 4],
      ["「、」", 6],
      ["e\u0301", 1],
      ["\u0301", 0],
      ["a\u200bb", 2],
      ["soft\u00adhyphen", 10],
      ["\ufeffbom", 3],
      ["😀", 2],
      ["🍵 tea", 6],
      ["❤", 1],
      ["❤\ufe0f", 2],
      ["1\ufe0f\u20e3", 2],
      ["👨\u200d👩\u200d👧", 2],
      ["🇯🇵", 2],
      ["👍🏽", 2],
      ["𠀋", 2],
      ["\u001b[2mdim\u001b[22m", 3],
      ["\u001b[31m漢\u001b[39m", 2]
    ]
    for (const [text, columns] of cases) assert.strictEqual(Txt.width(text), columns, JSON.stringify(text))
  })

  it("is linear: a long text of every kind is measured at once", () => {
    const long = "漢a😀e\u0301\u001b[1m!\u001b[22m".repeat(50_000)
    const start = performance.now()
    assert.strictEqual(Txt.width(long), 7 * 50_000)
    assert.isBelow(performance.now() - start, 5_000)
  })

  it("pads and aligns columns by width, not by code points", () => {
    assert.strictEqual(Txt.pad("漢字", 6), "漢字  ")
    assert.strictEqual(Txt.padStart("😀", 4), "  😀")
    assert.deepStrictEqual(
      Txt.table(
        [
          ["own", "茶", "green tea"],
          ["team", "-", "🍵 every Friday"],
          ["own", "tea", "oolong"]
        ],
        ""
      ),
      ["own   茶   green tea", "team  -    🍵 every Friday", "own   tea  oolong"]
    )
  })
})
