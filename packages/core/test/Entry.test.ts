import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Entry from "../src/Entry.ts"

/** Text rich in the characters the format cares about. */
const tricky = fc.string({
  unit: fc.constantFrom(..."aZ7 \t\n\r-*[]:;#中😀\u2028", "[k: v]", "[a: 1; b: 2]", "k:")
})
const anyText = fc.oneof(tricky, fc.string({ unit: "binary" }))
const key = fc.stringMatching(/^[a-zA-Zé][a-z0-9_-]{0,8}$/)
/** A value already as it is written: no `;`, `[`, `]`, no line breaks, folded, not empty. */
const plainValue = fc.stringMatching(/^[a-z0-9#:.-]+( [a-z0-9#:.-]+){0,3}$/)

describe("Entry.clean", () => {
  it("folds white space, drops leading bullets and trailing metadata", () => {
    assert.strictEqual(Entry.clean("  The user\tlikes\n\n tea  "), "The user likes tea")
    assert.strictEqual(Entry.clean("- * - The user likes tea"), "The user likes tea")
    assert.strictEqual(Entry.clean("The user likes tea [source: part 1 #10; added: 2026-11-06]"), "The user likes tea")
    assert.strictEqual(Entry.clean("tea [a: 1] [b: 2]"), "tea")
  })

  it("keeps what is not a bullet or not metadata", () => {
    assert.strictEqual(Entry.clean("-5 degrees is cold"), "-5 degrees is cold")
    assert.strictEqual(Entry.clean("*important* fact"), "*important* fact")
    assert.strictEqual(Entry.clean("see note [1]"), "see note [1]")
    assert.strictEqual(Entry.clean("a link [[travel]]"), "a link [[travel]]")
    assert.strictEqual(Entry.clean("x [see also: y]"), "x [see also: y]")
    assert.strictEqual(Entry.clean("x [1st: y]"), "x [1st: y]")
    assert.strictEqual(Entry.clean("x [a: 1; just words]"), "x [a: 1; just words]")
    assert.strictEqual(Entry.clean("x [a: 1] and more"), "x [a: 1] and more")
    assert.strictEqual(Entry.clean("unclosed [key: value"), "unclosed [key: value")
  })

  it("leaves nothing of a line that is only bullets and metadata", () => {
    assert.strictEqual(Entry.clean("- * -"), "")
    assert.strictEqual(Entry.clean("- [source: x]"), "")
  })

  it("is idempotent", () => {
    fc.assert(fc.property(anyText, (text) => Entry.clean(Entry.clean(text)) === Entry.clean(text)))
  })

  it("cleans and splits hostile input of a megabyte as what it is (its time is measured by `pnpm bench format`)", () => {
    const hostile: ReadonlyArray<readonly [string, string, number]> = [
      ["[key:".repeat(200_000), "[key:".repeat(200_000), 0],
      [" ".repeat(1_000_000) + "x", "x", 0],
      ["[a: b]".repeat(170_000), "", 1],
      ["[" + "a: b;".repeat(200_000) + "]", "", 200_000],
      ["x]".repeat(500_000), "x]".repeat(500_000), 0],
      ["- ".repeat(500_000) + "x", "x", 0]
    ]
    for (const [text, cleaned, pairs] of hostile) {
      assert.strictEqual(Entry.clean(text), cleaned, text.slice(0, 20))
      const split = Entry.split(text)
      assert.strictEqual(split.text, cleaned, text.slice(0, 20))
      assert.strictEqual(split.meta.length, pairs, text.slice(0, 20))
    }
  })
})

describe("Entry.split", () => {
  it("splits the text from the metadata, in order", () => {
    assert.deepStrictEqual(Entry.split("The user likes tea [source: part 1 #10; added: 2026-11-06]"), {
      text: "The user likes tea",
      meta: [
        ["source", "part 1 #10"],
        ["added", "2026-11-06"]
      ]
    })
  })

  it("reads values with colons, spaces and empty parts", () => {
    assert.deepStrictEqual(Entry.split("call at 10:30 [time:  10:30  am ;; by: Ann;]"), {
      text: "call at 10:30",
      meta: [
        ["time", "10:30 am"],
        ["by", "Ann"]
      ]
    })
  })

  it("trims every kind of white space around a value, and keeps the white space inside it as one space", () => {
    assert.deepStrictEqual(Entry.split("x [a:\u3000b\u00a0; c: \t d \n e\u2028]").meta, [
      ["a", "b"],
      ["c", "d e"]
    ])
    assert.deepStrictEqual(Entry.split("x [a:  ; b: 1]").meta, [
      ["a", ""],
      ["b", "1"]
    ])
  })

  it("gives no metadata when the text does not end in a bracket", () => {
    assert.deepStrictEqual(Entry.split("tea [a: 1] and more"), { text: "tea [a: 1] and more", meta: [] })
    assert.deepStrictEqual(Entry.split("- tea [a: 1]  \t"), { text: "tea", meta: [["a", "1"]] })
  })

  it("accepts keys that start with any letter", () => {
    assert.deepStrictEqual(Entry.split("茶 [来源: 对话]").meta, [["来源", "对话"]])
  })

  it("takes only the last bracket as metadata", () => {
    assert.deepStrictEqual(Entry.split("tea [a: 1] [b: 2]"), { text: "tea", meta: [["b", "2"]] })
  })

  it("gives no metadata when the bracket is not metadata", () => {
    assert.deepStrictEqual(Entry.split("see [1]"), { text: "see [1]", meta: [] })
    assert.deepStrictEqual(Entry.split("x [a: 1; b]"), { text: "x [a: 1; b]", meta: [] })
    assert.deepStrictEqual(Entry.split("x []"), { text: "x []", meta: [] })
  })
})

/** docs/spec.md 1's reading of an entry as plainly as it can be written: split on `;`, trim, a key pattern, from the end. */
const reference = (body: string): { readonly text: string; readonly meta: Entry.Metadata } => {
  const fold = (text: string) => text.replace(/\s+/gu, " ").trim()
  const pairsOf = (inside: string) => {
    const parts = inside.split(";").filter((part) => part.trim() !== "")
    const pairs = parts.map((part) => /^([^:]*):(.*)$/su.exec(part)).map((m) => m && [m[1]!.trim(), fold(m[2]!)])
    const valid = pairs.length > 0 && pairs.every((pair) => pair !== null && /^\p{L}[\p{L}\p{N}_-]*$/u.test(pair[0]!))
    return valid ? (pairs as Array<[string, string]>) : undefined
  }
  /** The trailing bracket of `text` (no `[` or `]` inside) as [text before it, its pairs], if it is metadata. */
  const last = (text: string) => {
    const m = /\[([^[\]]*)\]$/u.exec(text)
    const pairs = m ? pairsOf(m[1]!) : undefined
    return m && pairs ? ([text.slice(0, m.index).trimEnd(), pairs] as const) : undefined
  }
  let text = fold(body)
  const meta = last(text)?.[1] ?? []
  for (let found = last(text); found !== undefined; found = last(text)) text = found[0]
  while (/^[-*]( |$)/u.test(text)) text = text.slice(2)
  return { text: text.trim(), meta }
}

describe("Entry.split and Entry.clean against a plain reading", () => {
  it("property: the same text and metadata as the reference", () => {
    const bits = fc.constantFrom(
      ..."aZé7 \t\n-*[]:;_中😀\u00a0",
      "[k: v]",
      "[a: 1; b: 2]",
      "k:",
      "[茶: 对]",
      " ; ",
      "[]"
    )
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: bits }), anyText), (text) => {
        assert.deepStrictEqual(Entry.split(text), reference(text))
        assert.strictEqual(Entry.clean(text), reference(text).text)
      }),
      { numRuns: 5000 }
    )
  })
})

describe("Entry.format", () => {
  it("writes the text and one bracket of pairs", () => {
    assert.strictEqual(
      Entry.format("The user likes tea", [
        ["source", "part 1 #10"],
        ["added", "2026-11-06"]
      ]),
      "- The user likes tea [source: part 1 #10; added: 2026-11-06]"
    )
  })

  it("writes no bracket without metadata", () => {
    assert.strictEqual(Entry.format("The user likes tea", []), "- The user likes tea")
  })

  it("cleans the text and takes `;`, `[`, `]` and line breaks out of values", () => {
    assert.strictEqual(
      Entry.format("  tea\nlover [old: x]", [["source", "a;b [c]\r\nd\u2028e"]]),
      "- tea lover [source: a b c d e]"
    )
  })

  it("leaves out pairs with a key that is not a key or an empty value", () => {
    assert.strictEqual(
      Entry.format("tea", [
        ["bad key", "x"],
        ["1st", "x"],
        ["added", " ; "],
        ["by", "Ann"]
      ]),
      "- tea [by: Ann]"
    )
  })

  it("round-trips through split: the cleaned text and the metadata come back", () => {
    fc.assert(
      fc.property(anyText, fc.array(fc.tuple(key, plainValue), { maxLength: 4 }), (text, meta) => {
        const split = Entry.split(Entry.format(text, meta).slice(1))
        assert.deepStrictEqual(split, { text: Entry.clean(text), meta })
      })
    )
  })

  it("is a fixed point of split for any values", () => {
    fc.assert(
      fc.property(anyText, fc.array(fc.tuple(key, anyText), { maxLength: 4 }), (text, meta) => {
        const line = Entry.format(text, meta)
        const split = Entry.split(line.slice(1))
        assert.strictEqual(Entry.format(split.text, split.meta), line)
      })
    )
  })
})

describe("Entry.metaValue", () => {
  it("finds the first value of a key, case ignored", () => {
    const meta: Entry.Metadata = [
      ["Source", "part 1 #10"],
      ["source", "later"]
    ]
    assert.strictEqual(Entry.metaValue(meta, "source"), "part 1 #10")
    assert.strictEqual(Entry.metaValue(meta, "added"), undefined)
  })
})
