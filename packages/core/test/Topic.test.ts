import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { BadTopic } from "../src/Errors.ts"
import * as MemoryFile from "../src/MemoryFile.ts"
import * as Secret from "../src/Secret.ts"
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

  it("refuses a name that looks secret, as given or once cleaned", () => {
    for (const name of [
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "4111111111111111",
      "[[4111 1111 1111 1111]]",
      "AKIAIOSFODNN7EXAMPLE",
      "sk-proj-abcdefghij0123456789",
      "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456",
      "password is hunter2",
      "password-is-hunter2",
      "pin_4821",
      "ssn-123-45-6789"
    ]) {
      assert.strictEqual(Topic.clean(name), undefined, JSON.stringify(name))
    }
  })

  it("keeps names that only talk about secrets", () => {
    for (const name of ["passwords", "wifi-password", "pin-codes", "api-keys", "security", "passport", "2026-trips"]) {
      assert.strictEqual(Topic.clean(name), name)
    }
  })

  it("refuses Windows device names, case ignored", () => {
    for (const name of ["con", "CON", "Con.md", "[[nul]]", "prn", "aux", "com1", "COM9", "lpt1", "Lpt9"]) {
      assert.strictEqual(Topic.clean(name), undefined, name)
    }
    for (const name of ["com0", "com10", "lpt", "console", "auxiliary", "con-tact", "nul_list"]) {
      assert.strictEqual(Topic.clean(name), name)
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
        assert.isFalse(Topic.isDeviceName(cleaned))
        assert.isFalse(Secret.looksSecret(cleaned))
      })
    )
  })
})

describe("Topic.cleaner", () => {
  const names = fc.oneof(
    fc.string({ unit: fc.constantFrom(..."aZ7 _-.[]:/é旅😀", "sk-", "password", ".md") }),
    fc.string({ unit: "binary", maxLength: 60 })
  )

  it("cleans every name as Topic.clean does, asked once or again", () => {
    const clean = Topic.cleaner()
    fc.assert(
      fc.property(names, (name) => {
        const once = clean(name)
        assert.strictEqual(once, Topic.clean(name))
        assert.strictEqual(clean(name), once)
      })
    )
  })

  it("parses an index as Topic.clean does, read again and past its limit", () => {
    const clean = Topic.cleaner(2)
    const index =
      "# Memory\n\n## Index\n- [[Travel Notes.md]]\n- [[password-is-hunter2]]\n- [[travel-notes]]\n- [[con]]\n- [[旅行]]\n"
    const plain = MemoryFile.parse(index).links
    assert.deepStrictEqual(
      plain.map((link) => link.topic),
      ["travel-notes", "travel-notes", "旅行"]
    )
    for (let round = 0; round < 3; round++) assert.deepStrictEqual(MemoryFile.parse(index, clean).links, plain)
  })
})

describe("Topic.isDeviceName", () => {
  it("is true of a Windows device name with any extension, case ignored", () => {
    for (const name of ["con", "PRN", "Aux", "nul", "com1", "COM5", "com9", "lpt1", "LPT9"]) {
      assert.isTrue(Topic.isDeviceName(name), name)
      assert.isTrue(Topic.isDeviceName(`${name}.txt`), `${name}.txt`)
      assert.isTrue(Topic.isDeviceName(`${name}.tar.gz`), `${name}.tar.gz`)
      assert.isTrue(Topic.isDeviceName(`${name}.`), `${name}.`)
    }
    assert.isTrue(Topic.isDeviceName("com\u00b9"))
    assert.isTrue(Topic.isDeviceName("LPT\u00b3.log"))
  })

  it("is false of every other name", () => {
    for (const name of [
      "",
      "com0",
      "com10",
      "lpt",
      "console",
      "xcon",
      "con_x",
      "con-tact",
      "nul1",
      "auxx.txt",
      ".con"
    ]) {
      assert.isFalse(Topic.isDeviceName(name), name)
    }
  })
})

describe("BadTopic", () => {
  const rule =
    'is not a topic name: use 1-48 letters, digits, "_" or "-", starting with a letter or digit, not "memory", a device name such as "con", or anything that looks secret'

  it("names the topic as given", () => {
    assert.strictEqual(new BadTopic({ topic: "a/b" }).message, `"a/b" ${rule}`)
  })

  it("never repeats a secret", () => {
    assert.strictEqual(
      new BadTopic({ topic: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }).message,
      `"[secret]" ${rule}`
    )
    assert.strictEqual(new BadTopic({ topic: "password-is-hunter2" }).message, `"[secret]" ${rule}`)
    assert.strictEqual(new BadTopic({ topic: "notes/the pin is 4821" }).message, `"notes/the pin is [secret]" ${rule}`)
    assert.strictEqual(new BadTopic({ topic: "4111\u200b1111 1111 1111" }).message, `"[secret]" ${rule}`)
  })
})
