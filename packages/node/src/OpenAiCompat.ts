/**
 * An OpenAI-compatible Chat Completions provider for effect/ai's `LanguageModel` (POST {baseUrl}/chat/completions),
 * for OpenAI, DeepSeek, Ollama, llama.cpp or vLLM. It carries the settings `generateText` has no words for (SPEC 5):
 * the output cap and the field that sends it, reasoning off, a context window checked before sending, a timeout.
 * Connection errors, 429 and 5xx are retried inside one call; anything else fails at once with what to fix. The API
 * key is kept `Redacted` and scrubbed from any server text an error repeats.
 */
import { MemoryConfig, Text } from "@mneme/core"
import { ReviewModel } from "@mneme/review"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Config, Duration, Effect, Layer, Option, Redacted, Schedule, Schema, Stream } from "effect"
import { AiError, LanguageModel } from "effect/ai"
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
}

const reasonings = ["default", "template-off", "none", "minimal", "low", "medium", "high"] as const

/**
 * The settings from the environment: MNEME_BASE_URL, MNEME_MODEL, and optional MNEME_API_KEY, MNEME_CONTEXT_WINDOW,
 * MNEME_MAX_TOKENS_FIELD ("auto"), MNEME_REASONING ("default").
 */
export const config: Config.Config<Settings> = Config.all({
  baseUrl: Config.URL("MNEME_BASE_URL").pipe(Config.map((url) => url.href)),
  apiKey: Config.option(Config.Redacted("MNEME_API_KEY")).pipe(Config.map(Option.getOrUndefined)),
  model: Config.NonEmptyString("MNEME_MODEL"),
  contextWindow: Config.option(Config.Int("MNEME_CONTEXT_WINDOW")).pipe(Config.map(Option.getOrUndefined)),
  maxTokensField: Config.Literals(["auto", "max_tokens", "max_completion_tokens"], "MNEME_MAX_TOKENS_FIELD").pipe(
    Config.withDefault("auto" as const)
  ),
  reasoning: Config.Literals(reasonings, "MNEME_REASONING").pipe(Config.withDefault("default" as const))
})

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

  const call = { url, model: settings.model, hasKey: key !== undefined }
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
              description: `could not reach the model server at ${url}${cause instanceof Error ? ` (${clean(cause.message, 200)})` : ""}: check MNEME_BASE_URL and that the server is running`
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
              description: `the server's answer is not a Chat Completions response (${clean(error.message, 300)}): check that MNEME_BASE_URL is an OpenAI-compatible API`
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
          description: `the request does not fit the model's context window of ${settings.contextWindow} tokens: it needs about ${needed} (${characters} characters / 3, plus ${outputTokensMax} for the answer); review fewer lines at a time, or raise MNEME_CONTEXT_WINDOW if the server's window is larger`
        })
      )
    }
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.acceptJson,
      key === undefined ? (request) => request : HttpClientRequest.bearerToken(key),
      HttpClientRequest.bodyJsonUnsafe({ ...body, messages })
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
                description: `no answer within ${Duration.toSeconds(timeout)} seconds: raise the timeout, or use a faster model`
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

/** A `ReviewModel` on this provider over Node's HTTP client. */
export const layerReviewModel = (settings: Settings): Layer.Layer<ReviewModel.ReviewModel> =>
  ReviewModel.fromLanguageModel.pipe(Layer.provide(layer(settings)), Layer.provide(NodeHttpClient.layerUndici))

/** A `ReviewModel` on this provider configured from the environment, over Node's HTTP client. */
export const layerReviewModelConfig: Layer.Layer<ReviewModel.ReviewModel, Config.ConfigError> =
  ReviewModel.fromLanguageModel.pipe(Layer.provide(layerConfig), Layer.provide(NodeHttpClient.layerUndici))
