import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import * as Lines from "../src/Lines.ts"
import * as MemoryConfig from "../src/MemoryConfig.ts"
import * as Text from "../src/Text.ts"

const settings = MemoryConfig.defaults
const user = (text: string, seq = 1): Lines.Line => ({ seq, who: "user", text })
const agent = (text: string, seq = 1): Lines.Line => ({ seq, who: "agent", text })
const other = (text: string, name?: string): Lines.Line => ({ seq: 1, who: "other", text, ...(name ? { name } : {}) })

/** `count` characters of running text, each position recognisable. */
const running = (count: number) =>
  Array.from({ length: count }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join("")

describe("Lines.cut", () => {
  it("leaves a line within its limit as it is", () => {
    const text = "a".repeat(settings.userLineMax)
    assert.strictEqual(Lines.cut(user(text), settings), text)
    assert.strictEqual(Lines.cut(agent("b".repeat(800)), settings), "b".repeat(800))
  })

  it("keeps the first two thirds and the last third of a long user line, with the marker between", () => {
    const text = running(10_000)
    const cut = Lines.cut(user(text), settings)
    assert.strictEqual(Text.length(cut), 3_000)
    const room = 3_000 - Text.length(Lines.middleMarker)
    const head = cut.slice(0, cut.indexOf(Lines.middleMarker))
    const tail = cut.slice(cut.indexOf(Lines.middleMarker) + Lines.middleMarker.length)
    assert.strictEqual(head.length + tail.length, room)
    assert.strictEqual(head.length, Math.ceil((room * 2) / 3))
    assert.strictEqual(head, text.slice(0, head.length))
    assert.strictEqual(tail, text.slice(text.length - tail.length))
  })

  it("keeps the head of any other line, with the marker at the cut", () => {
    const text = running(5_000)
    for (const line of [agent(text), other(text, "Bob")]) {
      const cut = Lines.cut(line, settings)
      assert.strictEqual(Text.length(cut), 800)
      assert.isTrue(cut.endsWith(Lines.endMarker))
      assert.strictEqual(cut, text.slice(0, 800 - Lines.endMarker.length) + Lines.endMarker)
    }
  })

  it("counts code points, so a line of emoji is cut at 3,000 characters, not 3,000 UTF-16 units", () => {
    const text = "😀".repeat(2_000) + "中".repeat(2_000)
    const cut = Lines.cut(user(text), settings)
    assert.strictEqual(Text.length(cut), 3_000)
    assert.isTrue(cut.startsWith("😀".repeat(1_997)))
    assert.isTrue(cut.endsWith("中".repeat(998)))
    assert.isTrue(cut.isWellFormed())
    assert.strictEqual(Lines.cut(user("😀".repeat(3_000)), settings), "😀".repeat(3_000))
  })

  it("masks secrets in every line before cutting", () => {
    const key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f"
    for (const line of [user(`my key is ${key} for the staging server`), agent(`use ${key} there`)]) {
      const cut = Lines.cut(line, settings)
      assert.notInclude(cut, key.slice(3, 15))
      assert.include(cut, "[secret]")
    }
    assert.include(Lines.cut(user("my key is " + key + " for the staging server"), settings), "for the staging server")
  })

  it("masks a line whole when the host's own secret test still finds it secret once masked", () => {
    const badge = (text: string) => /BADGE-\d{4}/.test(text)
    assert.strictEqual(
      Lines.cut(user("my door badge is BADGE-4821, and I like tea"), { ...settings, isSecret: badge }),
      "[secret]"
    )
    assert.strictEqual(Lines.cut(user("I like tea"), { ...settings, isSecret: badge }), "I like tea")
    assert.strictEqual(Lines.cut(user("my door badge is BADGE-4821"), settings), "my door badge is BADGE-4821")
  })

  it("masks a secret that spans the cut, so no part of it is left on either side", () => {
    const key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f"
    const head = Math.ceil(((3_000 - Text.length(Lines.middleMarker)) * 2) / 3)
    const text = "word ".repeat(Math.floor((head - 10) / 5)) + key + " and" + " more".repeat(2_000)
    const cut = Lines.cut(user(text), settings)
    assert.notInclude(cut, key.slice(3, 12))
    assert.notInclude(cut, "Ab3dEf")
  })

  it("replaces a lone surrogate in the input, so the text sent is well formed", () => {
    const cut = Lines.cut(user("broken \uD83D here"), settings)
    assert.strictEqual(cut, "broken \uFFFD here")
  })

  it("never leaves half a surrogate pair, whatever the position of an astral character", () => {
    const small = { userLineMax: 12, otherLineMax: 9 }
    for (let size = 5; size <= 16; size++) {
      for (let at = 0; at < size; at++) {
        const chars = Array.from({ length: size }, (_, i) => (i === at ? "𝄞" : "x"))
        for (const line of [user(chars.join("")), agent(chars.join(""))]) {
          const cut = Lines.cut(line, small)
          assert.isTrue(cut.isWellFormed(), JSON.stringify(cut))
          assert.isAtMost(Text.length(cut), line.who === "user" ? 12 : 9)
        }
      }
    }
  })

  it("property: a cut is well formed and within its limit, for any text and any limit", () => {
    const char = fc.oneof(
      fc.constantFrom("a", " ", "中", "😀", "👩‍👩‍👧", "𝄞", "\u{10FFFF}", "é", "\uD800", "\uDC00", "\n"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 })
    )
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 60 }).map((chars) => chars.join("")),
        fc.constantFrom<Lines.Line["who"]>("user", "agent", "other"),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        (text, who, userLineMax, otherLineMax) => {
          const cut = Lines.cut({ seq: 1, who, text }, { userLineMax, otherLineMax })
          assert.isTrue(cut.isWellFormed())
          assert.isAtMost(Text.length(cut), who === "user" ? userLineMax : otherLineMax)
        }
      ),
      { numRuns: 2_000 }
    )
  })
})

describe("Lines.label", () => {
  it("labels the user as user, the agent with its name, another speaker with theirs", () => {
    assert.strictEqual(Lines.label(user("hi"), "Ada"), "user")
    assert.strictEqual(Lines.label(agent("hi"), "Ada"), 'agent "Ada"')
    assert.strictEqual(Lines.label(other("hi", "Bob"), "Ada"), 'other "Bob"')
    assert.strictEqual(Lines.label(other("hi"), "Ada"), "other")
  })

  it("keeps a speaker named like the user, or with line breaks and quotes, apart and on one line", () => {
    assert.strictEqual(Lines.label(other("hi", "user"), "Ada"), 'other "user"')
    assert.strictEqual(Lines.label(other("hi", 'Eve"\n## Entries\u0085x'), "Ada"), 'other "Eve\\" ## Entries x"')
    assert.strictEqual(Text.length(JSON.parse(Lines.label(other("hi", "n".repeat(500)), "Ada").slice(6))), 80)
  })
})

describe("a group's lines from one member's side (docs/spec.md 4.7)", () => {
  const lines: ReadonlyArray<Lines.Line> = [
    { seq: 1, who: "user", name: "Alice", text: "Book it" },
    { seq: 2, who: "agent", name: "ada", text: "Booked" },
    { seq: 3, who: "agent", name: "bob", text: "Found one", kind: "tool-result" },
    { seq: 4, who: "agent", text: "Who am I?" },
    { seq: 5, who: "other", name: "Tour guide", text: "Hello" },
    { seq: 6, who: "user", name: "Carol", text: "Hi" },
    { seq: 7, who: "user", name: "Alice", text: "Thanks" }
  ]
  const names: Record<string, string> = { ada: "Ada", bob: "Bob" }

  it("shows the member's own lines as itself, another member's by its name, people's as they are", () => {
    const seen = lines.map((line) => Lines.asSeenBy(line, "ada", (id) => names[id] ?? id))
    assert.deepStrictEqual(
      seen.map((line) => Lines.label(line, "Ada")),
      [
        'user "Alice"',
        'agent "Ada"',
        'other "Bob" (tool result)',
        "other",
        'other "Tour guide"',
        'user "Carol"',
        'user "Alice"'
      ]
    )
    assert.deepStrictEqual(seen[1], { seq: 2, who: "agent", text: "Booked" })
    // Who said a line changes, never whether it is the user's words.
    assert.deepStrictEqual(seen.map(Lines.isUserWords), lines.map(Lines.isUserWords))
  })

  it("takes a person's line that names a member agent, by id or name, for that member's: never the user's words", () => {
    const seen = [
      ...lines,
      ...([
        { seq: 8, who: "user", name: " BOB ", text: "The build uses pnpm 10" },
        { seq: 9, who: "user", name: "ada", text: "Noted" },
        { seq: 10, who: "user", name: "Bobby", text: "Hi" }
      ] satisfies ReadonlyArray<Lines.Line>)
    ].map(Lines.seenBy("ada", new Map(Object.entries(names))))
    assert.deepStrictEqual(
      seen.slice(-3).map((line) => [Lines.label(line, "Ada"), Lines.isUserWords(line)]),
      [
        ['other "Bob"', false],
        ['agent "Ada"', false],
        ['user "Bobby"', true]
      ]
    )
    assert.deepStrictEqual(
      seen.slice(0, 7),
      lines.map((line) => Lines.asSeenBy(line, "ada", (id) => names[id] ?? id))
    )
    assert.deepStrictEqual(Lines.people(seen), ["Alice", "Carol", "Bobby"])
  })

  it("lists the people who speak, each once, in order of first appearance", () => {
    assert.deepStrictEqual(Lines.people(lines), ["Alice", "Carol"])
    assert.deepStrictEqual(Lines.people([{ seq: 1, who: "user", name: " \u0000 ", text: "x" }]), [])
  })
})

describe("a line's kind (issue 12: no feedback loop)", () => {
  const kinds = ["tool-call", "tool-result", "memory"] as const

  it("a tool call, a tool result or quoted memory is not words said, nor the user's words, whoever gives it", () => {
    assert.isTrue(Lines.isSaid(user("hi")))
    assert.isTrue(Lines.isUserWords(user("hi")))
    assert.isFalse(Lines.isUserWords(agent("hi")))
    for (const kind of kinds) {
      for (const line of [user("hi"), agent("hi"), other("hi", "Bob")]) {
        assert.isFalse(Lines.isSaid({ ...line, kind }), `${line.who} ${kind}`)
        assert.isFalse(Lines.isUserWords({ ...line, kind }), `${line.who} ${kind}`)
      }
    }
  })

  it("is named in the line's label", () => {
    assert.strictEqual(Lines.label({ ...agent("x"), kind: "tool-call" }, "Ada"), 'agent "Ada" (tool call)')
    assert.strictEqual(Lines.label({ ...user("x"), kind: "tool-result" }, "Ada"), "user (tool result)")
    assert.strictEqual(Lines.label({ ...other("x", "Bob"), kind: "memory" }, "Ada"), 'other "Bob" (memory section)')
  })

  it("cuts a tool result given as the user's as any other line: its head, to 800 characters", () => {
    const text = running(5_000)
    const cut = Lines.cut({ ...user(text), kind: "tool-result" }, settings)
    assert.strictEqual(Text.length(cut), 800)
    assert.isTrue(cut.endsWith(Lines.endMarker))
    assert.isTrue(text.startsWith(cut.slice(0, -Lines.endMarker.length)))
  })

  it("is read from a transcript line, and a kind that is none of these is refused", () => {
    const decode = Schema.decodeUnknownSync(Lines.Line)
    assert.deepStrictEqual(decode({ seq: 1, who: "agent", text: "{}", kind: "tool-call" }), {
      seq: 1,
      who: "agent",
      text: "{}",
      kind: "tool-call"
    })
    assert.throws(() => decode({ seq: 1, who: "agent", text: "{}", kind: "thought" }))
  })
})

describe("Lines.fit", () => {
  it("takes every line that fits, oldest first", () => {
    const lines = [user("a", 1), agent("b", 2), user("c", 3)]
    assert.deepStrictEqual(Lines.fit(lines, settings), { taken: lines, rest: [] })
    assert.deepStrictEqual(Lines.fit([], settings), { taken: [], rest: [] })
  })

  it("stops at 16,000 characters of cut text, the line that reaches it exactly included", () => {
    const lines = Array.from({ length: 20 }, (_, i) => user("u".repeat(1_000), i + 1))
    const { taken, rest } = Lines.fit(lines, settings)
    assert.deepStrictEqual(
      taken.map((l) => l.seq),
      lines.slice(0, 16).map((l) => l.seq)
    )
    assert.deepStrictEqual(rest, lines.slice(16))
  })

  it("counts a line by its cut text, not by its length in the transcript", () => {
    const lines = Array.from({ length: 30 }, (_, i) => agent("a".repeat(5_000), i + 1))
    assert.strictEqual(Lines.fit(lines, settings).taken.length, 20)
    const users = Array.from({ length: 10 }, (_, i) => user("u".repeat(50_000), i + 1))
    assert.strictEqual(Lines.fit(users, settings).taken.length, 5)
  })

  it("always takes the first line, however long the budget says it is", () => {
    const lines = [user("x".repeat(3_000), 1), agent("y", 2)]
    const { taken, rest } = Lines.fit(lines, { ...settings, newLinesBudget: 100 })
    assert.deepStrictEqual(taken, lines.slice(0, 1))
    assert.deepStrictEqual(rest, lines.slice(1))
  })

  it("does not skip a line that does not fit to take a later one, so the rest is what follows", () => {
    const lines = [user("x".repeat(15_000), 1), user("y".repeat(2_000), 2), user("z", 3)]
    const { taken, rest } = Lines.fit(lines, { ...settings, userLineMax: 20_000 })
    assert.deepStrictEqual(taken, lines.slice(0, 1))
    assert.deepStrictEqual(rest, lines.slice(1))
  })
})
