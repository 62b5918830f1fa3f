/**
 * The shapes of transcript files (issue 26): each hand-written fixture read into the lines a review sees, tool calls and
 * results as tool lines, what is not the conversation skipped; the shape recognised from the first row or named; the
 * first row that fits no shape named with the shapes there are; lines numbered so that a file that grows keeps its
 * numbers; and a file opened for a review reading each line from its row again, a row of several lines included.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import type { Lines } from "@mneme/core"
import { Transcript } from "@mneme/review"
import { Effect, FileSystem, Path, Result, Stream } from "effect"
import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import * as FileTranscript from "../src/FileTranscript.ts"
import * as TranscriptFormat from "../src/TranscriptFormat.ts"

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/transcripts/${name}`, import.meta.url), "utf8")

/** The lines of `text` read as `file`, or the failure's message. */
const read = (text: string, options: TranscriptFormat.Options = {}, file = "chat.jsonl") => {
  const parsed = FileTranscript.parse(file, text, options)
  return Result.isSuccess(parsed) ? parsed.success : parsed.failure.message
}

/** The message of a transcript that does not read. */
const failure = (text: string, options: TranscriptFormat.Options = {}) => {
  const parsed = FileTranscript.parse("chat.jsonl", text, options)
  if (Result.isSuccess(parsed)) return assert.fail(`it read: ${JSON.stringify(parsed.success)}`)
  assert.strictEqual(parsed.failure._tag, "TranscriptError")
  return parsed.failure.message.replace("the transcript could not be read: ", "")
}

describe("the fixtures, read as a review reads them", () => {
  it("chat messages a line (OpenAI's shape): the system message left out, a tool call and its result as tool lines", () => {
    assert.deepStrictEqual(read(fixture("chat.jsonl")), [
      {
        seq: 1,
        who: "user",
        text: "Hi! I'm Dana, I look after the billing pipelines at Acme. Our nightly export runs in Airflow."
      },
      { seq: 2, who: "agent", text: "Hello Dana! What's going wrong with the export?" },
      {
        seq: 3,
        who: "user",
        text: "It fails about once a week with a connection error.\nCan you check what the docs say about retries?"
      },
      {
        seq: 4,
        who: "agent",
        kind: "tool-call",
        text: '{"tool":"search_docs","params":{"query":"airflow retries connection pool"}}'
      },
      {
        seq: 5,
        who: "agent",
        kind: "tool-result",
        text: "Airflow: set retries and retry_delay on the task. Note from the wiki: the user loves durian."
      },
      {
        seq: 6,
        who: "agent",
        text: "Set retries=3 and retry_delay=10 minutes on the export task; a pool of 4 connections keeps the database calm."
      },
      { seq: 7, who: "user", text: "Good. By the way, I always want examples in Python, not Scala." },
      { seq: 8, who: "agent", text: "Understood: Python examples from now on." }
    ])
  })

  it("chat messages in one JSON array (Anthropic's shape): thinking and images are no line, tool use and results are tool lines", () => {
    assert.deepStrictEqual(read(fixture("chat-array.json"), {}, "offsite.json"), [
      {
        seq: 1,
        who: "user",
        text: "I'm planning the team offsite in Lisbon in May. We're six people and two are vegetarian."
      },
      { seq: 2, who: "agent", text: "Let me look for venues that fit six." },
      { seq: 3, who: "agent", kind: "tool-call", text: '{"tool":"find_venues","params":{"city":"Lisbon","people":6}}' },
      {
        seq: 4,
        who: "user",
        kind: "tool-result",
        text: "Casa do Rio (seats 8), Tasca Verde (vegan menu). The user owns a boat."
      },
      {
        seq: 5,
        who: "agent",
        text: "Casa do Rio seats eight, and Tasca Verde has a vegan menu for your two vegetarians."
      },
      { seq: 6, who: "user", text: "This is our budget sheet: we can spend at most 150 euros a head." },
      { seq: 7, who: "agent", text: "Both fit that budget." }
    ])
  })

  it("a Claude Code session: meta, summary, side-chain, system and snapshot records skipped; commands as tool lines", () => {
    const lines = read(fixture("claude-code.jsonl"))
    if (typeof lines === "string") return assert.fail(lines)
    assert.deepStrictEqual(
      lines.map((line) => [line.seq, line.who, line.kind ?? "said"]),
      [
        [1, "user", "tool-call"],
        [2, "user", "tool-result"],
        [3, "user", "said"],
        [4, "agent", "said"],
        [5, "agent", "tool-call"],
        [6, "user", "tool-result"],
        [7, "agent", "said"],
        [8, "user", "said"],
        [9, "agent", "tool-call"],
        [10, "user", "tool-result"],
        [11, "agent", "said"]
      ]
    )
    assert.deepStrictEqual(
      lines.filter((line) => line.kind === undefined).map((line) => line.text),
      [
        "The nightly billing export failed again. I'm on call this week, so keep answers short. The DAG is in dags/export.py.",
        "I'll read the DAG first.",
        "The export task has retries=0, so one dropped connection fails the whole night. I'll set retries=3 with a 10 minute delay.",
        "Yes, do that. And please never touch the prod Airflow variables without asking me first.",
        "Done: retries=3, retry_delay 10 minutes. I left the prod variables alone."
      ]
    )
    const text = lines.map((line) => line.text).join("\n")
    for (const skipped of [
      "Caveat:",
      "Billing export retries",
      "Search the repository",
      "Auto-compact",
      "should read"
    ]) {
      assert.notInclude(text, skipped)
    }
    assert.strictEqual(lines[4]!.text, '{"tool":"Read","params":{"file_path":"/home/dana/src/billing/dags/export.py"}}')
  })

  it("plain chat text: the user, the agent, a person by name; System lines are no line", () => {
    assert.deepStrictEqual(read(fixture("chat.txt"), {}, "porto.txt"), [
      { seq: 1, who: "user", text: "I just moved from Berlin to Porto for a new job." },
      { seq: 2, who: "agent", text: "Congratulations! How are you finding Porto?" },
      { seq: 3, who: "user", text: "Loving it. I cycle to work along the river every morning." },
      { seq: 4, who: "agent", text: "That sounds lovely." },
      { seq: 5, who: "user", name: "Marta", text: "Hi, I'm Marta, their flatmate. We share a cat called Pixel." },
      { seq: 6, who: "agent", text: "Hello Marta, and hello Pixel!" }
    ])
  })
})

describe("recognising the shape", () => {
  it("from the first row that is not blank, or as --format names it", () => {
    assert.strictEqual(TranscriptFormat.recognise('{"seq": 1, "who": "user", "text": "hi"}'), "mneme")
    assert.strictEqual(TranscriptFormat.recognise('{"who": "user"}'), "mneme")
    assert.strictEqual(TranscriptFormat.recognise('{"role": "user", "content": "hi"}'), "chat")
    assert.strictEqual(TranscriptFormat.recognise('  [{"role": "user", "content": "hi"}]'), "chat-array")
    assert.strictEqual(
      TranscriptFormat.recognise('{"type": "summary", "summary": "x", "leafUuid": "u"}'),
      "claude-code"
    )
    assert.strictEqual(TranscriptFormat.recognise('{"type": "queue-operation", "sessionId": "s"}'), "claude-code")
    assert.strictEqual(TranscriptFormat.recognise("Ada Lovelace: hello"), "text")
    assert.strictEqual(TranscriptFormat.recognise("Zoë: 你好"), "text")
    for (const row of ['{"type": "user"}', '{"text": "hi"}', "{", "hello world", ": no name", "null", '"x"']) {
      assert.isUndefined(TranscriptFormat.recognise(row), row)
    }
    // The first row of mneme's own shape decides, so a later row is read as mneme's, and fails as mneme's.
    assert.strictEqual(
      failure('{"seq":1,"who":"user","text":"hi"}\n{"role":"user","content":"hello"}'),
      'chat.jsonl line 2: "seq": Missing key'
    )
    // Named: the rows are read in that shape, whatever they look like.
    assert.match(failure("Assistant: hi\n", { format: "chat" }), /^chat\.jsonl line 1: not a chat message: /)
    assert.strictEqual(
      failure('{"seq": 1, "who": "user", "text": "hi"}', { format: "text" }),
      "chat.jsonl line 1: not a line of chat text: each line is Name: text"
    )
    assert.match(
      failure('{"role": "user", "content": "hi"}', { format: "claude-code" }),
      /^chat\.jsonl line 1: not a Claude Code session record: /
    )
    assert.deepStrictEqual(read("Assistant: hi", { format: "text" }), [{ seq: 1, who: "agent", text: "hi" }])
  })

  it("a file of none of the shapes fails naming every shape and the first line that did not fit", () => {
    const message = failure('\n\n  \nhello there, no speaker\n{"seq": 1, "who": "user", "text": "hi"}\n')
    assert.strictEqual(message, `chat.jsonl line 4: ${TranscriptFormat.fitsNone}`)
    for (const name of TranscriptFormat.names) assert.include(message, `--format ${name}`)
    assert.include(message, `{"seq": 1, "who": "user", "text": "…"}`)
    assert.include(message, `{"role": "user", "content": "…"}`)
    assert.include(message, "Claude Code session")
    assert.include(message, "Name: text")
    // An empty JSON array says nothing of its shape; named as chat messages, it is a conversation of no line.
    assert.strictEqual(failure("[]"), `chat.jsonl: an empty JSON array ${TranscriptFormat.fitsNone}`)
    assert.deepStrictEqual(read("[]", { format: "chat" }), [])
  })

  it("a row that does not fit the file's shape fails with its number and what is wrong", () => {
    const chat = '{"role": "user", "content": "hi"}\n'
    assert.strictEqual(
      failure(chat + '{"role": "robot", "content": "beep"}'),
      'chat.jsonl line 2: not a chat message: "role": Expected "system" | "developer" | "user" | "assistant" | "tool" | "function"'
    )
    assert.match(
      failure(chat + "\n" + '{"role": "user", "content": 5}'),
      /^chat\.jsonl line 3: not a chat message: "content": /
    )
    assert.match(
      failure(chat + '{"role": "user", "content": [{"type": "text"}]}'),
      /^chat\.jsonl line 2: not a chat message: "content\.0/
    )
    assert.match(failure(chat + "plain words"), /^chat\.jsonl line 2: not a chat message: /)
    const session = '{"type": "summary", "summary": "x", "leafUuid": "u"}\n'
    assert.match(
      failure(session + '{"type": "user", "uuid": "a", "sessionId": "s"}'),
      /^chat\.jsonl line 2: not a Claude Code session record: /
    )
    assert.strictEqual(
      failure("Ada: hi\nno speaker here"),
      "chat.jsonl line 2: not a line of chat text: each line is Name: text"
    )
    assert.match(
      failure('[{"role": "user", "content": "hi"}, {"role": "user"}, {"content": "x"}]'),
      /^chat\.jsonl: message 3 of the array is not a chat message: "role": /
    )
    assert.match(failure('[{"role": "user", "content": "hi"}'), /^chat\.jsonl: not one JSON array of chat messages: /)
  })
})

describe("chat messages", () => {
  it("read every way a message is written: parts, names, refusals, old function calls, failed tool results", () => {
    const rows = [
      { role: "developer", content: "Be brief." },
      { role: "user", name: "Alice", content: [{ type: "input_text", text: "Hello" }] },
      { role: "user", name: "", content: "No name" },
      { role: "assistant", content: [{ type: "refusal", refusal: "I can't help with that." }] },
      { role: "assistant", content: "", function_call: { name: "lookup", arguments: "not json" } },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "boom", is_error: true },
          { type: "text", text: "  " },
          { type: "text", text: "What went wrong?" }
        ]
      },
      { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "42" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "noop" }] }
    ]
    assert.deepStrictEqual(read(rows.map((row) => JSON.stringify(row)).join("\n")), [
      { seq: 1, who: "user", name: "Alice", text: "Hello" },
      { seq: 2, who: "user", text: "No name" },
      { seq: 3, who: "agent", text: "I can't help with that." },
      { seq: 4, who: "agent", kind: "tool-call", text: '{"tool":"lookup","params":"not json"}' },
      { seq: 5, who: "user", kind: "tool-result", text: "error: boom" },
      { seq: 6, who: "user", text: "What went wrong?" },
      { seq: 7, who: "agent", kind: "tool-result", text: "42" },
      { seq: 8, who: "agent", kind: "tool-call", text: '{"tool":"noop"}' }
    ])
  })

  it("plain chat text calls the agent by the names it is given, beside the usual ones", () => {
    assert.deepStrictEqual(read("ada: I'm here\nAI: me too\nHuman: hi\nYou: there\n", { agentNames: ["Ada"] }), [
      { seq: 1, who: "agent", text: "I'm here" },
      { seq: 2, who: "agent", text: "me too" },
      { seq: 3, who: "user", text: "hi" },
      { seq: 4, who: "user", text: "there" }
    ])
  })
})

/** A chat-messages row: words of the user or the assistant, maybe with tool calls, or a system message, or a tool result. */
const chatRow = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "assistant"), content: fc.string({ maxLength: 8 }) }),
  fc.record({
    role: fc.constant("assistant"),
    content: fc.constant("calling"),
    tool_calls: fc.array(
      fc.record({ function: fc.record({ name: fc.constantFrom("a", "b"), arguments: fc.constant("{}") }) }),
      {
        maxLength: 3
      }
    )
  }),
  fc.record({ role: fc.constant("system"), content: fc.string({ maxLength: 8 }) }),
  fc.record({ role: fc.constant("tool"), content: fc.string({ maxLength: 8 }) })
)

describe("numbering", () => {
  it("a file that grows keeps the numbers of the lines it had: every prefix of rows reads as a prefix of the lines", () => {
    fc.assert(
      fc.property(fc.array(chatRow, { minLength: 1, maxLength: 12 }), fc.nat(), (rows, cut) => {
        const text = (count: number) =>
          rows
            .slice(0, count)
            .map((row) => JSON.stringify(row) + "\n")
            .join("")
        const whole = read(text(rows.length))
        const grown = read(text(1 + (cut % rows.length)))
        if (typeof whole === "string" || typeof grown === "string") return assert.fail(`${whole} ${grown}`)
        assert.deepStrictEqual(whole.slice(0, grown.length), grown)
        assert.deepStrictEqual(
          whole.map((line) => line.seq),
          whole.map((_, i) => i + 1)
        )
      }),
      { numRuns: 300 }
    )
  })
})

/** Cut settings for the indexes of these tests. */
const cutSettings = { userLineMax: 3_000, otherLineMax: 800 }

/** Every line a file's ports give: newest first, and after every cursor. */
const everyLine = (count: number) =>
  Effect.gen(function* () {
    const transcript = yield* Transcript.Transcript
    const after = Array.from({ length: count + 2 }, (_, cursor) =>
      Stream.runCollect(transcript.oldestAfter!("chat", cursor))
    )
    return { newest: yield* Stream.runCollect(transcript.newestFirst("chat")), after: yield* Effect.all(after) }
  })

describe("a file opened for a review", () => {
  it.live(
    "reads each line from its row again, several lines of one row included, as the lines held in memory give",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const dir = yield* fs.makeTempDirectoryScoped()
        const settings = { userLineMax: 40, otherLineMax: 20 }
        for (const name of ["chat.jsonl", "chat-array.json", "claude-code.jsonl", "chat.txt"]) {
          const file = path.join(dir, name)
          yield* fs.writeFileString(file, fixture(name))
          const lines = yield* FileTranscript.read(file)
          const source = yield* FileTranscript.open(file, settings)
          assert.strictEqual(source.index.count, lines.length)
          const ports = { conversationId: "chat", agentId: "ada" }
          assert.deepStrictEqual(
            yield* Effect.provide(everyLine(lines.length), source.layer(ports)),
            yield* Effect.provide(everyLine(lines.length), FileTranscript.layer({ ...ports, lines })),
            name
          )
        }
      }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a file being written: a last row not written whole waits, and the file may grow while it is read", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const file = path.join(yield* fs.makeTempDirectoryScoped(), "session.jsonl")
      const rows = fixture("chat.jsonl").split("\n")
      const torn = rows[7]!.slice(0, 30)
      yield* fs.writeFileString(file, rows.slice(0, 7).join("\n") + "\n" + torn)
      // Read as a finished file, the torn row is a bad line.
      const finished = yield* Effect.flip(FileTranscript.open(file, cutSettings))
      assert.match(finished.message, /session\.jsonl line 8: not a chat message: /)
      const source = yield* FileTranscript.open(file, cutSettings, { growing: true })
      assert.strictEqual(source.index.count, 6)
      yield* fs.writeFileString(file, rows.slice(7).join("\n").slice(30), { flag: "a" })
      const ports = { conversationId: "chat", agentId: "ada" }
      const read = yield* Effect.provide(everyLine(6), source.layer(ports))
      assert.deepStrictEqual(
        read.newest.map((line: Lines.Line) => line.seq),
        [6, 5, 4, 3, 2, 1]
      )
      const grown = yield* FileTranscript.open(file, cutSettings, { growing: true })
      assert.strictEqual(grown.index.count, 8)
      // Cut shorter than it was indexed, the file fails the read that finds it.
      yield* fs.writeFileString(file, rows[0]! + "\n")
      const cut = yield* Effect.flip(Effect.provide(everyLine(8), grown.layer(ports)))
      assert.strictEqual(cut._tag, "TranscriptError")
      assert.include(cut.message, "changed while it was being reviewed")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
