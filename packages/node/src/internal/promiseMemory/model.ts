/**
 * The review's model of `createMemory`: an OpenAI-compatible server from the host's options, checked, or none (the
 * review is then off).
 */
import { ModelError } from "@mneme/core"
import { ReviewModel } from "@mneme/review"
import { Duration, Effect, Redacted, Result } from "effect"
import * as OpenAiCompat from "../../OpenAiCompat.ts"

/** The review's model: an OpenAI-compatible Chat Completions server (OpenAI, DeepSeek, Ollama, llama.cpp, vLLM). */
export interface ModelOptions {
  /** The API root, such as `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string
  readonly model: string
  /** Sent as a bearer token; none for a local server. Never logged or shown in an error. */
  readonly apiKey?: string | undefined
  /** Seconds one model call may take (120 by default). */
  readonly timeoutSeconds?: number | undefined
  /** The answer's output cap in tokens (2,048 by default). */
  readonly maxTokens?: number | undefined
  /** See `OpenAiCompat.Settings`: the field the cap is sent in, reasoning off, structured output, the window. */
  readonly maxTokensField?: OpenAiCompat.MaxTokensField | undefined
  readonly reasoning?: OpenAiCompat.Reasoning | undefined
  readonly structured?: OpenAiCompat.Structured | undefined
  readonly contextWindow?: number | undefined
}

/** A value of `undefined` keys dropped, for options whose types say "absent", not "undefined". */
export const defined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A

/** A model for memory without one: the review is off, so it is never asked. */
const noModel = ReviewModel.layer(() =>
  Effect.fail(new ModelError({ reason: "no model was given to createMemory: reviews do not run" }))
)

/** The review's model from the host's options, or what is wrong with them. */
export const modelLayer = (model: ModelOptions | undefined) => {
  if (model === undefined) return Result.succeed(noModel)
  if (typeof model.baseUrl !== "string" || !URL.canParse(model.baseUrl)) {
    return Result.fail(`model.baseUrl must be the server's API root, such as http://127.0.0.1:11434/v1`)
  }
  if (typeof model.model !== "string" || model.model.trim() === "") {
    return Result.fail("model.model must name the model the server should run")
  }
  return Result.succeed(
    OpenAiCompat.layerReviewModel(
      defined({
        baseUrl: model.baseUrl,
        model: model.model,
        apiKey: model.apiKey === undefined || model.apiKey === "" ? undefined : Redacted.make(model.apiKey),
        timeout: model.timeoutSeconds === undefined ? undefined : Duration.seconds(model.timeoutSeconds),
        outputTokensMax: model.maxTokens,
        maxTokensField: model.maxTokensField,
        reasoning: model.reasoning,
        structured: model.structured,
        contextWindow: model.contextWindow,
        names: {
          baseUrl: "model.baseUrl",
          apiKey: "model.apiKey",
          model: "model.model",
          timeout: "model.timeoutSeconds",
          outputTokensMax: "model.maxTokens",
          contextWindow: "model.contextWindow"
        }
      })
    )
  )
}
