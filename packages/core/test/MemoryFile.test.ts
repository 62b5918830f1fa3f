import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Entry from "../src/Entry.ts"
import * as MemoryFile from "../src/MemoryFile.ts"
import * as Topic from "../src/Topic.ts"

/** A MEMORY.md as a person edits it: a title, notes, CRLF line ends, an entry with metadata, no index. */
const handEdited = [
  "# What I know about Ann  ",
  "",
  "Notes I keep by hand; please leave them.\t",
  "  * an indented star [see: below]",
  "- The user likes tea [source: part 1 #10; added: 2026-11-06]",
  "",
  "Some closing words, with trailing spaces   ",
  ""
].join("\r\n")

const texts = (parsed: MemoryFile.Parsed) => parsed.entries.map((entry) => entry.text)

/** File content rich in the characters the format cares about. */
const content = fc.string({
  unit: fc.constantFrom(
    "a",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "- ",
    "* ",
    "#",
    "## ",
    "## Index",
    "## index ##",
    "[[",
    "]]",
    "[",
    "]",
    "k: v",
    ";",
    "中",
    "😀",
    "\uFEFF"
  )
})
const kinds = fc.constantFrom("memory" as const, "topic" as const)

/** `after` with the lines at `added` taken out. */
const without = (after: ReadonlyArray<string>, added: ReadonlyArray<number>) =>
  after.filter((_, at) => !added.includes(at))

describe("MemoryFile.parse", () => {
  it("reads LF, CRLF and CR line ends; an empty file has no lines", () => {
    assert.deepStrictEqual(MemoryFile.parse("a\nb\r\nc\rd").lines, ["a", "b", "c", "d"])
    assert.deepStrictEqual(MemoryFile.parse("a\r\n\r\n").lines, ["a", ""])
    assert.deepStrictEqual(MemoryFile.parse("").lines, [])
    assert.deepStrictEqual(MemoryFile.parse("\n").lines, [""])
    assert.deepStrictEqual(MemoryFile.parse("\uFEFF# Memory\n").lines, ["# Memory"])
  })

  it("finds entries with their line, cleaned text and metadata", () => {
    const parsed = MemoryFile.parse(
      "# Memory\n\n- The user likes  tea [source: part 1 #10; added: 2026-11-06]\n* Works nights\n  - a nested fact\n"
    )
    assert.deepStrictEqual(parsed.entries, [
      {
        line: 2,
        text: "The user likes tea",
        meta: [
          ["source", "part 1 #10"],
          ["added", "2026-11-06"]
        ]
      },
      { line: 3, text: "Works nights", meta: [] },
      { line: 4, text: "a nested fact", meta: [] }
    ])
  })

  it("takes only bullet lines with text as entries", () => {
    const parsed = MemoryFile.parse(
      "# Memory\nA note.\n-not a bullet\n**bold** note\n- \n* * *\n- [source: x]\n#tag\n> - quoted\n- kept\n"
    )
    assert.deepStrictEqual(texts(parsed), ["kept"])
  })

  it("reads index links, in any case of the heading, and keeps index bullets out of the entries", () => {
    const parsed = MemoryFile.parse(
      "# Memory\n- fact\n## INDEX ##\n- [[Travel]]\n- [[work.md]] — the job\n- plain words\n\n### Notes\n- later fact\n"
    )
    assert.deepStrictEqual(parsed.links, [
      { line: 3, topic: "travel" },
      { line: 4, topic: "work" }
    ])
    assert.deepStrictEqual(texts(parsed), ["fact", "later fact"])
  })

  it("treats only a level-2 heading titled Index as the index", () => {
    for (const heading of ["# Index", "### Index", "## Index of things", "##Index"]) {
      const parsed = MemoryFile.parse(`${heading}\n- [[travel]]\n`)
      assert.deepStrictEqual(parsed.links, [], heading)
      assert.deepStrictEqual(texts(parsed), ["[[travel]]"], heading)
    }
  })

  it("reads hostile input of a megabyte as what it is (its time is measured by `pnpm bench format`)", () => {
    const hostile: ReadonlyArray<readonly [string, ReadonlyArray<string>, number]> = [
      ["- " + "[key:".repeat(200_000), ["[key:".repeat(200_000)], 0],
      ["- " + " ".repeat(1_000_000) + "x", ["x"], 0],
      ["- [key:\n".repeat(125_000), Array<string>(125_000).fill("[key:"), 0],
      ["- x" + " [a: b]".repeat(140_000), ["x"], 0],
      ["## Index" + " ".repeat(1_000_000) + "x", [], 0],
      ["#".repeat(1_000_000), [], 0],
      ["## Index\n" + "- [[".repeat(250_000), [], 0],
      ["## Index\n" + "- [[a]]\n".repeat(125_000), [], 125_000]
    ]
    for (const [text, entries, links] of hostile) {
      const parsed = MemoryFile.parse(text)
      assert.deepStrictEqual(texts(parsed), entries, text.slice(0, 20))
      assert.strictEqual(parsed.links.length, links, text.slice(0, 20))
      assert.strictEqual(MemoryFile.render(parsed.lines), text.endsWith("\n") ? text : text + "\n")
    }
  })
})

describe("MemoryFile.cleanerOf", () => {
  const names = fc.string({ unit: fc.constantFrom(..."aZ7 _-.[]é旅", "sk-", "password", ".md", "con") })

  it("cleans every name as Topic.clean does, those the parse linked and any other", () => {
    fc.assert(
      fc.property(fc.array(names, { maxLength: 6 }), names, (linked, other) => {
        const parsed = MemoryFile.parse(`# Memory\n\n## Index\n${linked.map((name) => `- [[${name}]]`).join("\n")}\n`)
        const clean = MemoryFile.cleanerOf(parsed)
        for (const name of [...linked, other]) assert.strictEqual(clean(name), Topic.clean(name))
      })
    )
  })

  it("parses a file's new text as a plain parse does", () => {
    const before = MemoryFile.parse(
      "# Memory\n\n- a fact\n\n## Index\n- [[Travel Notes]]\n-  [[work]] \n- [[password-is-hunter2]]\n"
    )
    const after =
      "# Memory\n\n- a fact\n- another\n\n## Index\n- [[Travel Notes]]\n- [[work]]\n- [[home]]\n- [[password-is-hunter2]]\n"
    assert.deepStrictEqual(MemoryFile.parse(after, MemoryFile.cleanerOf(before)), MemoryFile.parse(after))
    assert.deepStrictEqual(
      MemoryFile.parse(after).links.map((link) => link.topic),
      ["travel-notes", "work", "home"]
    )
  })
})

describe("MemoryFile.render", () => {
  it("writes LF and exactly one trailing newline", () => {
    assert.strictEqual(MemoryFile.render(["a", "b"]), "a\nb\n")
    assert.strictEqual(MemoryFile.render(["a", "", " ", ""]), "a\n")
    assert.strictEqual(MemoryFile.render([]), "")
  })

  it("keeps every line of a hand-edited MEMORY.md", () => {
    const parsed = MemoryFile.parse(handEdited)
    assert.strictEqual(MemoryFile.render(parsed.lines), handEdited.replaceAll("\r\n", "\n"))
    assert.deepStrictEqual(parsed.entries, [
      { line: 3, text: "an indented star", meta: [["see", "below"]] },
      {
        line: 4,
        text: "The user likes tea",
        meta: [
          ["source", "part 1 #10"],
          ["added", "2026-11-06"]
        ]
      }
    ])
    assert.deepStrictEqual(parsed.links, [])
  })

  it("keeps every line as it was, line ends aside", () => {
    fc.assert(
      fc.property(content, (text) => {
        const expected = text.replace(/^\uFEFF+/u, "").replace(/\r\n|\r/gu, "\n")
        const joined = MemoryFile.parse(text).lines.join("\n")
        assert.strictEqual(joined, expected.endsWith("\n") ? expected.slice(0, -1) : expected)
      })
    )
  })

  it("is stable: rendering what it rendered changes nothing", () => {
    fc.assert(
      fc.property(content, (text) => {
        const once = MemoryFile.render(MemoryFile.parse(text).lines)
        assert.strictEqual(MemoryFile.render(MemoryFile.parse(once).lines), once)
        assert.deepStrictEqual(MemoryFile.parse(once).entries, MemoryFile.parse(text).entries)
      })
    )
  })
})

describe("MemoryFile.newMemory and newTopic", () => {
  it("start files as docs/spec.md 1 says", () => {
    assert.strictEqual(MemoryFile.newMemory, "# Memory\n\n## Index\n")
    assert.strictEqual(MemoryFile.newTopic("travel"), "# travel\n")
    assert.deepStrictEqual(MemoryFile.parse(MemoryFile.newMemory).entries, [])
  })
})

describe("MemoryFile.insertEntry", () => {
  it("puts the first entry of a new MEMORY.md after the title and a blank line", () => {
    const lines = MemoryFile.insertEntry(MemoryFile.parse(MemoryFile.newMemory), "- tea", "memory")
    assert.strictEqual(MemoryFile.render(lines), "# Memory\n\n- tea\n\n## Index\n")
    const next = MemoryFile.insertEntry(MemoryFile.parse(MemoryFile.render(lines)), "- coffee", "memory")
    assert.strictEqual(MemoryFile.render(next), "# Memory\n\n- tea\n- coffee\n\n## Index\n")
  })

  it("goes after the last non-blank line above the index", () => {
    const parsed = MemoryFile.parse("# Memory\n- tea\n\nA note.\n\n\n## Index\n- [[travel]]\n")
    assert.strictEqual(
      MemoryFile.render(MemoryFile.insertEntry(parsed, "- coffee", "memory")),
      "# Memory\n- tea\n\nA note.\n- coffee\n\n\n## Index\n- [[travel]]\n"
    )
  })

  it("goes at the top of a MEMORY.md that starts with its index, and into an empty one", () => {
    const parsed = MemoryFile.parse("## Index\n- [[travel]]\n")
    assert.deepStrictEqual(MemoryFile.insertEntry(parsed, "- tea", "memory"), ["- tea", "## Index", "- [[travel]]"])
    assert.deepStrictEqual(MemoryFile.insertEntry(MemoryFile.parse(""), "- tea", "memory"), ["- tea"])
  })

  it("keeps every line of a hand-edited MEMORY.md", () => {
    const parsed = MemoryFile.parse(handEdited)
    const lines = MemoryFile.insertEntry(parsed, Entry.format("Ann walks to work", [["added", "2026-11-07"]]), "memory")
    assert.strictEqual(
      MemoryFile.render(lines),
      [...parsed.lines, "- Ann walks to work [added: 2026-11-07]", ""].join("\n")
    )
    assert.deepStrictEqual(lines.slice(0, 7), parsed.lines)
    assert.deepStrictEqual(texts(MemoryFile.parse(MemoryFile.render(lines))), [
      "an indented star",
      "The user likes tea",
      "Ann walks to work"
    ])
  })

  it("goes at the end of a topic, after a blank line when the topic has only its title", () => {
    const first = MemoryFile.insertEntry(MemoryFile.parse(MemoryFile.newTopic("travel")), "- Lisbon in May", "topic")
    assert.strictEqual(MemoryFile.render(first), "# travel\n\n- Lisbon in May\n")
    const parsed = MemoryFile.parse("# travel\n\n- Lisbon in May\n## Hotels\nNotes.\n\n")
    assert.strictEqual(
      MemoryFile.render(MemoryFile.insertEntry(parsed, "- Hotel Avenida", "topic")),
      "# travel\n\n- Lisbon in May\n## Hotels\nNotes.\n- Hotel Avenida\n"
    )
  })

  it("keeps a topic's entry out of an index section at its end", () => {
    const parsed = MemoryFile.parse("# travel\n- Lisbon\n## Index\n- [[hotels]]\n")
    const lines = MemoryFile.insertEntry(parsed, "- Porto", "topic")
    assert.deepStrictEqual(lines, ["# travel", "- Lisbon", "- Porto", "## Index", "- [[hotels]]"])
    const twice = MemoryFile.parse("## Index\n## Index\n")
    assert.deepStrictEqual(MemoryFile.insertEntry(twice, "- Porto", "topic"), ["- Porto", "## Index", "## Index"])
  })

  it("keeps every line and every entry of any file, and adds the new entry", () => {
    fc.assert(
      fc.property(content, kinds, (text, kind) => {
        const parsed = MemoryFile.parse(text)
        const lines = MemoryFile.insertEntry(parsed, "- the new fact", kind)
        const after = MemoryFile.parse(MemoryFile.render(lines))
        const at = lines.indexOf("- the new fact")
        const added = lines[at - 1] === "" && lines.length === parsed.lines.length + 2 ? [at - 1, at] : [at]
        assert.deepStrictEqual(without(lines, added), parsed.lines)
        assert.deepStrictEqual(
          texts(after).filter((entry) => entry !== "the new fact"),
          texts(parsed)
        )
        assert.isTrue(after.entries.some((entry) => entry.text === "the new fact" && entry.line === at))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("MemoryFile.addLink and removeLink", () => {
  it("adds a link at the end of the index section", () => {
    const parsed = MemoryFile.parse("# Memory\n\n## Index\n- [[travel]]\n\n## Later\n- fact\n")
    assert.strictEqual(
      MemoryFile.render(MemoryFile.addLink(parsed, "work")),
      "# Memory\n\n## Index\n- [[travel]]\n- [[work]]\n\n## Later\n- fact\n"
    )
    assert.strictEqual(
      MemoryFile.render(MemoryFile.addLink(MemoryFile.parse(MemoryFile.newMemory), "work")),
      "# Memory\n\n## Index\n- [[work]]\n"
    )
  })

  it("creates the index at the end when there is none", () => {
    const parsed = MemoryFile.parse(handEdited)
    const lines = MemoryFile.addLink(parsed, "travel")
    assert.deepStrictEqual(lines, [...parsed.lines.slice(0, 7), "", "## Index", "- [[travel]]"])
    assert.deepStrictEqual(MemoryFile.addLink(MemoryFile.parse(""), "travel"), ["## Index", "- [[travel]]"])
  })

  it("adds no duplicate", () => {
    const parsed = MemoryFile.parse("## Index\n- [[Travel.md]]\n")
    assert.strictEqual(MemoryFile.addLink(parsed, "travel"), parsed.lines)
  })

  it("removes every link to the topic and nothing else", () => {
    const parsed = MemoryFile.parse(
      "# Memory\n- [[travel]] as a fact\n## Index\n- [[travel]]\n- [[work]]\n- [[Travel]]\n"
    )
    assert.deepStrictEqual(MemoryFile.removeLink(parsed, "travel"), [
      "# Memory",
      "- [[travel]] as a fact",
      "## Index",
      "- [[work]]"
    ])
    assert.deepStrictEqual(MemoryFile.removeLink(parsed, "recipes"), parsed.lines)
  })

  it("keeps every line and entry of any file, and links the topic once", () => {
    fc.assert(
      fc.property(content, (text) => {
        const parsed = MemoryFile.parse(text)
        const lines = MemoryFile.addLink(parsed, "zeta")
        const after = MemoryFile.parse(MemoryFile.render(lines))
        assert.deepStrictEqual(texts(after), texts(parsed))
        assert.strictEqual(after.links.filter((link) => link.topic === "zeta").length, 1)
        assert.deepStrictEqual(MemoryFile.addLink(after, "zeta"), after.lines)
        const removed = MemoryFile.parse(MemoryFile.render(MemoryFile.removeLink(after, "zeta")))
        assert.deepStrictEqual(
          removed.links.map((link) => link.topic),
          parsed.links.map((link) => link.topic)
        )
        assert.deepStrictEqual(texts(removed), texts(parsed))
      })
    )
  })
})

/** The file after adding an entry line, as the store writes it. */
const added = (text: string, line: string, kind: "memory" | "topic") =>
  MemoryFile.render(MemoryFile.insertEntry(MemoryFile.parse(text), line, kind))

/** The file after removing the entry whose cleaned text is `entry`, as the store writes it. */
const removed = (text: string, entry: string) => {
  const parsed = MemoryFile.parse(text)
  const found = parsed.entries.find((candidate) => candidate.text === entry)
  assert.isDefined(found, entry)
  return MemoryFile.render(MemoryFile.removeLine(parsed.lines, found?.line ?? -1))
}

/** Hand-written lines: titles, sections, notes, blank lines (some with spaces), entries, links. */
const handLine = fc.constantFrom(
  "# Memory",
  "# travel",
  "## Index",
  "## index ##",
  "### Notes",
  "## Hotels",
  "",
  "",
  "  ",
  "\t",
  "A note kept by hand.",
  "Another note   ",
  "- a hand-written fact",
  "* a starred fact [source: x]",
  "  - nested hand fact",
  "- [[travel]]",
  "- [[work]] — the job",
  "-not a bullet"
)

describe("MemoryFile line edits", () => {
  it("replaces and removes one line, leaving the others", () => {
    const lines = ["# Memory", "- tea", "- coffee"]
    assert.deepStrictEqual(MemoryFile.replaceLine(lines, 1, "- green tea"), ["# Memory", "- green tea", "- coffee"])
    assert.deepStrictEqual(MemoryFile.removeLine(lines, 1), ["# Memory", "- coffee"])
    assert.deepStrictEqual(lines, ["# Memory", "- tea", "- coffee"])
  })

  it("gives back a new MEMORY.md when its only entry is removed, however often it is filled and emptied", () => {
    let text = MemoryFile.newMemory
    for (let cycle = 0; cycle < 5; cycle++) {
      text = added(text, "- tea", "memory")
      assert.strictEqual(text, "# Memory\n\n- tea\n\n## Index\n")
      text = removed(text, "tea")
      assert.strictEqual(text, MemoryFile.newMemory)
    }
  })

  it("leaves no two blank lines in a row, nor a blank line between two headings, where it took out an entry", () => {
    assert.strictEqual(removed("# Memory\n\nA note.\n\n- tea\n\nMore.\n", "tea"), "# Memory\n\nA note.\n\nMore.\n")
    assert.strictEqual(removed("# travel\n\n- Lisbon\n## Hotels\n", "Lisbon"), "# travel\n## Hotels\n")
    assert.strictEqual(removed("# travel\n\n- Lisbon\n", "Lisbon"), "# travel\n")
    assert.strictEqual(
      removed("# Memory\n\n- tea\n- coffee\n\n## Index\n", "tea"),
      "# Memory\n\n- coffee\n\n## Index\n"
    )
  })

  it("keeps the blank lines that still part a note from what follows", () => {
    assert.strictEqual(removed("A note.\n\n- tea\n## Hotels\n", "tea"), "A note.\n\n## Hotels\n")
    assert.strictEqual(removed("# Memory\n\n- tea\nA note.\n", "tea"), "# Memory\n\nA note.\n")
    assert.strictEqual(removed("- tea\n\n## Index\n", "tea"), "\n## Index\n")
  })

  it("property: adding entries and then removing them all, in any order, gives back the file byte for byte", () => {
    fc.assert(
      fc.property(
        fc.array(handLine, { maxLength: 14 }),
        kinds,
        fc
          .integer({ min: 1, max: 6 })
          .chain((count) => fc.shuffledSubarray([...Array(count).keys()], { minLength: count, maxLength: count })),
        (lines, kind, order) => {
          const start = MemoryFile.render(lines)
          let text = start
          for (let i = 0; i < order.length; i++) text = added(text, `- zz new fact ${i} [added: 2026-11-07]`, kind)
          for (const i of order) text = removed(text, `zz new fact ${i}`)
          assert.strictEqual(text, start)
        }
      ),
      { numRuns: 3000 }
    )
  })
})

describe("MemoryFile.isEmptyTopic", () => {
  it("is true for nothing but headings and blank lines", () => {
    assert.isTrue(MemoryFile.isEmptyTopic(MemoryFile.parse("")))
    assert.isTrue(MemoryFile.isEmptyTopic(MemoryFile.parse("# travel\n\n## Hotels\n  \n")))
    assert.isFalse(MemoryFile.isEmptyTopic(MemoryFile.parse("# travel\n\n- Lisbon\n")))
    assert.isFalse(MemoryFile.isEmptyTopic(MemoryFile.parse("# travel\nA note.\n")))
  })
})

/** The whole file's parse as `headReader` gives it: cut after the first entries that fit in `budget` characters. */
const headOf = (text: string, budget: number): MemoryFile.Head => {
  const parsed = MemoryFile.parse(text)
  let used = 0
  let kept = 0
  for (const entry of parsed.entries) {
    used += [...entry.text].length
    if (used > budget) break
    kept++
  }
  const cut = parsed.entries[kept]
  return {
    lines: cut === undefined ? parsed.lines : parsed.lines.slice(0, cut.line),
    entries: parsed.entries.slice(0, kept),
    links: parsed.links,
    omitted: parsed.entries.length - kept,
    size: [...text].length
  }
}

/** `text` read by `headReader` in the pieces that `cuts` (code point offsets) make. */
const readInPieces = (text: string, budget: number, cuts: ReadonlyArray<number>): MemoryFile.Head => {
  const points = [...text]
  const reader = MemoryFile.headReader(budget)
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const at = Math.min(cut, points.length)
    reader.push(points.slice(from, at).join(""))
    from = at
  }
  reader.push(points.slice(from).join(""))
  return reader.end()
}

describe("MemoryFile.headReader", () => {
  it("keeps the lines up to the first entry that does not fit, every link, and counts the rest", () => {
    const text =
      "\uFEFF# Memory\r\n\r\n- one\r\n- two [added: 2026-11-06]\r\nA note.\r\n- three\r\n## Index\r\n- [[travel]]\r\n"
    const head = readInPieces(text, 6, [3, 12, 13, 30])
    assert.deepStrictEqual(head, {
      lines: ["# Memory", "", "- one", "- two [added: 2026-11-06]", "A note."],
      entries: [
        { line: 2, text: "one", meta: [] },
        { line: 3, text: "two", meta: [["added", "2026-11-06"]] }
      ],
      links: [{ line: 7, topic: "travel" }],
      omitted: 1,
      size: [...text].length
    })
  })

  it("gives the whole parse, nothing left out, when every entry fits", () => {
    const text = "# travel\n\n- Lisbon in May\n- 东京の出張 😀\n"
    const head = readInPieces(text, 100, [1, 2])
    assert.deepStrictEqual({ ...head }, { ...MemoryFile.parse(text), omitted: 0, size: [...text].length })
  })

  it("property: in any pieces, it gives the whole parse cut at the budget", () => {
    fc.assert(
      fc.property(
        fc.array(content, { maxLength: 8 }).map((parts) => parts.join("")),
        fc.integer({ min: 0, max: 12 }),
        fc.array(fc.nat({ max: 120 }), { maxLength: 10 }),
        (text, budget, cuts) => {
          assert.deepStrictEqual(readInPieces(text, budget, cuts), headOf(text, budget))
        }
      ),
      { numRuns: 5000 }
    )
  })
})
