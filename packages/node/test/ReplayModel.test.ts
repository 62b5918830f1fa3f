import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { ReviewModel } from "@mneme/review"
import { Effect, FileSystem, Path, Ref, Result } from "effect"
import * as ReplayModel from "../src/ReplayModel.ts"

const ask = { system: "s", request: "r" }

describe("ReplayModel", () => {
  it("names the first line that is not a recorded answer", () => {
    const parsed = ReplayModel.parse("answers.jsonl", '{"answer":"{}"}\n\n{"text":"x"}\n')
    if (Result.isSuccess(parsed)) return assert.fail("the file parsed")
    assert.strictEqual(parsed.failure._tag, "ModelError")
    assert.strictEqual(
      parsed.failure.message,
      'the model failed: answers.jsonl line 3 is not a recorded answer: each line is {"answer": "…"} or {"error": "…"}'
    )
  })

  it.live("answers in order, fails on a recorded error, and fails clearly once the answers run out", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const file = path.join(yield* fs.makeTempDirectoryScoped(), "answers.jsonl")
      yield* fs.writeFileString(file, '{"answer":"first"}\n{"error":"the server is down"}\n{"answer":"third"}\n')
      const model = yield* ReviewModel.ReviewModel.pipe(Effect.provide(ReplayModel.layer(file)))
      assert.deepStrictEqual(yield* model.generate(ask), { text: "first" })
      const down = yield* Effect.flip(model.generate(ask))
      assert.strictEqual(down.message, "the model failed: the server is down")
      assert.deepStrictEqual(yield* model.generate(ask), { text: "third" })
      const out = yield* Effect.flip(model.generate(ask))
      assert.strictEqual(out._tag, "ModelError")
      assert.strictEqual(out.message, `the model failed: ${file} has no recorded answer left for call 4 (it holds 3)`)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("starts at the position given, moves it past each answer, and leaves it where the answers run out", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const file = path.join(yield* fs.makeTempDirectoryScoped(), "answers.jsonl")
      yield* fs.writeFileString(file, '{"answer":"first"}\n{"error":"the server is down"}\n{"answer":"third"}\n')
      const position = yield* Ref.make(1)
      const model = yield* ReviewModel.ReviewModel.pipe(Effect.provide(ReplayModel.layerAt(file, position)))
      const down = yield* Effect.flip(model.generate(ask))
      assert.strictEqual(down.message, "the model failed: the server is down")
      assert.strictEqual(yield* Ref.get(position), 2)
      assert.deepStrictEqual(yield* model.generate(ask), { text: "third" })
      assert.strictEqual(yield* Ref.get(position), 3)
      const out = yield* Effect.flip(model.generate(ask))
      assert.strictEqual(out.message, `the model failed: ${file} has no recorded answer left for call 4 (it holds 3)`)
      assert.strictEqual(yield* Ref.get(position), 3)
      // The position is read at each call: a caller that keeps it elsewhere may set it before the first.
      yield* Ref.set(position, 0)
      assert.deepStrictEqual(yield* model.generate(ask), { text: "first" })
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("fails with the file's name when it cannot be read", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ReviewModel.ReviewModel.pipe(Effect.provide(ReplayModel.layer("/nonexistent/answers.jsonl")))
      )
      assert.strictEqual(error._tag, "ModelError")
      assert.include(error.message, "recorded answers /nonexistent/answers.jsonl")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
