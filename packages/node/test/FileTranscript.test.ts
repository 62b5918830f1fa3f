import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Lines, MemoryConfig } from "@mneme/core"
import { Agents, Memory, MemoryReview, Platform, type ReviewOutcome, ReviewState, Transcript } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect, FileSystem, Layer, Logger, Path, Result, Schema, type Scope, Stream } from "effect"
import * as fc from "fast-check"
import * as FileTranscript from "../src/FileTranscript.ts"
import * as TranscriptIndex from "../src/internal/transcriptIndex.ts"

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

  it("reads any row as the Line schema does: the same line, key for key, or a failure", () => {
    const decode = Schema.decodeUnknownResult(Schema.fromJsonString(Lines.Line))
    const odd = fc.oneof(
      fc.constantFrom(null, true, [], {}, "", "thought", -1, -0, 1.5, 2 ** 53, 2 ** 53 + 2, 1e300),
      fc.double(),
      fc.string()
    )
    // A line as the schema reads it (some with a name and a kind), then perhaps one field changed, dropped or added,
    // its keys in any order.
    const row = fc
      .record(
        {
          seq: fc.nat(),
          who: fc.constantFrom("user", "agent", "other"),
          name: fc.string(),
          text: fc.string(),
          kind: fc.constantFrom("tool-call", "tool-result", "memory")
        },
        { requiredKeys: ["seq", "who", "text"] }
      )
      .chain((line) =>
        fc.tuple(
          fc.constant(line),
          fc.constantFrom("none", "seq", "who", "name", "text", "kind", "extra"),
          fc.oneof(odd, fc.constant(undefined))
        )
      )
      .map(([line, key, value]) => (key === "none" ? line : { ...line, [key]: value }))
      .chain((fields) => fc.shuffledSubarray(Object.entries(fields), { minLength: Object.keys(fields).length }))
      .map((entries) => JSON.stringify(Object.fromEntries(entries.filter(([, value]) => value !== undefined))))
    const rows = fc.oneof(row, fc.constantFrom("[]", "null", "1", '"x"', "{", '{"seq":1,"who":"user","text":"x"} x'))
    fc.assert(
      fc.property(rows, (source) => {
        const expected = decode(source)
        const parsed = FileTranscript.parse("chat.jsonl", source)
        if (Result.isSuccess(expected) && (expected.success.who !== "other" || expected.success.name?.trim())) {
          const lines = Result.getOrThrow(parsed)
          assert.strictEqual(JSON.stringify(lines), JSON.stringify([expected.success]))
          assert.isTrue(Object.is(lines[0]!.seq, expected.success.seq))
        } else {
          assert.isTrue(Result.isFailure(parsed), source)
        }
      }),
      { numRuns: 2_000 }
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

/** Cut settings small enough that many lines are cut, so the sizes an index keeps are not just the lines' lengths. */
const cutSettings = { userLineMax: 24, otherLineMax: 12 }

/** A line's text: any graphemes, or text above U+00FF (accents, CJK, emoji), or a line long enough to be cut. */
const lineText = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constantFrom("Café — naïve, déjà vu", "東京の出張は五月です。", "🙂📎 👩‍💻 ok", "word ".repeat(12))
)

/** A transcript line but for its seq: who, what, and how far its seq is past the one before. */
const lineRow = fc.record({
  who: fc.constantFrom("user", "agent", "other"),
  text: lineText,
  kind: fc.option(fc.constantFrom("tool-call", "tool-result", "memory"), { nil: undefined }),
  step: fc.integer({ min: 1, max: 3 })
})

/** A row of a transcript: a line, a blank row, and (when `bad`) rows that are not lines. */
const rowOf = (bad: boolean) =>
  fc.oneof(
    { weight: 8, arbitrary: lineRow },
    { weight: 1, arbitrary: fc.constantFrom("", "  ") },
    { weight: bad ? 1 : 0, arbitrary: fc.constantFrom('{"seq":1,"who":"bot","text":"x"}', "not json") }
  )

/**
 * A transcript's text, with its rows' line ends (LF, CRLF, CR), maybe a byte order mark first and maybe no line end
 * last; with `bad`, some rows are not lines.
 */
const transcriptText = (bad: boolean) =>
  fc
    .tuple(
      fc.boolean(),
      fc.array(fc.tuple(rowOf(bad), fc.constantFrom("\n", "\r\n", "\r")), { maxLength: 14 }),
      fc.boolean()
    )
    .map(([bom, rows, lastEnd]) => {
      let seq = 0
      const text = rows
        .map(([row, end], i) => {
          if (typeof row === "string") return row + end
          seq += row.step
          const { who, text, kind } = row
          const line = { seq, who, ...(who === "other" ? { name: "Bo" } : {}), text, ...(kind ? { kind } : {}) }
          return JSON.stringify(line) + (lastEnd || i < rows.length - 1 ? end : "")
        })
        .join("")
      return (bom ? "\uFEFF" : "") + text
    })

/** `bytes` cut at `cuts`, or between every two bytes. */
const chunked = (bytes: Uint8Array, cuts: ReadonlyArray<number> | "every byte"): Array<Uint8Array> => {
  const at =
    cuts === "every byte"
      ? Array.from({ length: bytes.length }, (_, i) => i + 1)
      : [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  return [0, ...at].map((from, i) => bytes.slice(from, [...at, bytes.length][i]))
}
const cuts = fc.oneof(fc.array(fc.nat(), { maxLength: 6 }), fc.constant("every byte" as const))

/** The one line that the bytes an index gives for line `i` hold. */
const lineIn = (bytes: Uint8Array, lines: TranscriptIndex.FileIndex, i: number) => {
  const row = new TextDecoder().decode(bytes.subarray(lines.offsetAt(i), lines.offsetAt(i) + lines.lengthAt(i)))
  return Result.getOrThrow(FileTranscript.parse("row", row))
}

/** Every number an index gives, line by line. */
const numbers = (lines: TranscriptIndex.Index) =>
  Array.from({ length: lines.count }, (_, i) => [lines.seqAt(i), lines.userAt(i), lines.cutSizeAt(i)])

describe("FileTranscript.index", () => {
  it.effect(
    "reads what readStream reads, cut anywhere, failing the same way; each line's bytes are where it says",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(transcriptText(true), cuts, async (text, at) => {
            const bytes = new TextEncoder().encode(text)
            const streamed = await Effect.runPromise(
              Effect.result(FileTranscript.readStream("chat.jsonl", Stream.fromIterable(chunked(bytes, at))))
            )
            const indexed = await Effect.runPromise(
              Effect.result(FileTranscript.index("chat.jsonl", Stream.fromIterable(chunked(bytes, at)), cutSettings))
            )
            const whole = FileTranscript.parse("chat.jsonl", text.replace(/^\uFEFF/, ""))
            assert.deepStrictEqual(
              Result.isSuccess(streamed) ? streamed.success : streamed.failure.message,
              Result.isSuccess(whole) ? whole.success : whole.failure.message
            )
            if (Result.isFailure(streamed) || Result.isFailure(indexed)) {
              assert.strictEqual(
                Result.isFailure(indexed) ? indexed.failure.message : "indexed",
                Result.isFailure(streamed) ? streamed.failure.message : "read"
              )
              return
            }
            const lines = streamed.success
            assert.deepStrictEqual(numbers(indexed.success), numbers(TranscriptIndex.ofLines(lines, cutSettings)))
            lines.forEach((line, i) => assert.deepStrictEqual(lineIn(bytes, indexed.success, i), [line]))
          }),
          { numRuns: 500 }
        )
      )
  )

  it.effect(
    "splits rows at CRLF, CR and LF, drops the leading BOM, and keeps multi-byte text whole, a byte a chunk",
    () =>
      Effect.gen(function* () {
        const rows = [
          '{"seq":1,"who":"user","text":"Café — naïve 東京"}',
          '{"seq":2,"who":"agent","text":"👩‍💻 ok 🙂"}',
          '{"seq":4,"who":"user","text":"\uFEFFstill a BOM inside"}',
          '{"seq":7,"who":"user","kind":"tool-result","text":"done"}'
        ]
        const text = `\uFEFF${rows[0]}\r\n${rows[1]}\r\r\n${rows[2]}\n\r${rows[3]}`
        const bytes = new TextEncoder().encode(text)
        const size = (row: string) => new TextEncoder().encode(row).length
        const offsets = [3, 3 + size(rows[0]!) + 2]
        offsets.push(offsets[1]! + size(rows[1]!) + 3, offsets[1]! + size(rows[1]!) + 3 + size(rows[2]!) + 2)
        for (const at of [[], "every byte" as const]) {
          const lines = yield* FileTranscript.index("chat.jsonl", Stream.fromIterable(chunked(bytes, at)), cutSettings)
          assert.strictEqual(lines.count, 4)
          assert.deepStrictEqual(
            Array.from({ length: 4 }, (_, i) => [lines.offsetAt(i), lines.lengthAt(i)]),
            rows.map((row, i) => [offsets[i], size(row)])
          )
          assert.deepStrictEqual(
            Array.from({ length: 4 }, (_, i) => lineIn(bytes, lines, i)[0]!.text),
            ["Café — naïve 東京", "👩‍💻 ok 🙂", "\uFEFFstill a BOM inside", "done"]
          )
          assert.deepStrictEqual(numbers(lines), [
            [1, true, 15],
            [2, false, 8],
            [4, true, 19],
            [7, false, 4]
          ])
        }
        // A row that ends inside a character is not text.
        const halfE = new Uint8Array([...new TextEncoder().encode('{"seq":1,"who":"user","text":"'), 0xc3, 0x0a])
        const broken = yield* Effect.flip(FileTranscript.index("chat.jsonl", Stream.make(halfE), cutSettings))
        assert.strictEqual(
          broken.message,
          "the transcript could not be read: chat.jsonl is not a text file: it holds bytes that are not UTF-8 text"
        )
      })
  )
})

/** Runs `effect` with Node's file system, in a scope of its own. */
const onNode = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  Effect.runPromise(effect.pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

/** Every read of conversation `chat`: newest first, and after and up to every cursor from before its first line on. */
const everyRead = (first: number, last: number) =>
  Effect.gen(function* () {
    const transcript = yield* Transcript.Transcript
    const { oldestAfter, newestUpTo } = transcript
    if (oldestAfter === undefined || newestUpTo === undefined) return assert.fail("the transcript seeks")
    const cursors = Array.from({ length: last - first + 5 }, (_, i) => first - 2 + i)
    return {
      newestFirst: yield* Stream.runCollect(transcript.newestFirst("chat")),
      oldestAfter: yield* Effect.forEach(cursors, (cursor) => Stream.runCollect(oldestAfter("chat", cursor))),
      newestUpTo: yield* Effect.forEach(cursors, (seq) => Stream.runCollect(newestUpTo("chat", seq)))
    }
  })

/** A file of `text` in a new temporary folder. */
const fileOf = (text: string, name = "chat.jsonl") =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(yield* fs.makeTempDirectoryScoped(), name)
    yield* fs.writeFileString(file, text)
    return file
  })

/** Reads of a file and of its lines held in memory give the same lines, and their indexes the same numbers. */
const sameAsInMemory = (text: string) =>
  Effect.gen(function* () {
    const file = yield* fileOf(text)
    const source = yield* FileTranscript.open(file, cutSettings)
    const lines = yield* FileTranscript.read(file)
    assert.deepStrictEqual(numbers(source.index), numbers(TranscriptIndex.ofLines(lines, cutSettings)))
    const ports = { conversationId: "chat", agentId: "ada" }
    const reads = everyRead(lines[0]?.seq ?? 0, lines.at(-1)?.seq ?? 0)
    assert.deepStrictEqual(
      yield* Effect.provide(reads, source.layer(ports)),
      yield* Effect.provide(reads, FileTranscript.layer({ ...ports, lines }))
    )
  })

/** What a read of a file that changed while it was reviewed says. */
const changedMessage = (file: string) =>
  `the transcript could not be read: ${file} changed while it was being reviewed; run the review again to go on from ` +
  "where it stopped"

describe("FileTranscript.open", () => {
  it.effect("reads each line from the file as the review pulls it: the lines the same file held in memory gives", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(transcriptText(false), (text) => onNode(sameAsInMemory(text))),
        { numRuns: 100 }
      )
    )
  )

  it.live("indexes thousands of lines, and reads any of them", () => {
    const text = Array.from({ length: 3_000 }, (_, i) =>
      JSON.stringify({
        seq: 2 * i + 1,
        who: i % 3 === 0 ? "user" : "agent",
        text: `line ${i} ${"·é東🙂".repeat(i % 7)}`
      })
    ).join("\r\n")
    return Effect.gen(function* () {
      const file = yield* fileOf(text)
      const source = yield* FileTranscript.open(file, cutSettings)
      const lines = yield* FileTranscript.read(file)
      assert.strictEqual(source.index.count, 3_000)
      assert.deepStrictEqual(numbers(source.index), numbers(TranscriptIndex.ofLines(lines, cutSettings)))
      const transcript = source.layer({ conversationId: "chat", agentId: "ada" })
      const read = Effect.gen(function* () {
        const { oldestAfter, newestUpTo } = yield* Transcript.Transcript
        return [
          yield* Stream.runCollect(Stream.take(oldestAfter!("chat", 4_000), 3)),
          yield* Stream.runCollect(Stream.take(newestUpTo!("chat", 4_000), 3))
        ]
      })
      assert.deepStrictEqual(yield* Effect.provide(read, transcript), [
        lines.slice(2_000, 2_003),
        lines.slice(1_997, 2_000).reverse()
      ])
    }).pipe(Effect.provide(NodeServices.layer))
  })

  it.live("fails as read does on what is not a transcript file: a folder, a file not there, a bad line", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      const bad = path.join(dir, "bad.jsonl")
      yield* fs.writeFileString(bad, '{"seq":1,"who":"user","text":"hi"}\n{"seq":1,"who":"user","text":"again"}\n')
      for (const file of [dir, path.join(dir, "none.jsonl"), bad]) {
        const opened = yield* Effect.flip(FileTranscript.open(file, cutSettings))
        const read = yield* Effect.flip(FileTranscript.read(file))
        assert.strictEqual(opened._tag, "TranscriptError")
        assert.strictEqual(opened.message, read.message)
      }
      assert.include((yield* Effect.flip(FileTranscript.open(dir, cutSettings))).message, "is a folder")
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a file changed after it was indexed fails the read that finds it: grown, or rewritten in place", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const rows = ['{"seq":1,"who":"user","text":"tea"}', '{"seq":2,"who":"agent","text":"yes"}']
      const text = rows.join("\n") + "\n"
      /** Opens the file, changes it as `change` does, and reads all of it newest first. */
      const readAfter = (change: (file: string) => Effect.Effect<void, unknown>) =>
        Effect.gen(function* () {
          const file = yield* fileOf(text)
          // A time of change in whole seconds, put back after the change, so that only the bytes tell.
          const when = new Date(1_700_000_000_000)
          yield* fs.utimes(file, when, when)
          const source = yield* FileTranscript.open(file, cutSettings)
          yield* Effect.orDie(change(file))
          yield* fs.utimes(file, when, when)
          const read = Effect.flatMap(Transcript.Transcript, (transcript) =>
            Stream.runCollect(transcript.newestFirst("chat"))
          )
          const failed = yield* Effect.flip(
            Effect.provide(read, source.layer({ conversationId: "chat", agentId: "ada" }))
          )
          assert.strictEqual(failed._tag, "TranscriptError")
          assert.strictEqual(failed.message, changedMessage(file))
        })
      // Grown by a line.
      yield* readAfter((file) => fs.writeFileString(file, '{"seq":3,"who":"user","text":"more"}\n', { flag: "a" }))
      // The same size, the same time: a line whose seq is not the one indexed, then a line that is not one.
      yield* readAfter((file) => fs.writeFileString(file, text.replace('"seq":2', '"seq":3')))
      yield* readAfter((file) => fs.writeFileString(file, text.replace('"who":"agent"', '"who":"agen"}')))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a file that changes during a run fails the review that reads it, and loses nothing", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = path.join(dir, "chat.jsonl")
      const rows = [
        { seq: 1, who: "user", text: "I drink oolong tea every morning." },
        { seq: 2, who: "agent", text: "Noted." },
        { seq: 3, who: "user", text: "I moved to Lisbon last spring." },
        { seq: 4, who: "agent", text: "Lovely." }
      ]
      yield* fs.writeFileString(file, rows.map((row) => JSON.stringify(row) + "\n").join(""))
      // One review reads lines 1 and 2 (39 characters); line 3 would take it past 50.
      const settings = { newLinesBudget: 50 }
      const add = (text: string) => JSON.stringify({ changes: [{ op: "add", text }] })
      const key = MemoryReview.cursorKey("chat")
      const warnings: Array<string> = []
      const logs = Logger.layer([
        Logger.make((options) => {
          if (options.logLevel === "Warn") warnings.push([options.message].flat().map(String).join(" "))
        })
      ])
      /** Reviews the file as it is now, from the cursor (0 when there is none), `times` times. */
      const reviews = (times: number, answers: ReadonlyArray<Testing.Scripted>) =>
        Effect.gen(function* () {
          const source = yield* FileTranscript.open(file, MemoryConfig.make(settings))
          const ports = Layer.mergeAll(
            source.layer({ conversationId: "chat", agentId: "ada" }),
            Testing.scriptedModel(answers),
            Platform.layerTest(),
            logs
          )
          return yield* Effect.gen(function* () {
            const state = yield* ReviewState.ReviewState
            if ((yield* state.cursor(key)) === undefined) yield* state.setCursor(key, 0)
            const outcomes: Array<ReviewOutcome.Outcome> = []
            for (let i = 0; i < times; i++) outcomes.push(yield* (yield* MemoryReview.MemoryReview).reviewNow("chat"))
            const requests = yield* (yield* Testing.ScriptedModel).requests
            return { outcomes, requests, cursor: yield* state.cursor(key) }
          }).pipe(
            Effect.provide(Memory.layer({ root: path.join(dir, "memory"), settings }).pipe(Layer.provideMerge(ports)))
          )
        })
      // The host writes a line while the model answers the first review.
      const appended = fs.writeFileString(file, '{"seq":5,"who":"user","text":"And I keep bees."}\n', { flag: "a" })
      const first = yield* reviews(2, [Effect.as(Effect.orDie(appended), add("The user drinks oolong tea"))])
      const [reviewed, failed] = first.outcomes
      assert.strictEqual(reviewed?._tag, "Reviewed")
      assert.strictEqual(reviewed?.cursor, 2)
      assert.strictEqual(failed?._tag, "Failed")
      if (failed?._tag !== "Failed") return
      assert.strictEqual(failed.error._tag, "TranscriptError")
      assert.strictEqual(failed.error.message, changedMessage(file))
      assert.strictEqual(failed.cursor, 2)
      assert.strictEqual(first.cursor, 2)
      assert.strictEqual(first.requests.length, 1, "no call was made for the lines the changed file holds")
      assert.deepStrictEqual(warnings, ["memory review failed"])
      const memoryFile = path.join(dir, "memory", "agents", "ada", "MEMORY.md")
      assert.include(yield* fs.readFileString(memoryFile), "- The user drinks oolong tea [source: chat #")
      // Read again, the file is reviewed on from the cursor: the user's lines after it are all read.
      const again = yield* reviews(2, [add("The user lives in Lisbon"), add("The user keeps bees")])
      assert.deepStrictEqual(
        again.outcomes.map((outcome) => [outcome._tag, outcome.cursor]),
        [
          ["Reviewed", 4],
          ["Reviewed", 5]
        ]
      )
      assert.include(again.requests[0]!.request, "I moved to Lisbon last spring.")
      assert.include(again.requests[1]!.request, "And I keep bees.")
      const memory = yield* fs.readFileString(memoryFile)
      for (const entry of ["drinks oolong tea", "lives in Lisbon", "keeps bees"]) assert.include(memory, entry)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
