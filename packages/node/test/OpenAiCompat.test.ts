import { NodeHttpClient } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { OpenAiCompat } from "@mneme/node"
import { ReviewModel } from "@mneme/review"
import { Cause, ConfigProvider, Effect, Layer, Logger, Redacted, References } from "effect"
import { LanguageModel } from "effect/ai"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** One request the stub server received. */
interface Hit {
  readonly method: string | undefined
  readonly path: string | undefined
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

/** How the stub answers one request. */
type Reply = (response: Http.ServerResponse) => void

/** A stub Chat Completions server on 127.0.0.1 that answers the n-th request with the n-th reply (the last repeats). */
const stub = (...replies: ReadonlyArray<Reply>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly baseUrl: string; readonly hits: Array<Hit>; readonly server: Http.Server }>((resume) => {
      const hits: Array<Hit> = []
      const server = Http.createServer((request, response) => {
        let body = ""
        request.setEncoding("utf8")
        request.on("data", (chunk: string) => (body += chunk))
        request.on("end", () => {
          hits.push({
            method: request.method,
            path: request.url,
            headers: request.headers,
            body,
            at: performance.now()
          })
          replies[Math.min(hits.length, replies.length) - 1]!(response)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ baseUrl: `http://127.0.0.1:${port}/v1`, hits, server }))
      })
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (response) => {
    response.writeHead(status, { "content-type": "application/json", ...headers })
    response.end(typeof body === "string" ? body : JSON.stringify(body))
  }

const completion = (content: string | null, usage: unknown = { prompt_tokens: 120, completion_tokens: 7 }) =>
  json(200, {
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage
  })

const hang: Reply = () => {}

const key = "sk-test-7f3a9c-SECRET"

const settings = (baseUrl: string, more: Partial<OpenAiCompat.Settings> = {}): OpenAiCompat.Settings => ({
  baseUrl,
  apiKey: Redacted.make(key),
  model: "test-model",
  ...more
})

/** One review model call against the provider with these settings. */
const generate = (options: OpenAiCompat.Settings, input = { system: "SYSTEM TEXT", request: "REQUEST TEXT" }) =>
  ReviewModel.ReviewModel.use((model) => model.generate(input)).pipe(
    Effect.provide(OpenAiCompat.layerReviewModel(options))
  )

/** One raw `LanguageModel` call, to see effect/ai's error reasons. */
const generateRaw = (options: OpenAiCompat.Settings) =>
  LanguageModel.generateText({ prompt: "hello" }).pipe(
    Effect.provide(OpenAiCompat.layer(options).pipe(Layer.provide(NodeHttpClient.layerUndici)))
  )

it.live("answers with the text and token usage, sending model, messages, output cap and key", () =>
  Effect.gen(function* () {
    const server = yield* stub(completion('{"changes":[]}', { prompt_tokens: 812, completion_tokens: 9 }))
    const answer = yield* generate(settings(server.baseUrl))
    assert.deepStrictEqual(answer, { text: '{"changes":[]}', usage: { inputTokens: 812, outputTokens: 9 } })
    assert.strictEqual(server.hits.length, 1)
    const hit = server.hits[0]!
    assert.strictEqual(hit.method, "POST")
    assert.strictEqual(hit.path, "/v1/chat/completions")
    assert.strictEqual(hit.headers.authorization, `Bearer ${key}`)
    assert.deepStrictEqual(JSON.parse(hit.body), {
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

it.live("sends max_completion_tokens, reasoning_effort or the template switch as set, and no key when none", () =>
  Effect.gen(function* () {
    const server = yield* stub(completion("ok"))
    yield* generate(
      settings(`${server.baseUrl}/`, {
        apiKey: undefined,
        maxTokensField: "max_completion_tokens",
        outputTokensMax: 512,
        reasoning: "none"
      })
    )
    yield* generate(settings(server.baseUrl, { reasoning: "template-off" }))
    const [first, second] = server.hits.map((hit) => JSON.parse(hit.body))
    assert.strictEqual(server.hits[0]!.path, "/v1/chat/completions")
    assert.isUndefined(server.hits[0]!.headers.authorization)
    assert.strictEqual(first.max_completion_tokens, 512)
    assert.isFalse("max_tokens" in first)
    assert.strictEqual(first.reasoning_effort, "none")
    assert.isFalse("chat_template_kwargs" in first)
    assert.deepStrictEqual(second.chat_template_kwargs, { enable_thinking: false })
    assert.isFalse("reasoning_effort" in second)
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

it.live("retries a 429, waiting as Retry-After says, then answers", () =>
  Effect.gen(function* () {
    const server = yield* stub(json(429, { error: { message: "slow down" } }, { "retry-after": "1" }), completion("ok"))
    const answer = yield* generate(settings(server.baseUrl))
    assert.strictEqual(answer.text, "ok")
    assert.strictEqual(server.hits.length, 2)
    const waited = server.hits[1]!.at - server.hits[0]!.at
    assert.isAtLeast(waited, 950, "Retry-After: 1 is honoured (the schedule alone waits about 0.5 s)")
    assert.isBelow(waited, 3000)
  })
)

it.live("retries a 503, then answers", () =>
  Effect.gen(function* () {
    const server = yield* stub(json(503, { error: { message: "loading model" } }), completion("ok"))
    const answer = yield* generate(settings(server.baseUrl))
    assert.strictEqual(answer.text, "ok")
    assert.strictEqual(server.hits.length, 2)
  })
)

it.live("gives up on a 500 after three retries with a clear error", () =>
  Effect.gen(function* () {
    const server = yield* stub(json(500, { error: { message: "boom" } }))
    const error = yield* generate(settings(server.baseUrl)).pipe(Effect.flip)
    assert.strictEqual(server.hits.length, 4)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the server failed (HTTP 500: boom): try again later, or check the server"
    )
    assert.strictEqual(error.retryable, true)
  })
)

it.live("retries an unreachable server, then names the URL to check", () =>
  Effect.gen(function* () {
    const server = yield* stub(completion("never"))
    const baseUrl = server.baseUrl
    yield* Effect.callback<void>((resume) => {
      server.server.close(() => resume(Effect.void))
    })
    const error = yield* generate(settings(baseUrl)).pipe(Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.include(error.message, `the model failed: could not reach the model server at ${baseUrl}/chat/completions`)
    assert.include(error.message, "check MNEME_BASE_URL and that the server is running")
    assert.strictEqual(error.retryable, true)
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
    message:
      'the model failed: no such model or endpoint (HTTP 404: invalid api key, from POST BASE/chat/completions): check MNEME_MODEL ("test-model") and MNEME_BASE_URL (it usually ends in /v1)'
  },
  {
    status: 400,
    message:
      "the model failed: the server rejected the request (HTTP 400: invalid api key): check MNEME_MODEL, MNEME_MAX_TOKENS_FIELD and MNEME_REASONING"
  }
]

for (const { status, message } of refusals) {
  it.live(`fails at once on HTTP ${status}, naming what to fix`, () =>
    Effect.gen(function* () {
      const server = yield* stub(json(status, { error: { message: "invalid api key", type: "invalid_request_error" } }))
      const error = yield* generate(settings(server.baseUrl)).pipe(Effect.flip)
      assert.strictEqual(server.hits.length, 1)
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(error.message, message.replace("BASE", server.baseUrl))
      assert.strictEqual(error.retryable, false)
    })
  )
}

it.live("a 401 with no key asks for one; a plain-text error body is quoted", () =>
  Effect.gen(function* () {
    const server = yield* stub(json(401, "Unauthorized\n"))
    const error = yield* generate(settings(server.baseUrl, { apiKey: undefined })).pipe(Effect.flip)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the server wants an API key (HTTP 401: Unauthorized): set MNEME_API_KEY"
    )
  })
)

it.live("gives effect/ai's error reasons to LanguageModel users", () =>
  Effect.gen(function* () {
    const server = yield* stub(
      json(404, { error: "model 'x' not found" }),
      json(401, {}),
      json(429, {}, { "retry-after": "0" })
    )
    const missing = yield* generateRaw(settings(server.baseUrl)).pipe(Effect.flip)
    assert.strictEqual(missing._tag, "AiError")
    assert.strictEqual(missing.reason._tag, "InvalidRequestError")
    assert.include(missing.message, "no such model or endpoint (HTTP 404: model 'x' not found, from POST")
    const auth = yield* generateRaw(settings(server.baseUrl)).pipe(Effect.flip)
    assert.strictEqual(auth._tag, "AiError")
    assert.strictEqual(auth.reason._tag, "AuthenticationError")
    assert.strictEqual(
      auth.message,
      "OpenAiCompat.generateText: InvalidKey: Verify your API key is correct. the server refused the API key (HTTP 401: {}): check MNEME_API_KEY"
    )
    const limited = yield* generateRaw(settings(server.baseUrl)).pipe(Effect.flip)
    assert.strictEqual(limited._tag, "AiError")
    assert.strictEqual(limited.reason._tag, "RateLimitError")
    assert.strictEqual(limited.message, "OpenAiCompat.generateText: Rate limit exceeded. Retry after 0")
    assert.strictEqual(server.hits.length, 6, "one 404, one 401, and the 429 tried four times")
    const slow = yield* stub(hang)
    const late = yield* generateRaw(settings(slow.baseUrl, { timeout: "200 millis" })).pipe(Effect.flip)
    assert.strictEqual(late._tag, "AiError")
    assert.strictEqual(late.reason._tag, "NetworkError")
    assert.include(late.message, "no answer within 0.2 seconds")
  })
)

it.live("a malformed body fails at once", () =>
  Effect.gen(function* () {
    const server = yield* stub(json(200, { id: "x", choices: [] }), json(200, "<html>hello</html>"))
    for (const _ of [1, 2]) {
      const error = yield* generate(settings(server.baseUrl)).pipe(Effect.flip)
      assert.strictEqual(error._tag, "ModelError")
      assert.include(error.message, "the model failed: the server's answer is not a Chat Completions response (")
      assert.include(error.message, "check that MNEME_BASE_URL is an OpenAI-compatible API")
      assert.strictEqual(error.retryable, false)
    }
    assert.strictEqual(server.hits.length, 2)
  })
)

it.live("a truncated body fails at once", () =>
  Effect.gen(function* () {
    const server = yield* stub((response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "400" })
      response.write('{"choices":[{"message":{"content":"hal')
      setTimeout(() => response.destroy(), 20)
    })
    const error = yield* generate(settings(server.baseUrl)).pipe(Effect.flip)
    assert.strictEqual(server.hits.length, 1)
    assert.strictEqual(error._tag, "ModelError")
    assert.include(error.message, "the model failed: the server's answer broke off before its end")
    assert.strictEqual(error.retryable, false)
  })
)

it.live("a slow answer past the timeout fails with a timeout error", () =>
  Effect.gen(function* () {
    const server = yield* stub(hang)
    const started = performance.now()
    const error = yield* generate(settings(server.baseUrl, { timeout: "300 millis" })).pipe(Effect.flip)
    assert.isBelow(performance.now() - started, 2000)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: no answer within 0.3 seconds: raise the timeout, or use a faster model"
    )
    assert.strictEqual(server.hits.length, 1)
  })
)

it.live("an empty or missing answer is an error", () =>
  Effect.gen(function* () {
    const server = yield* stub(completion(""), completion(null))
    for (const _ of [1, 2]) {
      const error = yield* generate(settings(server.baseUrl)).pipe(Effect.flip)
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(error.message, "the model failed: the answer is empty")
    }
    assert.strictEqual(server.hits.length, 2)
  })
)

it.live("a request past the context window fails before anything is sent", () =>
  Effect.gen(function* () {
    const server = yield* stub(completion("ok"))
    const request = "x".repeat(3000)
    const error = yield* generate(settings(server.baseUrl, { contextWindow: 3000 }), { system: "sys", request }).pipe(
      Effect.flip
    )
    assert.strictEqual(server.hits.length, 0)
    assert.strictEqual(error._tag, "ModelError")
    assert.strictEqual(
      error.message,
      "the model failed: the request does not fit the model's context window of 3000 tokens: it needs about 3049 (3003 characters / 3, plus 2048 for the answer); review fewer lines at a time, or raise MNEME_CONTEXT_WINDOW if the server's window is larger"
    )
    const fits = yield* generate(settings(server.baseUrl, { contextWindow: 4000 }), { system: "sys", request })
    assert.strictEqual(fits.text, "ok")
    assert.strictEqual(server.hits.length, 1)
  })
)

it.live("the API key never appears in an error or a log, even when the server repeats it", () =>
  Effect.gen(function* () {
    const echo: Reply = (response) => {
      response.writeHead(401, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: `bad key ${key}` } }))
    }
    const server = yield* stub(json(429, { error: { message: `limit for ${key}` } }, { "retry-after": "0" }), echo)
    const logs: Array<string> = []
    const capture = Logger.make((options) => {
      logs.push(`${JSON.stringify(options.message)} ${Cause.pretty(options.cause)}`)
    })
    const error = yield* generate(settings(server.baseUrl)).pipe(
      Effect.tapCause((cause) => Effect.logError("the call failed", cause)),
      Effect.provide(Layer.mergeAll(Logger.layer([capture]), Layer.succeed(References.MinimumLogLevel, "All"))),
      Effect.flip
    )
    assert.strictEqual(server.hits[1]!.headers.authorization, `Bearer ${key}`)
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
    const raw = yield* generateRaw(settings(server.baseUrl)).pipe(Effect.flip)
    for (const text of [raw.message, String(raw), JSON.stringify(raw), Cause.pretty(Cause.fail(raw))]) {
      assert.notInclude(text, "7f3a9c")
    }
  })
)

it.live("reads its settings from the environment", () =>
  Effect.gen(function* () {
    const read = (env: Record<string, string>) =>
      Effect.gen(function* () {
        return yield* OpenAiCompat.config
      }).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))
    const full = yield* read({
      MNEME_BASE_URL: "http://127.0.0.1:11434/v1",
      MNEME_API_KEY: key,
      MNEME_MODEL: "qwen3:8b",
      MNEME_CONTEXT_WINDOW: "8192",
      MNEME_MAX_TOKENS_FIELD: "max_completion_tokens",
      MNEME_REASONING: "template-off"
    })
    assert.strictEqual(full.baseUrl, "http://127.0.0.1:11434/v1")
    assert.strictEqual(Redacted.value(full.apiKey!), key)
    assert.notInclude(String(full.apiKey), key)
    assert.deepStrictEqual(
      [full.model, full.contextWindow, full.maxTokensField, full.reasoning],
      ["qwen3:8b", 8192, "max_completion_tokens", "template-off"]
    )
    const least = yield* read({ MNEME_BASE_URL: "https://api.openai.com/v1", MNEME_MODEL: "gpt-5-mini" })
    assert.deepStrictEqual(
      [least.apiKey, least.contextWindow, least.maxTokensField, least.reasoning],
      [undefined, undefined, "auto", "default"]
    )
    const missing = yield* read({ MNEME_BASE_URL: "http://127.0.0.1:8080/v1" }).pipe(Effect.flip)
    assert.strictEqual(missing._tag, "ConfigError")
    assert.include(missing.message, "MNEME_MODEL")
    const bad = yield* read({ MNEME_BASE_URL: "http://x/v1", MNEME_MODEL: "m", MNEME_REASONING: "off" }).pipe(
      Effect.flip
    )
    assert.strictEqual(bad._tag, "ConfigError")
    assert.include(bad.message, "MNEME_REASONING")
  })
)
