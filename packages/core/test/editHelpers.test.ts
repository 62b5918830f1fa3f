import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as EditHelpers from "../src/internal/editHelpers.ts"
import type * as EditShapes from "../src/internal/editShapes.ts"
import * as MemoryFile from "../src/MemoryFile.ts"
import * as MemoryScope from "../src/MemoryScope.ts"
import * as Text from "../src/Text.ts"

/** Text of ASCII letters, white space of every kind and a few code points that fold or lower otherwise. */
const mixedText = fc
  .array(
    fc.constantFrom(
      "a",
      "B",
      "z",
      "Q",
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\u00a0",
      "\u2028",
      "İ",
      "Σ",
      "\u212a",
      "é",
      "茶",
      "1",
      "."
    ),
    {
      maxLength: 12
    }
  )
  .map((parts) => parts.join(""))

describe("editHelpers.hasSameKey", () => {
  it("property: tells a text's same-fact key as Text.sameKey does", () => {
    fc.assert(
      fc.property(mixedText, mixedText, (text, other) => {
        for (const key of [Text.sameKey(other), Text.sameKey(text), other])
          assert.strictEqual(EditHelpers.hasSameKey(text, key), Text.sameKey(text) === key, JSON.stringify([text, key]))
      }),
      { numRuns: 5_000 }
    )
  })

  it("folds white space runs and case, and trims", () => {
    assert.isTrue(EditHelpers.hasSameKey("  The  User\tdrinks\nTEA ", "the user drinks tea"))
    assert.isFalse(EditHelpers.hasSameKey("The user drinks tea", "the user drinks te"))
    assert.isFalse(EditHelpers.hasSameKey("The user", "the user drinks tea"))
  })
})

describe("editHelpers.holding", () => {
  const fileOf = (name: string, entries: ReadonlyArray<string>): EditShapes.File => {
    const content = `# ${name}\n\n${entries.map((text) => `- ${text}`).join("\n")}\n`
    return { file: `${name}.md`, topic: name, exists: true, parsed: MemoryFile.parse(content), size: content.length }
  }

  it("finds the same fact with the keys remembered as by reading every entry, asked again and again", () => {
    const keys = EditHelpers.sameKeys()
    fc.assert(
      fc.property(fc.array(fc.array(mixedText, { maxLength: 5 }), { maxLength: 4 }), mixedText, (topics, text) => {
        const files: EditShapes.Files = {
          scope: MemoryScope.own("a"),
          dir: "agents/a",
          files: topics.map((entries, i) => fileOf(`t${i}`, entries)),
          unreadable: []
        }
        const read = EditHelpers.holding(files, text)
        for (let round = 0; round < 2; round++) {
          const found = EditHelpers.holding(files, text, keys)
          assert.strictEqual(found?.file, read?.file)
          assert.strictEqual(found?.entry, read?.entry)
        }
      })
    )
  })

  it("gives the first of the entries that are the same fact", () => {
    const files: EditShapes.Files = {
      scope: MemoryScope.own("a"),
      dir: "agents/a",
      files: [fileOf("a", ["Likes tea", "likes  TEA"]), fileOf("b", ["LIKES tea"])],
      unreadable: []
    }
    const found = EditHelpers.holding(files, "likes tea", EditHelpers.sameKeys())
    assert.strictEqual(found?.file.file, "a.md")
    assert.strictEqual(found?.entry.text, "Likes tea")
  })
})
