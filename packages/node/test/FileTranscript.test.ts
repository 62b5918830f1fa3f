import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Agents, Transcript } from "@mneme/review"
import { Effect, FileSystem, Path, Result, Stream } from "effect"
import * as FileTranscript from "../src/FileTranscript.ts"

const failure = (content: string): string => {
  const parsed = FileTranscript.parse("chat.jsonl", content)
  if (Result.isSuccess(parsed)) return assert.fail("the transcript parsed")
  assert.strictEqual(parsed.failure._tag, "TranscriptError")
  return parsed.failure.message
}

describe("FileTranscript.parse", () => {
  it("reads one line a row, oldest first, skipping blank rows and reading CRLF", () => {
    const parsed = FileTranscript.parse(
      "chat.jsonl",
      '{"seq":1,"who":"user","text":"hi"}\r\n\n{"seq":2,"who":"agent","text":"hello"}\n' +
        '{"seq":5,"who":"other","name":"Bob","text":"hey"}\n'
    )
    assert.deepStrictEqual(Result.getOrThrow(parsed), [
      { seq: 1, who: "user", text: "hi" },
      { seq: 2, who: "agent", text: "hello" },
      { seq: 5, who: "other", name: "Bob", text: "hey" }
    ])
  })

  it("reads a line's kind: a tool call, a tool result or quoted memory (issue 12)", () => {
    const parsed = FileTranscript.parse(
      "chat.jsonl",
      '{"seq":1,"who":"agent","kind":"tool-call","text":"{}"}\n{"seq":2,"who":"user","kind":"tool-result","text":"ok"}\n'
    )
    assert.deepStrictEqual(Result.getOrThrow(parsed), [
      { seq: 1, who: "agent", kind: "tool-call", text: "{}" },
      { seq: 2, who: "user", kind: "tool-result", text: "ok" }
    ])
    assert.strictEqual(
      failure('{"seq":1,"who":"agent","kind":"thought","text":"x"}'),
      'the transcript could not be read: chat.jsonl line 1: "kind": Expected "tool-call" | "tool-result" | "memory"'
    )
  })

  it("names the line and what is wrong with it", () => {
    const good = '{"seq":1,"who":"user","text":"hi"}\n'
    assert.strictEqual(
      failure(good + '{"seq":2,"who":"bot","text":"x"}'),
      'the transcript could not be read: chat.jsonl line 2: "who": Expected "user" | "agent" | "other"'
    )
    assert.include(failure(good + "\n" + '{"seq":2,"who":"user"'), "chat.jsonl line 3: ")
    assert.include(failure('{"seq":1.5,"who":"user","text":"x"}'), 'chat.jsonl line 1: "seq": ')
    assert.include(failure('{"seq":1,"who":"user"}'), 'chat.jsonl line 1: "text": ')
    assert.include(failure('{"seq":1,"who":"other","text":"x"}'), 'chat.jsonl line 1: an "other" line needs a "name"')
    assert.include(
      failure(good + '{"seq":1,"who":"user","text":"again"}'),
      'chat.jsonl line 2: "seq" 1 does not follow 1'
    )
  })
})

describe("FileTranscript.layer", () => {
  const lines = [
    { seq: 1, who: "user", text: "hi" },
    { seq: 2, who: "agent", text: "hello" }
  ] as const
  const ports = FileTranscript.layer({ lines, conversationId: "chat", agentId: "ada" })

  it.effect("serves the conversation newest first, its agent, and anchors", () =>
    Effect.gen(function* () {
      const transcript = yield* Transcript.Transcript
      const agents = yield* Agents.Agents
      const newest = yield* Stream.runCollect(transcript.newestFirst("chat"))
      assert.deepStrictEqual(
        newest.map((line) => line.seq),
        [2, 1]
      )
      assert.strictEqual(yield* transcript.agentOf("chat"), "ada")
      assert.strictEqual(yield* transcript.anchor("chat", 2), "chat #2")
      assert.deepStrictEqual(yield* agents.get("ada"), { id: "ada", name: "ada", mayWriteTeam: true })
      assert.isUndefined(yield* agents.get("bob"))
      const other = yield* Effect.flip(transcript.agentOf("elsewhere"))
      assert.strictEqual(other._tag, "TranscriptError")
      assert.strictEqual(
        other.message,
        'the transcript could not be read: no conversation "elsewhere" in this transcript file'
      )
    }).pipe(Effect.provide(ports))
  )

  it.effect("reads from a cursor: the lines after it oldest first, and the lines up to a seq newest first", () =>
    Effect.gen(function* () {
      const transcript = yield* Transcript.Transcript
      const seqs = (stream: Stream.Stream<{ readonly seq: number }, unknown>) =>
        Effect.map(Stream.runCollect(stream), (read) => read.map((line) => line.seq))
      const { oldestAfter, newestUpTo } = transcript
      if (oldestAfter === undefined || newestUpTo === undefined) return assert.fail("the file transcript seeks")
      assert.deepStrictEqual(yield* seqs(oldestAfter("chat", 0)), [2, 5, 9])
      assert.deepStrictEqual(yield* seqs(oldestAfter("chat", 2)), [5, 9])
      assert.deepStrictEqual(yield* seqs(oldestAfter("chat", 3)), [5, 9])
      assert.deepStrictEqual(yield* seqs(oldestAfter("chat", 9)), [])
      assert.deepStrictEqual(yield* seqs(newestUpTo("chat", 9)), [9, 5, 2])
      assert.deepStrictEqual(yield* seqs(newestUpTo("chat", 8)), [5, 2])
      assert.deepStrictEqual(yield* seqs(newestUpTo("chat", 1)), [])
      const other = yield* Effect.flip(Stream.runCollect(oldestAfter("elsewhere", 0)))
      assert.strictEqual(other._tag, "TranscriptError")
    }).pipe(
      Effect.provide(
        FileTranscript.layer({
          lines: [
            { seq: 2, who: "user", text: "a" },
            { seq: 5, who: "agent", text: "b" },
            { seq: 9, who: "user", text: "c" }
          ],
          conversationId: "chat",
          agentId: "ada"
        })
      )
    )
  )

  it.live("reads a file, and names a conversation after the file", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = path.join(dir, "part-1.jsonl")
      yield* fs.writeFileString(file, '{"seq":3,"who":"user","text":"tea"}\n')
      assert.deepStrictEqual(yield* FileTranscript.read(file), [{ seq: 3, who: "user", text: "tea" }])
      assert.strictEqual(FileTranscript.labelOf(path, file), "part-1")
      const hash = (text: string) => (text === `ada\u0000${file}` ? "0123456789abcdef" : "fedcba9876543210")
      assert.strictEqual(FileTranscript.conversationOf(path, file, "ada", hash), "part-1-0123456789ab")
      assert.strictEqual(FileTranscript.conversationOf(path, file, "bob", hash), "part-1-fedcba987654")
      const missing = yield* Effect.flip(FileTranscript.read(path.join(dir, "none.jsonl")))
      assert.strictEqual(missing._tag, "TranscriptError")
      assert.include(missing.message, "none.jsonl")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
