/**
 * `mneme review` over the transcripts people already have (issue 26): chat messages a line and in one JSON array, a
 * Claude Code session and plain chat text, each a hand-written fixture reviewed end to end by the built command with
 * recorded answers. The model is shown the user's and the agent's words and never a tool call or result; a file that
 * grows is reviewed on from its cursor (its lines keep their numbers), and growth of nothing but tool lines makes no
 * model call. A file of no shape fails with a message naming the shapes and its first line that did not fit.
 */
import { assert, describe, it } from "@effect/vitest"
import { appendFileSync, copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, mneme, mnemeIn, ownMemory, type Run, repo, scratch } from "./cliKit.ts"

const fixture = (name: string) => join(repo, "test/fixtures/transcripts", name)

/** A file of recorded answers (a run's: each run answers from the first), each adding one entry. */
const answers = (dir: string, ...texts: ReadonlyArray<string>) => {
  const file = join(dir, `answers-${texts.join("-").replaceAll(/\W/g, "")}.jsonl`)
  writeFileSync(
    file,
    texts.map((text) => JSON.stringify({ answer: JSON.stringify({ changes: [{ op: "add", text }] }) })).join("\n")
  )
  return `replay:${file}`
}

/** The new lines of each model call's request, as `--show-prompt` printed them. */
const newLines = (run: Run): Array<string> =>
  run.stderr
    .split("## New lines (oldest first)\n")
    .slice(1)
    .map((part) => part.slice(0, part.indexOf("\nThese are the newest lines")))

/** The conversation cursors of the memory's review state. */
const cursors = (memory: string): Array<number> =>
  Object.values(JSON.parse(readFileSync(join(memory, "reviewed.json"), "utf8")).cursors as Record<string, number>)

interface Case {
  /** The fixture, and what it is called in the scratch folder. */
  readonly fixture: string
  readonly label: string
  /** Its last line, and the user's words the first review must show the model. */
  readonly last: number
  readonly said: ReadonlyArray<string>
  /** Words of its tool lines, which the model must never see as new lines. */
  readonly tools: ReadonlyArray<string>
  /** Grows the file by a user line (and maybe tool lines), then by tool lines only; the last line after each. */
  readonly grow: (file: string) => number
  readonly growTools: (file: string) => number
  /** The user's words the growth added. */
  readonly grown: string
}

const chatRow = (row: object) => JSON.stringify(row) + "\n"

const cases: ReadonlyArray<Case> = [
  {
    fixture: "chat.jsonl",
    label: "chat",
    last: 8,
    said: ["Hi! I'm Dana", "examples in Python", "Set retries=3"],
    tools: ["durian", "search_docs"],
    grow: (file) => {
      appendFileSync(
        file,
        chatRow({ role: "user", content: "Next week I'm on holiday in Crete; Sam covers billing." }) +
          chatRow({ role: "assistant", content: "Enjoy Crete!" })
      )
      return 10
    },
    growTools: (file) => {
      appendFileSync(
        file,
        chatRow({
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c2", type: "function", function: { name: "calendar", arguments: "{}" } }]
        }) + chatRow({ role: "tool", tool_call_id: "c2", content: "Dana is away 3-10 June" })
      )
      return 12
    },
    grown: "holiday in Crete"
  },
  {
    fixture: "chat-array.json",
    label: "chat-array",
    last: 7,
    said: ["offsite in Lisbon", "150 euros a head"],
    tools: ["owns a boat", "find_venues"],
    grow: (file) => {
      const messages = JSON.parse(readFileSync(file, "utf8"))
      messages.push({ role: "user", content: [{ type: "text", text: "Book Casa do Rio for the 14th, please." }] })
      writeFileSync(file, JSON.stringify(messages, null, 2))
      return 8
    },
    growTools: (file) => {
      const messages = JSON.parse(readFileSync(file, "utf8"))
      messages.push(
        { role: "assistant", content: [{ type: "tool_use", id: "t9", name: "book", input: { venue: "Casa do Rio" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t9", content: "booked, ref 77" }] }
      )
      writeFileSync(file, JSON.stringify(messages, null, 2))
      return 10
    },
    grown: "Book Casa do Rio"
  },
  {
    fixture: "claude-code.jsonl",
    label: "claude-code",
    last: 11,
    said: ["I'm on call this week", "never touch the prod Airflow variables"],
    tools: ["tabs over spaces", "Caveat", "Set model to sonnet", "export.py has been updated"],
    grow: (file) => {
      const record = (type: "user" | "assistant", content: unknown, uuid: string) =>
        chatRow({
          parentUuid: null,
          isSidechain: false,
          sessionId: "4b7e2c1a-9d3f-4e8b-a6c5-1f2e3d4c5b6a",
          type,
          message: { role: type, content },
          uuid,
          timestamp: "2026-02-14T10:02:00.000Z"
        })
      appendFileSync(
        file,
        record("user", "From now on run the tests with pytest -x before any commit.", "u-20") +
          record("assistant", [{ type: "text", text: "Will do." }], "u-21")
      )
      return 13
    },
    growTools: (file) => {
      appendFileSync(
        file,
        chatRow({
          type: "assistant",
          uuid: "u-22",
          message: {
            role: "assistant",
            content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "pytest -x" } }]
          }
        }) +
          chatRow({
            type: "user",
            uuid: "u-23",
            message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "12 passed" }] }
          }) +
          chatRow({ type: "summary", summary: "Tests", leafUuid: "u-23" })
      )
      return 15
    },
    grown: "run the tests with pytest -x"
  },
  {
    fixture: "chat.txt",
    label: "chat",
    last: 6,
    said: ["moved from Berlin to Porto", "We share a cat called Pixel"],
    tools: ["exported on"],
    grow: (file) => {
      appendFileSync(file, "User: My sister Ana visits every August.\nAssistant: How nice.\n")
      return 8
    },
    // Plain chat text has no tool lines: a system line is no line at all.
    growTools: (file) => {
      appendFileSync(file, "System: saved\n")
      return 8
    },
    grown: "My sister Ana visits every August"
  }
]

describe("mneme review reads the transcripts people already have", () => {
  for (const test of cases) {
    it(`${test.fixture}: the words reviewed, never a tool line; grown, reviewed on from its cursor`, () => {
      const { dir, memory } = scratch()
      const file = join(dir, test.fixture)
      copyFileSync(fixture(test.fixture), file)
      const review = (answer: string) =>
        mneme(["review", file, "--model", answers(dir, answer), "--memory", memory, "--show-prompt"])

      const first = review("Kept from the first review")
      assert.strictEqual(first.code, 0, first.stderr)
      assert.include(
        first.stdout,
        `Reviewed ${test.label}: 1 pass (1 model call), cursor at #${test.last} of #${test.last}`
      )
      const [shown] = newLines(first)
      for (const words of test.said) assert.include(shown, words)
      for (const words of test.tools) assert.notInclude(first.stderr, words)
      assert.include(ownMemory(memory), `- Kept from the first review [source: ${test.label} #`)

      // Grown: its lines keep their numbers, so the next review goes on from the cursor.
      const last = test.grow(file)
      const second = review("Kept from the second review")
      assert.strictEqual(second.code, 0, second.stderr)
      assert.include(second.stdout, `cursor at #${last} of #${last}`)
      const [next] = newLines(second)
      assert.include(next, test.grown)
      for (const words of test.said) assert.notInclude(next, words)
      assert.include(ownMemory(memory), "- Kept from the second review [source: ")
      assert.deepStrictEqual(cursors(memory), [last])

      // Grown by tool lines only: nothing to keep, no model call; the cursor passes them.
      const end = test.growTools(file)
      const third = review("Never asked")
      assert.strictEqual(third.code, 0, third.stderr)
      assert.include(third.stdout, `Reviewed ${test.label}: nothing new to review, cursor at #${end} of #${end}`)
      assert.notInclude(third.stderr, "--- model call")
      assert.deepStrictEqual(cursors(memory), [end])
    })
  }

  it("chat messages on standard input, and a shape named with --format", () => {
    const { dir, memory } = scratch()
    const chat = '{"role": "user", "content": "I only drink tea."}\n{"role": "assistant", "content": "Noted."}\n'
    const piped = mnemeIn(
      dir,
      ["review", "-", "--conversation", "c1", "--model", answers(dir, "Dana prefers tea"), "--memory", "memory"],
      {
        input: chat
      }
    )
    assert.strictEqual(piped.code, 0, piped.stderr)
    assert.include(piped.stdout, "Reviewed c1: 1 pass (1 model call), cursor at #2 of #2")
    // Read as another shape, the same rows fail at their first line, in that shape's words.
    writeFileSync(join(dir, "talk.log"), "Dana: I only drink green tea.\n")
    const model = answers(dir, "Dana prefers green tea")
    const named = mnemeIn(dir, ["review", "talk.log", "--format", "chat", "--model", model, "--memory", "memory"])
    assertFailure(named, 1, "talk.log line 1: not a chat message: ")
    const text = mnemeIn(dir, ["review", "talk.log", "--format", "text", "--model", model, "--memory", "memory"])
    assert.strictEqual(text.code, 0, text.stderr)
    assert.include(ownMemory(memory), "- Dana prefers green tea [source: talk #1")
    const bad = mnemeIn(dir, ["review", "talk.log", "--format", "csv", "--model", model])
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, "csv")
  })

  it("a file of none of the shapes fails naming them and its first line that did not fit, and keeps nothing", () => {
    const { dir, memory } = scratch()
    writeFileSync(join(dir, "notes.md"), "\n# My notes\n- tea\n")
    const run = mneme(["review", join(dir, "notes.md"), "--model", answers(dir, "x"), "--memory", memory])
    assertFailure(
      run,
      1,
      "notes.md line 2: fits none of the transcript formats: ",
      '{"seq": 1, "who": "user", "text": "…"}',
      '{"role": "user", "content": "…"}',
      "Claude Code session",
      "Name: text",
      "--format claude-code"
    )
    assert.isFalse(existsSync(memory))
  })
})
