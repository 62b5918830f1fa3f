import { assert, it } from "@effect/vitest"
import { Answer, Consolidation } from "@mneme/core"
import { OpenAiCompat } from "@mneme/node"
import { ReviewModel } from "@mneme/review"
import { Cause, Clock, ConfigProvider, Duration, Effect, Fiber, Layer, Logger, Redacted, References } from "effect"
import { LanguageModel } from "effect/ai"
import { HttpClient, HttpClientError, type HttpClientRequest, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** One request the test client received, at the clock's time. */
interface Hit {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly at: number
}

/** How the test client answers one request: a web `Response`, a transport failure, or never. */
type Reply = (request: HttpClientRequest.HttpClientRequest) => Response | "unreachable" | "hang"

/**
 * An in-process `HttpClient` that answers the n-th request with the n-th reply (the last repeats), recording each
 * request at the (test) clock's time: the retries and timeouts run on `TestClock`, nothing sleeps.
 */
const testClient = (...replies: ReadonlyArray<Reply>) => {
  const hits: Array<Hit> = []
  const client = HttpClient.make((request) =>
    Effect.gen(function* () {
      const body = request.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(request.body.body)) : null
      hits.push({ url: request.url, headers: request.headers, body, at: yield* Clock.currentTimeMillis })
      const reply = replies[Math.min(hits.length, replies.length) - 1]!(request)
      if (reply === "hang") return yield* Effect.never
      if (reply === "unreachable") {
        return yield* new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, cause: new Error("connect ECONNREFUSED 127.0.0.1:9") })
        })
      }
      return HttpClientResponse.fromWeb(request, reply)
    })
  )
  return { hits, layer: Layer.succeed(HttpClient.HttpClient, client) }
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  () =>
    new Response(typeof body === "string" ? body : JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers }
    })

const completionBody = (content: string | null, usage: unknown = { prompt_tokens: 120, completion_tokens: 7 }) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage
})

const completion = (content: string | null, usage?: unknown) => json(200, completionBody(content, usage))

const key = "sk-test-7f3a9c-SECRET"
const baseUrl = "http://model.test/v1"

const settings = (more: Partial<OpenAiCompat.Settings> = {}): OpenAiCompat.Settings => ({
  baseUrl,
  apiKey: Redacted.make(key),
  model: "test-model",
  ...more
})

/** One review model call with these settings, over `client`. */
const generate = (
  client: ReturnType<typeof testClient>,
  options: OpenAiCompat.Settings = settings(),
  input: ReviewModel.Request = { system: "SYSTEM TEXT", request: "REQUEST TEXT" }
) =>
  ReviewModel.ReviewModel.use((model) => model.generate(input)).pipe(
    Effect.provide(OpenAiCompat.layerReviewModelWith(options).pipe(Layer.provide(client.layer)))
  )

/** One raw `LanguageModel` call, to see effect/ai's error reasons. */
const generateRaw = (client: ReturnType<typeof testClient>, options: OpenAiCompat.Settings = settings()) =>
  LanguageModel.generateText({ prompt: "hello" }).pipe(
    Effect.provide(OpenAiCompat.layer(options).pipe(Layer.provide(client.layer)))
  )

/** Runs `effect` in a fiber and moves the test clock on until it is done (retries and timeouts are its only waits). */
const settle = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(effect)
    for (let step = 0; step < 100 && fiber.pollUnsafe() === undefined; step++) yield* TestClock.adjust("1 second")
    return yield* Fiber.join(fiber)
  })

it.effect("answers with the text and token usage, sending model, messages, output cap and key", () =>
  Effect.gen(function* () {
    const client = testClient(completion('{"changes":[]}', { prompt_tokens: 812, completion_tokens: 9 }))
    const answer = yield* generate(client)
    assert.deepStrictEqual(answer, { text: '{"changes":[]}', usage: { inputTokens: 812, outputTokens: 9 } })
    assert.strictEqual(client.hits.length, 1)
    const hit = client.hits[0]!
    assert.strictEqual(hit.url, `${baseUrl}/chat/completions`)
    assert.strictEqual(hit.headers.authorization, `Bearer ${key}`)
    assert.deepStrictEqual(hit.body, {
      model: "test-model",
      messages: [
        { role: "system", content: "SYSTEM TEXT" },
        { role: "user", content: "REQUEST TEXT" }
      ],
      max_tokens: 2048,
      stream: false
    })
  })
)

it.effect("sends max_completion_tokens, reasoning_effort or the template switch as set, and no key when none", () =>
  Effect.gen(function* () {
    const client = testClient(completion("ok"))
    yield* generate(
      client,
      settings({
        baseUrl: `${baseUrl}/`,
        apiKey: undefined,
        maxTokensField: "max_completion_tokens",
        outputTokensMax: 512,
        reasoning: "none"
      })
    )
    yield* generate(client, settings({ reasoning: "template-off" }))
    const [first, second] = client.hits.map((hit) => hit.body as Record<string, unknown>)
    assert.strictEqual(client.hits[0]!.url, `${baseUrl}/chat/completions`)
    assert.isUndefined(client.hits[0]!.headers.authorization)
    assert.strictEqual(first!.max_completion_tokens, 512)
    assert.isFalse("max_tokens" in first!)
    assert.strictEqual(first!.reasoning_effort, "none")
    assert.isFalse("chat_template_kwargs" in first!)
    assert.deepStrictEqual(second!.chat_template_kwargs, { enable_thinking: false })
    assert.isFalse("reasoning_effort" in second!)
  })
)

it("'auto' sends max_completion_tokens to api.openai.com and max_tokens elsewhere", () => {
  assert.strictEqual(
    OpenAiCompat.tokensField("auto", "https://api.openai.com/v1/chat/completions"),
    "max_completion_tokens"
  )
  assert.strictEqual(OpenAiCompat.tokensField("auto", "http://127.0.0.1:11434/v1/chat/completions"), "max_tokens")
  assert.strictEqual(OpenAiCompat.tokensField("auto", "https://api.deepseek.com/chat/completions"), "max_tokens")
  assert.strictEqual(OpenAiCompat.tokensField("max_tokens", "https://api.openai.com/v1/chat/completions"), "max_tokens")
})

it.effect("structured output sends the answer's JSON Schema (the one Answer.parse reads by), or json_object", () =>
  Effect.gen(function* () {
    const client = testClient(completion('{"changes":[]}'))
    yield* generate(client, settings({ structured: "json_schema" }))
    yield* generate(client, settings({ structured: "json_object" }))
    yield* generate(client, settings({ structured: "off" }))
    const [schema, object, off] = client.hits.map((hit) => hit.body as Record<string, unknown>)
    assert.deepStrictEqual(schema!.response_format, {
      type: "json_schema",
      json_schema: { name: "mneme_answer", schema: Answer.jsonSchema.schema, strict: false }
    })
    assert.deepStrictEqual(object!.response_format, { type: "json_object" })
    assert.isFalse("response_format" in off!)
    // The schema sent asks for the lines an add or an edit comes from: a line number, or a non-empty list of them.
    const sent = JSON.parse(JSON.stringify(schema!.response_format)).json_schema.schema.properties.changes.items.anyOf
    const ops = sent.map((change: { properties: Record<string, { enum?: Array<string> }> }) => [
      change.properties.op!.enum![0],
      Object.keys(change.properties).includes("from")
    ])
    assert.deepStrictEqual(ops, [
      ["add", true],
      ["edit", true],
      ["remove", false]
    ])
    assert.deepStrictEqual(
      sent[0].properties.from.anyOf.map((option: { type: string }) => option.type),
      ["integer", "string", "array"]
    )
    assert.strictEqual(sent[1].properties.from.anyOf[2].minItems, 1)
  })
)

it.effect("a consolidation's call sends the consolidation's schema, which has move; a review's never has it", () =>
  Effect.gen(function* () {
    const client = testClient(completion('{"changes":[]}'))
    const json = settings({ structured: "json_schema" })
    yield* generate(client, json, { system: "S", request: "R", answer: "consolidation" })
    yield* generate(client, json, { system: "S", request: "R", answer: "review" })
    const [consolidation, review] = client.hits.map(
      (hit) => (hit.body as { response_format: { json_schema: { name: string; schema: unknown } } }).response_format
    )
    const opsOf = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema)).properties.changes.items.anyOf.flatMap(
        (change: {
          anyOf?: Array<{ properties: { op: { enum: Array<string> } } }>
          properties?: { op: { enum: Array<string> } }
        }) =>
          change.anyOf === undefined
            ? [change.properties!.op.enum[0]]
            : change.anyOf.map((inner) => inner.properties.op.enum[0])
      )
    assert.strictEqual(consolidation!.json_schema.name, "mneme_consolidation")
    assert.deepStrictEqual(consolidation!.json_schema.schema, Consolidation.jsonSchema.schema)
    assert.deepStrictEqual(opsOf(consolidation!.json_schema.schema), ["add", "edit", "remove", "move"])
    assert.strictEqual(review!.json_schema.name, "mneme_answer")
    assert.deepStrictEqual(opsOf(review!.json_schema.schema), ["add", "edit", "remove"])
  })
)

it.effect("a server that rejects structured output is told apart by the setting to change", () =>
  Effect.gen(function* () {
    const client = testClient(json(400, { error: { message: "response_format is not supported" } }))
    const error = yield* generate(client, settings({ structured: "json_schema" })).pipe(Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the server rejected the request (HTTP 400: response_format is not supported): it may not take structured output (MNEME_STRUCTURED is json_schema): set MNEME_STRUCTURED to json_object or off, or check MNEME_MODEL, MNEME_MAX_TOKENS_FIELD and MNEME_REASONING"
    )
    const named = yield* generate(
      client,
      settings({ structured: "json_object", names: { structured: "--structured", model: "--model-name" } })
    ).pipe(Effect.flip)
    assert.include(named.message, "(--structured is json_object): set --structured to off, or check --model-name,")
    assert.strictEqual(client.hits.length, 2)
  })
)

it.effect("retries a 429, waiting as Retry-After says, then answers", () =>
  Effect.gen(function* () {
    const client = testClient(json(429, { error: { message: "slow down" } }, { "retry-after": "7" }), completion("ok"))
    const answer = yield* settle(generate(client))
    assert.strictEqual(answer.text, "ok")
    assert.strictEqual(client.hits.length, 2)
    assert.strictEqual(client.hits[1]!.at - client.hits[0]!.at, 7000, "Retry-After: 7 is honoured to the millisecond")
  })
)

it.effect("retries a 503 after the schedule's short wait, then answers", () =>
  Effect.gen(function* () {
    const client = testClient(json(503, { error: { message: "loading model" } }), completion("ok"))
    const answer = yield* settle(generate(client))
    assert.strictEqual(answer.text, "ok")
    assert.strictEqual(client.hits.length, 2)
    const waited = client.hits[1]!.at - client.hits[0]!.at
    assert.isAbove(waited, 0, "the retry waits")
    assert.isAtMost(waited, 1000, "the first retry waits about half a second, jittered")
  })
)

it.effect("gives up on a 500 after three retries with a clear error", () =>
  Effect.gen(function* () {
    const client = testClient(json(500, { error: { message: "boom" } }))
    const error = yield* settle(generate(client)).pipe(Effect.flip)
    assert.strictEqual(client.hits.length, 4)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the server failed (HTTP 500: boom): try again later, or check the server"
    )
    assert.strictEqual(error.retryable, true)
  })
)

it.effect("retries an unreachable server, then names the setting that gave its URL", () =>
  Effect.gen(function* () {
    const client = testClient(() => "unreachable")
    const error = yield* settle(generate(client)).pipe(Effect.flip)
    assert.strictEqual(client.hits.length, 4)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      `the model failed: could not reach the model server at ${baseUrl}/chat/completions (connect ECONNREFUSED 127.0.0.1:9): check MNEME_BASE_URL and that the server is running`
    )
    assert.strictEqual(error.retryable, true)
    const flag = yield* settle(generate(client, settings({ names: { baseUrl: "--model" } }))).pipe(Effect.flip)
    assert.include(flag.message, "check --model and that the server is running")
    assert.notInclude(flag.message, "MNEME_BASE_URL")
  })
)

const refusals = [
  {
    status: 401,
    message: "the model failed: the server refused the API key (HTTP 401: invalid api key): check MNEME_API_KEY"
  },
  {
    status: 403,
    message:
      'the model failed: the server denied access (HTTP 403: invalid api key): check that MNEME_API_KEY may use the model "test-model"'
  },
  {
    status: 404,
    message: `the model failed: no such model or endpoint (HTTP 404: invalid api key, from POST ${baseUrl}/chat/completions): check MNEME_MODEL ("test-model") and MNEME_BASE_URL (it usually ends in /v1)`
  },
  {
    status: 400,
    message:
      "the model failed: the server rejected the request (HTTP 400: invalid api key): check MNEME_MODEL, MNEME_MAX_TOKENS_FIELD and MNEME_REASONING"
  }
]

for (const { status, message } of refusals) {
  it.effect(`fails at once on HTTP ${status}, naming what to fix`, () =>
    Effect.gen(function* () {
      const client = testClient(json(status, { error: { message: "invalid api key", type: "invalid_request_error" } }))
      const error = yield* generate(client).pipe(Effect.flip)
      assert.strictEqual(client.hits.length, 1)
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(error.message, message)
      assert.strictEqual(error.retryable, false)
    })
  )
}

it.effect("a 401 with no key asks for one; a plain-text error body is quoted", () =>
  Effect.gen(function* () {
    const client = testClient(json(401, "Unauthorized\n"))
    const error = yield* generate(client, settings({ apiKey: undefined })).pipe(Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the server wants an API key (HTTP 401: Unauthorized): set MNEME_API_KEY"
    )
  })
)

it.effect("gives effect/ai's error reasons to LanguageModel users", () =>
  Effect.gen(function* () {
    const client = testClient(
      json(404, { error: "model 'x' not found" }),
      json(401, {}),
      json(429, {}, { "retry-after": "0" })
    )
    const missing = yield* generateRaw(client).pipe(Effect.flip)
    assert.strictEqual(missing._tag, "AiError")
    assert.strictEqual(missing.reason._tag, "InvalidRequestError")
    assert.include(missing.message, "no such model or endpoint (HTTP 404: model 'x' not found, from POST")
    const auth = yield* generateRaw(client).pipe(Effect.flip)
    assert.strictEqual(auth._tag, "AiError")
    assert.strictEqual(auth.reason._tag, "AuthenticationError")
    assert.strictEqual(
      auth.message,
      "OpenAiCompat.generateText: InvalidKey: Verify your API key is correct. the server refused the API key (HTTP 401: {}): check MNEME_API_KEY"
    )
    const limited = yield* settle(generateRaw(client)).pipe(Effect.flip)
    assert.strictEqual(limited._tag, "AiError")
    assert.strictEqual(limited.reason._tag, "RateLimitError")
    assert.strictEqual(limited.message, "OpenAiCompat.generateText: Rate limit exceeded. Retry after 0")
    assert.strictEqual(client.hits.length, 6, "one 404, one 401, and the 429 tried four times")
    const slow = testClient(() => "hang")
    const late = yield* settle(generateRaw(slow, settings({ timeout: "200 millis" }))).pipe(Effect.flip)
    assert.strictEqual(late._tag, "AiError")
    assert.strictEqual(late.reason._tag, "NetworkError")
    assert.include(late.message, "no answer within 0.2 s")
  })
)

it.effect("a malformed body fails at once", () =>
  Effect.gen(function* () {
    const client = testClient(json(200, { id: "x", choices: [] }), json(200, "<html>hello</html>"))
    for (const _ of [1, 2]) {
      const error = yield* generate(client).pipe(Effect.flip)
      assert.strictEqual(error._tag, "ModelError")
      assert.include(error.message, "the model failed: the server's answer is not a Chat Completions response (")
      assert.include(error.message, "check that MNEME_BASE_URL is an OpenAI-compatible API")
      assert.strictEqual(error.retryable, false)
    }
    assert.strictEqual(client.hits.length, 2)
  })
)

it.effect("a truncated body fails at once", () =>
  Effect.gen(function* () {
    const client = testClient(
      () =>
        new Response(
          new ReadableStream({
            start: (controller) => {
              controller.enqueue(new TextEncoder().encode('{"choices":[{"message":{"content":"hal'))
              controller.error(new Error("socket hang up"))
            }
          }),
          { status: 200, headers: { "content-type": "application/json" } }
        )
    )
    const error = yield* generate(client).pipe(Effect.flip)
    assert.strictEqual(client.hits.length, 1)
    assert.strictEqual(error._tag, "ModelError")
    assert.include(error.message, "the model failed: the server's answer broke off before its end")
    assert.strictEqual(error.retryable, false)
  })
)

it.effect("a slow answer past the timeout fails naming the setting to raise, at the timeout and not before", () =>
  Effect.gen(function* () {
    const client = testClient(() => "hang")
    const fiber = yield* Effect.forkChild(generate(client, settings({ timeout: "300 seconds" })).pipe(Effect.flip))
    yield* TestClock.adjust("299 seconds")
    assert.isUndefined(fiber.pollUnsafe(), "still waiting a second before the timeout")
    yield* TestClock.adjust("1 second")
    const error = yield* Fiber.join(fiber)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: no answer within 300 s: raise MNEME_TIMEOUT (in seconds) for a slow model or a long prompt, or use a faster model"
    )
    assert.strictEqual(client.hits.length, 1)
  })
)

it.effect("the timeout is MemoryConfig's 120 s by default, named by the flag that set it", () =>
  Effect.gen(function* () {
    const client = testClient(() => "hang")
    const fiber = yield* Effect.forkChild(
      generate(client, settings({ names: { timeout: "--timeout" } })).pipe(Effect.flip)
    )
    yield* TestClock.adjust("119 seconds")
    assert.isUndefined(fiber.pollUnsafe())
    yield* TestClock.adjust("1 second")
    const error = yield* Fiber.join(fiber)
    assert.include(error.message, "no answer within 120 s: raise --timeout (in seconds)")
  })
)

it.effect("an empty or missing answer is an error", () =>
  Effect.gen(function* () {
    const client = testClient(completion(""), completion(null))
    for (const _ of [1, 2]) {
      const error = yield* generate(client).pipe(Effect.flip)
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(error.message, "the model failed: the answer is empty")
    }
    assert.strictEqual(client.hits.length, 2)
  })
)

it.effect("a request past the context window fails before anything is sent", () =>
  Effect.gen(function* () {
    const client = testClient(completion("ok"))
    const request = "x".repeat(3000)
    const error = yield* generate(client, settings({ contextWindow: 3000 }), { system: "sys", request }).pipe(
      Effect.flip
    )
    assert.strictEqual(client.hits.length, 0)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the request does not fit the model's context window of 3,000 tokens (MNEME_CONTEXT_WINDOW): it needs about 3,049 (3,003 characters / 3, plus 2,048 for the answer, MNEME_MAX_TOKENS); review fewer lines at a time, or raise MNEME_CONTEXT_WINDOW if the server's window is larger"
    )
    const fits = yield* generate(client, settings({ contextWindow: 4000 }), { system: "sys", request })
    assert.strictEqual(fits.text, "ok")
    assert.strictEqual(client.hits.length, 1)
  })
)

it.effect("the API key never appears in an error or a log, even when the server repeats it", () =>
  Effect.gen(function* () {
    const client = testClient(
      json(429, { error: { message: `limit for ${key}` } }, { "retry-after": "0" }),
      json(401, { error: { message: `bad key ${key}` } })
    )
    const logs: Array<string> = []
    const capture = Logger.make((options) => {
      logs.push(`${JSON.stringify(options.message)} ${Cause.pretty(options.cause)}`)
    })
    const error = yield* settle(
      generate(client).pipe(
        Effect.tapCause((cause) => Effect.logError("the call failed", cause)),
        Effect.provide(Layer.mergeAll(Logger.layer([capture]), Layer.succeed(References.MinimumLogLevel, "All"))),
        Effect.flip
      )
    )
    assert.strictEqual(client.hits[1]!.headers.authorization, `Bearer ${key}`)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the server refused the API key (HTTP 401: bad key [redacted]): check MNEME_API_KEY"
    )
    assert.isAtLeast(logs.length, 2, "the retry and the failure were logged")
    assert.isTrue(logs.some((line) => line.includes("trying again")))
    for (const text of [...logs, error.message, String(error), JSON.stringify(error)]) {
      assert.notInclude(text, key)
      assert.notInclude(text, "7f3a9c")
    }
    const raw = yield* generateRaw(client).pipe(Effect.flip)
    for (const text of [raw.message, String(raw), JSON.stringify(raw), Cause.pretty(Cause.fail(raw))]) {
      assert.notInclude(text, "7f3a9c")
    }
  })
)

it.effect("reads its settings from the environment", () =>
  Effect.gen(function* () {
    const read = (env: Record<string, string>) =>
      Effect.gen(function* () {
        return yield* OpenAiCompat.config
      }).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))
    const full = yield* read({
      MNEME_BASE_URL: "http://127.0.0.1:11434/v1",
      MNEME_API_KEY: key,
      MNEME_MODEL: "qwen3:8b",
      MNEME_MAX_TOKENS: "4096",
      MNEME_TIMEOUT: "600",
      MNEME_CONTEXT_WINDOW: "8192",
      MNEME_MAX_TOKENS_FIELD: "max_completion_tokens",
      MNEME_REASONING: "template-off",
      MNEME_STRUCTURED: "json_schema"
    })
    assert.strictEqual(full.baseUrl, "http://127.0.0.1:11434/v1")
    assert.strictEqual(Redacted.value(full.apiKey!), key)
    assert.notInclude(String(full.apiKey), key)
    assert.deepStrictEqual(
      [full.model, full.outputTokensMax, full.contextWindow, full.maxTokensField, full.reasoning, full.structured],
      ["qwen3:8b", 4096, 8192, "max_completion_tokens", "template-off", "json_schema"]
    )
    assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(full.timeout!)), 600_000)
    const least = yield* read({ MNEME_BASE_URL: "https://api.openai.com/v1", MNEME_MODEL: "gpt-5-mini" })
    assert.deepStrictEqual(
      [
        least.apiKey,
        least.outputTokensMax,
        least.timeout,
        least.contextWindow,
        least.maxTokensField,
        least.reasoning,
        least.structured
      ],
      [undefined, undefined, undefined, undefined, "auto", "default", "off"]
    )
    const missing = yield* read({ MNEME_BASE_URL: "http://127.0.0.1:8080/v1" }).pipe(Effect.flip)
    assert.strictEqual(missing._tag, "ConfigError")
    assert.include(missing.message, "MNEME_MODEL")
    for (const [name, value] of [
      ["MNEME_REASONING", "off"],
      ["MNEME_STRUCTURED", "yes"],
      ["MNEME_TIMEOUT", "0"],
      ["MNEME_TIMEOUT", "soon"],
      ["MNEME_MAX_TOKENS", "-1"]
    ] as const) {
      const bad = yield* read({ MNEME_BASE_URL: "http://x/v1", MNEME_MODEL: "m", [name]: value }).pipe(Effect.flip)
      assert.strictEqual(bad._tag, "ConfigError")
      assert.include(bad.message, name)
    }
  })
)

/** A real Chat Completions stub server on 127.0.0.1, for the one test where a real HTTP round trip matters. */
const stubServer = (body: unknown) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly baseUrl: string; readonly requests: Array<string>; readonly server: Http.Server }>(
      (resume) => {
        const requests: Array<string> = []
        const server = Http.createServer((request, response) => {
          let text = ""
          request.setEncoding("utf8")
          request.on("data", (chunk: string) => (text += chunk))
          request.on("end", () => {
            requests.push(text)
            response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resume(Effect.succeed({ baseUrl: `http://127.0.0.1:${port}/v1`, requests, server }))
        })
      }
    ),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

it.live("one real round trip over Node's HTTP client: the request as sent, the answer as read", () =>
  Effect.gen(function* () {
    const server = yield* stubServer(completionBody('{"changes":[]}'))
    const answer = yield* ReviewModel.ReviewModel.use((model) =>
      model.generate({ system: "SYSTEM TEXT", request: "REQUEST TEXT" })
    ).pipe(
      Effect.provide(OpenAiCompat.layerReviewModel(settings({ baseUrl: server.baseUrl, structured: "json_schema" })))
    )
    assert.deepStrictEqual(answer, { text: '{"changes":[]}', usage: { inputTokens: 120, outputTokens: 7 } })
    assert.strictEqual(server.requests.length, 1)
    const sent = JSON.parse(server.requests[0]!)
    assert.strictEqual(sent.model, "test-model")
    assert.deepStrictEqual(sent.response_format.json_schema.schema, Answer.jsonSchema.schema)
  })
)
