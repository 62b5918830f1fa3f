/**
 * An OpenAI-compatible Chat Completions provider for effect/ai's `LanguageModel` (POST {baseUrl}/chat/completions),
 * for OpenAI, DeepSeek, Ollama, llama.cpp or vLLM. It carries the settings `generateText` has no words for (docs/spec.md 5):
 * the output cap and the field that sends it, reasoning off, a context window checked before sending, a timeout, and
 * structured output constrained to the answer's JSON Schema (`Answer.jsonSchema`, derived from the schema the answer
 * is parsed by). Connection errors, 429 and 5xx are retried inside one call; anything else fails at once with what to
 * fix, naming each setting the way the person gave it (an environment variable or a flag). The API key is kept
 * `Redacted` and scrubbed from any server text an error repeats.
 */
import { Answer, Consolidation, MemoryConfig, Text } from "@mneme/core"
import { ReviewModel } from "@mneme/review"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Config, Duration, Effect, Layer, Option, Redacted, Schedule, Schema, Stream } from "effect"
// By module, not from the "effect/ai" index, which loads all of effect/ai (the MCP server among it) in every process.
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import { HttpClient, type HttpClientError, HttpClientRequest } from "effect/http"
import * as Wire from "./internal/chatCompletions.ts"

/** The field the output cap travels in: "auto" is `max_completion_tokens` at api.openai.com, else `max_tokens`. */
export type MaxTokensField = "auto" | "max_tokens" | "max_completion_tokens"

/**
 * How reasoning is turned off: "default" sends nothing; "template-off" sends
 * `chat_template_kwargs: { enable_thinking: false }` (llama.cpp, vLLM, Qwen); a level is sent as `reasoning_effort`
 * (OpenAI, Ollama; "none" or "minimal" for off).
 */
export type Reasoning = "default" | "template-off" | "none" | "minimal" | "low" | "medium" | "high"

/**
 * Whether the answer is constrained by the server: "json_schema" sends `response_format` with the answer's JSON Schema
 * (OpenAI, vLLM, llama.cpp's server, Ollama), "json_object" asks only for a JSON object, "off" sends nothing.
 */
export type Structured = "off" | "json_object" | "json_schema"

/** How each setting is named to the person in an error: the environment variable by default, or the flag they used. */
export interface SettingNames {
  readonly baseUrl: string
  readonly apiKey: string
  readonly model: string
  readonly outputTokensMax: string
  readonly maxTokensField: string
  readonly reasoning: string
  readonly contextWindow: string
  readonly timeout: string
  readonly structured: string
}

/** The environment variable of each setting. */
export const environmentNames: SettingNames = {
  baseUrl: "MNEME_BASE_URL",
  apiKey: "MNEME_API_KEY",
  model: "MNEME_MODEL",
  outputTokensMax: "MNEME_MAX_TOKENS",
  maxTokensField: "MNEME_MAX_TOKENS_FIELD",
  reasoning: "MNEME_REASONING",
  contextWindow: "MNEME_CONTEXT_WINDOW",
  timeout: "MNEME_TIMEOUT",
  structured: "MNEME_STRUCTURED"
}

/** The provider's settings. */
export interface Settings {
  /** The API root, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:11434/v1". */
  readonly baseUrl: string
  /** Sent as a bearer token; none for local servers. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  readonly model: string
  /** Most output tokens per call; `MemoryConfig.outputTokensMax` (2,048) by default. */
  readonly outputTokensMax?: number | undefined
  /** "auto" by default. */
  readonly maxTokensField?: MaxTokensField | undefined
  /** "default" by default. */
  readonly reasoning?: Reasoning | undefined
  /** The context window in tokens; a request estimated past it (characters / 3 + the output cap) is not sent. */
  readonly contextWindow?: number | undefined
  /** How long one call may take, retries included; `MemoryConfig.modelTimeout` (120 s) by default. */
  readonly timeout?: Duration.Input | undefined
  /** "off" by default. */
  readonly structured?: Structured | undefined
  /** How the settings are named in errors; `environmentNames` for any not given. */
  readonly names?: Partial<SettingNames> | undefined
}

const reasonings = ["default", "template-off", "none", "minimal", "low", "medium", "high"] as const

/** The values `MNEME_STRUCTURED` takes. */
export const structuredModes = ["off", "json_object", "json_schema"] as const

const Positive = Schema.Int.check(Schema.isGreaterThan(0))
const Seconds = Schema.Finite.check(Schema.isGreaterThan(0))

const optional = <A>(config: Config.Config<A>) => config.pipe(Config.option, Config.map(Option.getOrUndefined))

/**
 * The settings from the environment: MNEME_BASE_URL, MNEME_MODEL, and optional MNEME_API_KEY, MNEME_MAX_TOKENS (the
 * output cap, 2,048), MNEME_TIMEOUT (seconds, 120), MNEME_CONTEXT_WINDOW (tokens), MNEME_MAX_TOKENS_FIELD ("auto"),
 * MNEME_REASONING ("default"), MNEME_STRUCTURED ("off").
 */
export const config: Config.Config<Settings> = Config.all({
  baseUrl: Config.URL("MNEME_BASE_URL").pipe(Config.map((url) => url.href)),
  apiKey: optional(Config.Redacted("MNEME_API_KEY")),
  model: Config.NonEmptyString("MNEME_MODEL"),
  outputTokensMax: optional(Config.schema(Positive, "MNEME_MAX_TOKENS")),
  timeout: optional(Config.schema(Seconds, "MNEME_TIMEOUT").pipe(Config.map(Duration.seconds))),
  contextWindow: optional(Config.schema(Positive, "MNEME_CONTEXT_WINDOW")),
  maxTokensField: Config.Literals(["auto", "max_tokens", "max_completion_tokens"], "MNEME_MAX_TOKENS_FIELD").pipe(
    Config.withDefault("auto" as const)
  ),
  reasoning: Config.Literals(reasonings, "MNEME_REASONING").pipe(Config.withDefault("default" as const)),
  structured: Config.Literals(structuredModes, "MNEME_STRUCTURED").pipe(Config.withDefault("off" as const))
})

/**
 * The `response_format` field of a request, for a structured-output mode and the answer the call asks for: with
 * "json_schema", a review's answer schema or a consolidation's (which adds `move`).
 */
export const responseFormat = (mode: Structured, answer: ReviewModel.AnswerKind = "review"): Record<string, unknown> =>
  mode === "off"
    ? {}
    : mode === "json_object"
      ? { response_format: { type: "json_object" } }
      : {
          response_format: {
            type: "json_schema",
            json_schema:
              answer === "review"
                ? { name: "mneme_answer", schema: Answer.jsonSchema.schema, strict: false }
                : { name: "mneme_consolidation", schema: Consolidation.jsonSchema.schema, strict: false }
          }
        }

/** A duration in words: `120 s`, `0.3 s`. */
const secondsOf = (duration: Duration.Duration) => `${Text.count(Duration.toSeconds(duration))} s`

/** The field the output cap is sent in, with "auto" resolved for the server at `url`. */
export const tokensField = (setting: MaxTokensField, url: string): "max_tokens" | "max_completion_tokens" =>
  setting !== "auto" ? setting : URL.parse(url)?.hostname === "api.openai.com" ? "max_completion_tokens" : "max_tokens"

const retries = 3
const retryCap = Duration.seconds(8)
const retryAfterCap = Duration.seconds(30)

/** The provider as a `LanguageModel`, on the `HttpClient` in context. */
export const make = Effect.fnUntraced(function* (settings: Settings) {
  const client = yield* HttpClient.HttpClient
  const defaults = yield* MemoryConfig.MemoryConfig
  const url = `${settings.baseUrl.endsWith("/") ? settings.baseUrl : `${settings.baseUrl}/`}chat/completions`
  const key = settings.apiKey !== undefined && Redacted.value(settings.apiKey) !== "" ? settings.apiKey : undefined
  const outputTokensMax = settings.outputTokensMax ?? defaults.outputTokensMax
  const timeout = Duration.fromInputUnsafe(settings.timeout ?? defaults.modelTimeout)
  const reasoning = settings.reasoning ?? "default"
  const structured = settings.structured ?? "off"
  const names: SettingNames = { ...environmentNames, ...settings.names }
  const body = {
    model: settings.model,
    [tokensField(settings.maxTokensField ?? "auto", url)]: outputTokensMax,
    ...(reasoning === "default"
      ? {}
      : reasoning === "template-off"
        ? { chat_template_kwargs: { enable_thinking: false } }
        : { reasoning_effort: reasoning }),
    stream: false
  }

  const call: Wire.Call = { url, model: settings.model, hasKey: key !== undefined, names, structured }
  const aiError = (reason: AiError.AiErrorReason) =>
    AiError.make({ module: "OpenAiCompat", method: "generateText", reason })
  /** Server or library text made safe to repeat: the key masked, one line, at most `max` characters. */
  const clean = (text: string, max: number) => {
    const line = text
      .split("\n")
      .map((part) => part.trim())
      .join(" ")
      .trim()
    return Text.take(key === undefined ? line : line.replaceAll(Redacted.value(key), "[redacted]"), max)
  }

  /** One HTTP round trip: the parsed completion, or the AI error it amounts to. */
  const attempt = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.gen(function* () {
      const response = yield* client.execute(request).pipe(
        Effect.mapError((error: HttpClientError.HttpClientError) => {
          const cause = error.reason.cause
          return aiError(
            new AiError.NetworkError({
              reason:
                error.reason._tag === "EncodeError" || error.reason._tag === "InvalidUrlError"
                  ? error.reason._tag
                  : "TransportError",
              method: "POST",
              url,
              description: `could not reach the model server at ${url}${cause instanceof Error ? ` (${clean(cause.message, 200)})` : ""}: check ${names.baseUrl} and that the server is running`
            })
          )
        })
      )
      const text = yield* Effect.option(response.text)
      if (response.status < 200 || response.status >= 300) {
        const said = clean(Wire.serverMessage(Option.getOrElse(text, () => "")), 200)
        return yield* aiError(Wire.statusReason(response.status, said, response.headers["retry-after"], call))
      }
      if (Option.isNone(text)) {
        return yield* aiError(
          new AiError.InvalidResponseError({
            description: "the server's answer broke off before its end: try again, or check the server"
          })
        )
      }
      return yield* Schema.decodeUnknownEffect(Wire.Completion)(text.value).pipe(
        Effect.mapError((error) =>
          aiError(
            new AiError.InvalidResponseError({
              description: `the server's answer is not a Chat Completions response (${clean(error.message, 300)}): check that ${names.baseUrl} is an OpenAI-compatible API`
            })
          )
        )
      )
    })

  const retry = Schedule.exponential("500 millis").pipe(
    Schedule.jittered,
    Schedule.setInputType<AiError.AiError>(),
    Schedule.while(({ input, attempt }) => attempt <= retries && input.isRetryable),
    Schedule.modifyDelay(({ input, duration }) => {
      const wait =
        input.retryAfter === undefined
          ? Duration.min(duration, retryCap)
          : Duration.min(input.retryAfter, retryAfterCap)
      const note = `the model call failed (${input.reason.message}); trying again in ${Duration.toMillis(wait)} ms`
      return Effect.as(Effect.logDebug(note), wait)
    })
  )

  const generateText = Effect.fn("OpenAiCompat.generateText")(function* (options: LanguageModel.ProviderOptions) {
    const messages = Wire.messages(options.prompt)
    const characters = messages.reduce((sum, message) => sum + Text.length(message.content), 0)
    const needed = Math.ceil(characters / 3) + outputTokensMax
    if (settings.contextWindow !== undefined && needed > settings.contextWindow) {
      return yield* aiError(
        new AiError.InvalidRequestError({
          description: `the request does not fit the model's context window of ${Text.count(settings.contextWindow)} tokens (${names.contextWindow}): it needs about ${Text.count(needed)} (${Text.count(characters)} characters / 3, plus ${Text.count(outputTokensMax)} for the answer, ${names.outputTokensMax}); review fewer lines at a time, or raise ${names.contextWindow} if the server's window is larger`
        })
      )
    }
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.acceptJson,
      key === undefined ? (request) => request : HttpClientRequest.bearerToken(key),
      HttpClientRequest.bodyJsonUnsafe({
        ...body,
        ...responseFormat(structured, ReviewModel.answerKindOf(options.prompt)),
        messages
      })
    )
    const completion = yield* attempt(request).pipe(
      Effect.retry(retry),
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () =>
          Effect.fail(
            aiError(
              new AiError.NetworkError({
                reason: "TransportError",
                method: "POST",
                url,
                description: `no answer within ${secondsOf(timeout)}: raise ${names.timeout} (in seconds) for a slow model or a long prompt, or use a faster model`
              })
            )
          )
      })
    )
    return Wire.parts(completion)
  })

  return yield* LanguageModel.make({
    generateText,
    streamText: () =>
      Stream.fail(
        aiError(new AiError.InvalidUserInputError({ description: "this provider does not stream: use generateText" }))
      )
  })
})

/** The provider as a layer, on the `HttpClient` in context. */
export const layer = (settings: Settings): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(settings))

/** The provider configured from the environment (see `config`). */
export const layerConfig: Layer.Layer<LanguageModel.LanguageModel, Config.ConfigError, HttpClient.HttpClient> =
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function* () {
      return yield* make(yield* config)
    })
  )

/**
 * `ReviewModel.fromLanguageModel` over this provider, whose own timeout (with the setting's name in its message) is
 * the only one: the review model's is lifted.
 */
const reviewModelOver = <E, R>(
  model: Layer.Layer<LanguageModel.LanguageModel, E, R>
): Layer.Layer<ReviewModel.ReviewModel, E, R> =>
  ReviewModel.fromLanguageModel.pipe(
    Layer.provide(
      Layer.effect(
        MemoryConfig.MemoryConfig,
        Effect.map(MemoryConfig.MemoryConfig, (settings) => ({ ...settings, modelTimeout: Duration.infinity }))
      )
    ),
    Layer.provide(model)
  )

/** A `ReviewModel` on this provider, on the `HttpClient` in context. */
export const layerReviewModelWith = (
  settings: Settings
): Layer.Layer<ReviewModel.ReviewModel, never, HttpClient.HttpClient> => reviewModelOver(layer(settings))

/** A `ReviewModel` on this provider over Node's HTTP client. */
export const layerReviewModel = (settings: Settings): Layer.Layer<ReviewModel.ReviewModel> =>
  layerReviewModelWith(settings).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** A `ReviewModel` on this provider configured from the environment, over Node's HTTP client. */
export const layerReviewModelConfig: Layer.Layer<ReviewModel.ReviewModel, Config.ConfigError> = reviewModelOver(
  layerConfig
).pipe(Layer.provide(NodeHttpClient.layerUndici))
