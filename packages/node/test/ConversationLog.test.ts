import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import type { Lines } from "@mneme/core"
import { Agents, FileRoot, Transcript } from "@mneme/review"
import { Effect, FileSystem, Layer, Path, Result, Stream } from "effect"
import * as ConversationLog from "../src/ConversationLog.ts"
import * as FileTranscript from "../src/FileTranscript.ts"
import * as NodePlatform from "../src/NodePlatform.ts"

/** The conversation logs over a fresh memory root, on the file system `fs` gives (the real one by default). */
const logs = (root: string, fs: Layer.Layer<never, never, FileSystem.FileSystem> = Layer.empty) =>
  ConversationLog.layer({ root }).pipe(
    Layer.provide(FileRoot.layer({ root })),
    Layer.provide(fs),
    Layer.provide(NodePlatform.layer)
  )

/** A fresh memory root, the logs over it, and helpers to read and write its files. */
const setup = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = path.join(yield* fs.makeTempDirectoryScoped(), "memory")
  const log = path.join(root, "conversations", "chat-1.jsonl")
  const write = (text: string) =>
    Effect.andThen(fs.makeDirectory(path.dirname(log), { recursive: true }), fs.writeFileString(log, text))
  return { fs, path, root, log, write, read: fs.readFileString(log) }
})

const newest = (conversation: string) =>
  Effect.flatMap(ConversationLog.ConversationLog, (log) => Stream.runCollect(log.newestFirst(conversation)))

const line = (seq: number, text: string, who: "user" | "agent" = "user") =>
  JSON.stringify({ seq, who, text, agent: "ada" })

describe("ConversationLog", () => {
  it.live("appends lines numbered on from the last, as the agent's, in the shape mneme review reads", () =>
    Effect.gen(function* () {
      const { root, read } = yield* setup
      yield* Effect.gen(function* () {
        const log = yield* ConversationLog.ConversationLog
        const first = yield* log.append("chat-1", "ada", [
          { who: "user", text: "I moved to Lisbon" },
          { who: "agent", text: "Noted" }
        ])
        assert.deepStrictEqual(first, { conversation: "chat-1", lines: 2, first: 1, last: 2 })
        const second = yield* log.append("chat-1", "ada", [
          { text: "Welcome!", name: "Bob", who: "other" },
          { kind: "tool-call", text: '{"tool":"recall"}', who: "agent" }
        ])
        assert.deepStrictEqual(second, { conversation: "chat-1", lines: 2, first: 3, last: 4 })
        const text = yield* read
        assert.strictEqual(
          text,
          [
            '{"seq":1,"who":"user","text":"I moved to Lisbon","agent":"ada"}',
            '{"seq":2,"who":"agent","text":"Noted","agent":"ada"}',
            '{"seq":3,"who":"other","name":"Bob","text":"Welcome!","agent":"ada"}',
            '{"seq":4,"who":"agent","text":"{\\"tool\\":\\"recall\\"}","kind":"tool-call","agent":"ada"}',
            ""
          ].join("\n")
        )
        const lines: ReadonlyArray<Lines.Line> = [
          { seq: 1, who: "user", text: "I moved to Lisbon" },
          { seq: 2, who: "agent", text: "Noted" },
          { seq: 3, who: "other", name: "Bob", text: "Welcome!" },
          { seq: 4, who: "agent", kind: "tool-call", text: '{"tool":"recall"}' }
        ]
        // `mneme review` reads the log as it is.
        assert.deepStrictEqual(Result.getOrThrow(FileTranscript.parse("chat-1.jsonl", text)), lines)
        assert.deepStrictEqual(yield* newest("chat-1"), lines.toReversed())
        assert.strictEqual(yield* log.agentOf("chat-1"), "ada")
        assert.isUndefined(yield* log.agentOf("chat-2"))
        assert.deepStrictEqual(yield* newest("chat-2"), [])
        const none = yield* log.append("chat-1", "ada", [])
        assert.deepStrictEqual(none, { conversation: "chat-1", lines: 0, first: undefined, last: undefined })
        assert.strictEqual(yield* read, text)
      }).pipe(Effect.provide(logs(root)))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("reads a long log from its end a chunk at a time: its newest lines cost two chunks, not the log", () =>
    Effect.gen(function* () {
      const { root, write } = yield* setup
      // 40,000 lines of about 100 bytes, with text of two, three and four bytes a character across the chunks' ends.
      const texts = Array.from({ length: 40_000 }, (_, i) => `line ${i + 1}: 東京 café 😀 ${"x".repeat(i % 70)}`)
      yield* write(texts.map((text, i) => line(i + 1, text)).join("\n") + "\n")
      let requested = 0
      const counting = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (fs) =>
          FileSystem.FileSystem.of({
            ...fs,
            open: (path, options) =>
              Effect.map(
                fs.open(path, options),
                (file) =>
                  new Proxy(file, {
                    get: (target, key) =>
                      key === "readAlloc"
                        ? (size: number, read?: FileSystem.File.ReadOptions) => {
                            requested += size
                            return target.readAlloc(size, read)
                          }
                        : Reflect.get(target, key)
                  })
              )
          })
        )
      )
      yield* Effect.gen(function* () {
        const log = yield* ConversationLog.ConversationLog
        const three = yield* Stream.runCollect(log.newestFirst("chat-1").pipe(Stream.take(3)))
        assert.deepStrictEqual(
          three.map((read) => read.text),
          texts.slice(-3).toReversed()
        )
        assert.isAtMost(requested, 2 * ConversationLog.chunkSize)
        const all = yield* newest("chat-1")
        assert.strictEqual(all.length, texts.length)
        assert.deepStrictEqual(
          all.map((read) => read.text),
          texts.toReversed()
        )
        assert.deepStrictEqual(all.map((read) => read.seq).slice(0, 3), [40_000, 39_999, 39_998])
      }).pipe(Effect.provide(logs(root, counting)))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("skips the remains of a torn write, which the next append removes; a last line without a break is read", () =>
    Effect.gen(function* () {
      const { root, write, read } = yield* setup
      yield* Effect.gen(function* () {
        const log = yield* ConversationLog.ConversationLog
        yield* write(`${line(1, "a")}\n${line(2, "b")}\n{"seq":3,"who":"us`)
        assert.deepStrictEqual(
          (yield* newest("chat-1")).map((read) => read.seq),
          [2, 1]
        )
        assert.deepStrictEqual(yield* log.append("chat-1", "ada", [{ who: "user", text: "c" }]), {
          conversation: "chat-1",
          lines: 1,
          first: 3,
          last: 3
        })
        assert.strictEqual(yield* read, `${line(1, "a")}\n${line(2, "b")}\n${line(3, "c")}\n`)

        yield* write(`${line(1, "a")}\n${line(2, "b")}`)
        assert.deepStrictEqual(
          (yield* newest("chat-1")).map((read) => read.seq),
          [2, 1]
        )
        yield* log.append("chat-1", "ada", [{ who: "user", text: "c" }])
        assert.strictEqual(yield* read, `${line(1, "a")}\n${line(2, "b")}\n${line(3, "c")}\n`)
      }).pipe(Effect.provide(logs(root)))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live(
    "refuses a conversation id that is no safe file name, an other line without a name, another agent's log",
    () =>
      Effect.gen(function* () {
        const { fs, path, root, write, read } = yield* setup
        yield* Effect.gen(function* () {
          const log = yield* ConversationLog.ConversationLog
          for (const id of ["../x", "a/b", "", "x".repeat(129), "chat.1", "con", "NUL"]) {
            const refused = yield* Effect.flip(log.append(id, "ada", [{ who: "user", text: "hi" }]))
            assert.strictEqual(refused._tag, "BadConversation", id)
          }
          const refused = yield* Effect.flip(log.append("../x", "ada", [{ who: "user", text: "hi" }]))
          assert.strictEqual(
            refused.message,
            'conversation "../x": a conversation id is 1-128 letters, digits, _ or - (the same id for every turn of one conversation)'
          )
          const device = yield* Effect.flip(log.append("con", "ada", []))
          assert.strictEqual(
            device.message,
            'conversation "con": a conversation id may not be a device name such as con or nul'
          )
          assert.isFalse(yield* fs.exists(path.join(root, "conversations")))

          const nameless = yield* Effect.flip(
            log.append("chat-1", "ada", [
              { who: "user", text: "hi" },
              { who: "other", text: "hello" }
            ])
          )
          assert.strictEqual(nameless._tag, "BadLine")
          assert.strictEqual(nameless.message, 'line 2: an "other" line needs the speaker\'s name')
          assert.isFalse(yield* fs.exists(path.join(root, "conversations/chat-1.jsonl")))

          yield* write(`${line(1, "a")}\n`)
          const others = yield* Effect.flip(log.append("chat-1", "bob", [{ who: "user", text: "mine" }]))
          assert.strictEqual(others._tag, "BadConversation")
          assert.strictEqual(
            others.message,
            'conversation "chat-1": it is a conversation of the agent "ada": give this conversation an id of its own'
          )
          assert.strictEqual(yield* read, `${line(1, "a")}\n`)
        }).pipe(Effect.provide(logs(root)))
      }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a damaged line or seq that does not grow fails the read, and the append, with the file named", () =>
    Effect.gen(function* () {
      const { root, write, read } = yield* setup
      yield* Effect.gen(function* () {
        const log = yield* ConversationLog.ConversationLog
        yield* write(`${line(1, "a")}\noops\n${line(3, "c")}\n`)
        const damaged = yield* Effect.flip(newest("chat-1"))
        assert.strictEqual(damaged._tag, "TranscriptError")
        assert.strictEqual(
          damaged.message,
          'the transcript could not be read: conversations/chat-1.jsonl has a line that is not a transcript line ("oops"): fix or remove it'
        )

        yield* write(`${line(1, "a")}\n${line(3, "c")}\n${line(2, "b")}\n`)
        const order = yield* Effect.flip(newest("chat-1"))
        assert.strictEqual(
          order.message,
          "the transcript could not be read: conversations/chat-1.jsonl: seq 2 follows 3, but seq must grow from line to line"
        )

        const before = `${line(1, "a")}\nnot json\n`
        yield* write(before)
        const append = yield* Effect.flip(log.append("chat-1", "ada", [{ who: "user", text: "b" }]))
        assert.strictEqual(append._tag, "TranscriptError")
        assert.include(
          append.message,
          'conversations/chat-1.jsonl has a line that is not a transcript line ("not json")'
        )
        assert.strictEqual(yield* read, before)
      }).pipe(Effect.provide(logs(root)))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("never reads or writes through a link, and wants a folder for its logs", () =>
    Effect.gen(function* () {
      const { fs, path, root } = yield* setup
      const outside = path.join(path.dirname(root), "outside")
      yield* fs.makeDirectory(outside, { recursive: true })
      yield* fs.makeDirectory(root, { recursive: true })
      yield* fs.symlink(outside, path.join(root, "conversations"))
      yield* Effect.gen(function* () {
        const log = yield* ConversationLog.ConversationLog
        const linked = yield* Effect.flip(log.append("chat-1", "ada", [{ who: "user", text: "hi" }]))
        assert.strictEqual(linked._tag, "StorageError")
        assert.strictEqual(
          linked.message,
          "conversations is a symbolic link; conversation logs are not kept through links; nothing there is read or written"
        )
        assert.deepStrictEqual(yield* fs.readDirectory(outside), [])
        const reading = yield* Effect.flip(newest("chat-1"))
        assert.strictEqual(reading._tag, "TranscriptError")
        assert.include(reading.message, "conversations is a symbolic link")

        yield* fs.remove(path.join(root, "conversations"))
        yield* fs.makeDirectory(path.join(root, "conversations"))
        yield* fs.writeFileString(path.join(outside, "secret.jsonl"), `${line(1, "elsewhere")}\n`)
        yield* fs.symlink(path.join(outside, "secret.jsonl"), path.join(root, "conversations/chat-1.jsonl"))
        const file = yield* Effect.flip(log.append("chat-1", "ada", [{ who: "user", text: "hi" }]))
        assert.strictEqual(
          file.message,
          "conversations/chat-1.jsonl is a symbolic link; conversation logs are not read or written through links; nothing there is read or written"
        )
        assert.include((yield* Effect.flip(newest("chat-1"))).message, "conversations/chat-1.jsonl is a symbolic link")
        assert.strictEqual(yield* fs.readFileString(path.join(outside, "secret.jsonl")), `${line(1, "elsewhere")}\n`)

        yield* fs.remove(path.join(root, "conversations"), { recursive: true })
        yield* fs.writeFileString(path.join(root, "conversations"), "a file")
        const notFolder = yield* Effect.flip(log.append("chat-1", "ada", [{ who: "user", text: "hi" }]))
        assert.strictEqual(notFolder.message, `${path.join(root, "conversations")} is not a folder`)
      }).pipe(Effect.provide(logs(root)))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("appends at once from many fibers give each line a number of its own", () =>
    Effect.gen(function* () {
      const { root, read } = yield* setup
      yield* Effect.gen(function* () {
        const log = yield* ConversationLog.ConversationLog
        const appended = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => log.append("chat-1", "ada", [{ who: "user", text: `line ${i}` }]),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          appended.map((one) => one.first).toSorted((a, b) => (a ?? 0) - (b ?? 0)),
          Array.from({ length: 20 }, (_, i) => i + 1)
        )
        const seqs = (yield* read)
          .trimEnd()
          .split("\n")
          .map((text) => JSON.parse(text).seq as number)
        assert.deepStrictEqual(
          seqs,
          Array.from({ length: 20 }, (_, i) => i + 1)
        )
      }).pipe(Effect.provide(logs(root)))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("as the review's ports: the log newest first, its agent, anchors, and the one agent served", () =>
    Effect.gen(function* () {
      const { root, write } = yield* setup
      yield* write(`${line(1, "a")}\n${line(2, "b", "agent")}\n`)
      yield* Effect.gen(function* () {
        const transcript = yield* Transcript.Transcript
        const agents = yield* Agents.Agents
        assert.deepStrictEqual(yield* Stream.runCollect(transcript.newestFirst("chat-1")), [
          { seq: 2, who: "agent", text: "b" },
          { seq: 1, who: "user", text: "a" }
        ])
        assert.strictEqual(yield* transcript.agentOf("chat-1"), "ada")
        assert.strictEqual(yield* transcript.anchor("chat-1", 2), "chat-1 #2")
        const unknown = yield* Effect.flip(transcript.agentOf("nope"))
        assert.strictEqual(unknown._tag, "TranscriptError")
        assert.strictEqual(
          unknown.message,
          'the transcript could not be read: no conversation "nope" is logged under the memory root'
        )
        assert.deepStrictEqual(yield* agents.get("ada"), { id: "ada", name: "ada", mayWriteTeam: true })
        assert.isUndefined(yield* agents.get("bob"))
      }).pipe(Effect.provide(ConversationLog.layerPorts("ada").pipe(Layer.provide(logs(root)))))
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
