import { assert, it } from "@effect/vitest"
import { MemoryConfig } from "@mneme/core"
import * as ReviewModel from "../src/ReviewModel.ts"
import { Duration, Effect, Fiber, Layer, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"
import { TestClock } from "effect/testing"

/** A `LanguageModel` that answers with the given parts (or error) and records each prompt it is given. */
const scripted = (answer: Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>) => {
  const prompts: Array<Prompt.Prompt> = []
  const model = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) => Effect.suspend(() => (prompts.push(options.prompt), answer)),
      streamText: () => Stream.empty
    })
  )
  return { prompts, layer: ReviewModel.fromLanguageModel.pipe(Layer.provide(model)) }
}

const finish = (reason: Response.FinishReason, input?: number, output?: number): Response.PartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: { total: input }, outputTokens: { total: output } }
})

const generate = (input: ReviewModel.Request) => ReviewModel.ReviewModel.use((model) => model.generate(input))

it.effect("sends the system text and one user text, and returns the answer with its token usage", () =>
  Effect.gen(function* () {
    const { prompts, layer } = scripted(
      Effect.succeed([{ type: "text", text: '{"changes":[]}' }, finish("stop", 812, 9)])
    )
    const answer = yield* generate({ system: "SYSTEM", request: "REQUEST" }).pipe(Effect.provide(layer))
    assert.deepStrictEqual(answer, { text: '{"changes":[]}', usage: { inputTokens: 812, outputTokens: 9 } })
    assert.strictEqual(prompts.length, 1)
    const messages = prompts[0]!.content
    assert.deepStrictEqual(
      messages.map((message) => message.role),
      ["system", "user"]
    )
    assert.strictEqual(messages[0]?.role === "system" ? messages[0].content : undefined, "SYSTEM")
    const user = messages[1]
    assert.deepStrictEqual(
      user?.role === "user" ? user.content.map((part) => (part.type === "text" ? part.text : part.type)) : [],
      ["REQUEST"]
    )
  })
)

it.effect("leaves usage out when the provider reports none", () =>
  Effect.gen(function* () {
    const { layer } = scripted(Effect.succeed([{ type: "text", text: "answer" }]))
    const answer = yield* generate({ system: "s", request: "r" }).pipe(Effect.provide(layer))
    assert.deepStrictEqual(answer, { text: "answer" })
    assert.isFalse("usage" in answer)
  })
)

it.effect("an empty or blank answer is a ModelError", () =>
  Effect.gen(function* () {
    for (const text of ["", "  \n\t "]) {
      const { layer } = scripted(Effect.succeed([{ type: "text", text }, finish("stop", 10, 0)]))
      const error = yield* generate({ system: "s", request: "r" }).pipe(Effect.provide(layer), Effect.flip)
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(error.message, "the model failed: the answer is empty")
      assert.strictEqual(error.retryable, false)
    }
  })
)

it.effect("an empty answer cut at the output cap says so", () =>
  Effect.gen(function* () {
    const { layer } = scripted(Effect.succeed([{ type: "reasoning", text: "thinking..." }, finish("length", 10, 2048)]))
    const error = yield* generate({ system: "s", request: "r" }).pipe(Effect.provide(layer), Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.include(error.message, "the answer is empty: the model stopped at its output cap")
    assert.include(error.message, "turn reasoning off")
  })
)

it.effect("a provider error becomes a ModelError with the provider's description and whether a retry may help", () =>
  Effect.gen(function* () {
    const refused = AiError.make({
      module: "Test",
      method: "generateText",
      reason: new AiError.AuthenticationError({ kind: "InvalidKey", description: "the key was refused" })
    })
    const auth = yield* generate({ system: "s", request: "r" }).pipe(
      Effect.provide(scripted(Effect.fail(refused)).layer),
      Effect.flip
    )
    assert.strictEqual(auth._tag, "ModelError")
    assert.strictEqual(auth.message, "the model failed: the key was refused")
    assert.strictEqual(auth.retryable, false)

    const limited = AiError.make({ module: "Test", method: "generateText", reason: new AiError.RateLimitError({}) })
    const rate = yield* generate({ system: "s", request: "r" }).pipe(
      Effect.provide(scripted(Effect.fail(limited)).layer),
      Effect.flip
    )
    assert.strictEqual(rate._tag, "ModelError")
    assert.strictEqual(rate.message, "the model failed: Rate limit exceeded")
    assert.strictEqual(rate.retryable, true)
  })
)

it.effect("a call past the MemoryConfig.modelTimeout provided to its layer fails with a ModelError", () =>
  Effect.gen(function* () {
    const { layer } = scripted(Effect.never)
    const fiber = yield* generate({ system: "s", request: "r" }).pipe(
      Effect.provide(layer.pipe(Layer.provide(MemoryConfig.layer({ modelTimeout: Duration.seconds(30) })))),
      Effect.forkChild
    )
    yield* TestClock.adjust("29 seconds")
    assert.isUndefined(fiber.pollUnsafe())
    yield* TestClock.adjust("1 second")
    const error = yield* Fiber.join(fiber).pipe(Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(error.message, "the model failed: no answer within 30 seconds")
    assert.strictEqual(error.retryable, true)
  })
)

it.effect("the timeout is read when the layer is built, not from the caller", () =>
  Effect.gen(function* () {
    const { layer } = scripted(Effect.never)
    const built = yield* Layer.build(
      layer.pipe(Layer.provide(MemoryConfig.layer({ modelTimeout: Duration.seconds(5) })))
    )
    const fiber = yield* generate({ system: "s", request: "r" }).pipe(
      Effect.provideContext(built),
      Effect.provide(MemoryConfig.layer({ modelTimeout: Duration.seconds(60) })),
      Effect.forkChild
    )
    yield* TestClock.adjust("5 seconds")
    const error = yield* Fiber.join(fiber).pipe(Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(error.message, "the model failed: no answer within 5 seconds")
  })
)

it.effect("the default timeout is 120 seconds", () =>
  Effect.gen(function* () {
    const { layer } = scripted(Effect.never)
    const fiber = yield* generate({ system: "s", request: "r" }).pipe(Effect.provide(layer), Effect.forkChild)
    yield* TestClock.adjust("119 seconds")
    assert.isUndefined(fiber.pollUnsafe())
    yield* TestClock.adjust("1 second")
    const error = yield* Fiber.join(fiber).pipe(Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(error.message, "the model failed: no answer within 120 seconds")
  })
)

it.effect("ReviewModel.layer serves a plain function", () =>
  Effect.gen(function* () {
    const answer = yield* generate({ system: "s", request: "hello" }).pipe(
      Effect.provide(ReviewModel.layer((input) => Effect.succeed({ text: input.request.toUpperCase() })))
    )
    assert.deepStrictEqual(answer, { text: "HELLO" })
  })
)
