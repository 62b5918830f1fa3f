/**
 * The Chat Completions wire format for the OpenAI-compatible provider: the prompt as messages, the response and error
 * bodies as schemas, and what each HTTP error status amounts to, with what to fix.
 */
import { Duration, Option, Schema } from "effect"
// By module, not from the "effect/ai" index, which loads all of effect/ai (the MCP server among it) in every process.
import * as AiError from "effect/ai/AiError"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"

/** One message as Chat Completions takes it. */
export interface Message {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/** The prompt's text as messages (files, tool calls and tool results are not sent). */
export const messages = (prompt: Prompt.Prompt): Array<Message> =>
  prompt.content.flatMap((message): Array<Message> => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }]
      case "user":
      case "assistant":
        return [
          {
            role: message.role,
            content: message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
          }
        ]
      case "tool":
        return []
    }
  })

const Count = Schema.optional(Schema.NullOr(Schema.Int))

/** A response body: the first choice's text and why it stopped, and the token usage. */
export const Completion = Schema.fromJsonString(
  Schema.Struct({
    choices: Schema.NonEmptyArray(
      Schema.Struct({
        message: Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)) }),
        finish_reason: Schema.optional(Schema.NullOr(Schema.String))
      })
    ),
    usage: Schema.optional(Schema.NullOr(Schema.Struct({ prompt_tokens: Count, completion_tokens: Count })))
  })
)

const finishReasons = new Map<string, Response.FinishReason>([
  ["stop", "stop"],
  ["length", "length"],
  ["content_filter", "content-filter"],
  ["tool_calls", "tool-calls"],
  ["function_call", "tool-calls"]
])

/** A completion as effect/ai's encoded response parts: the text, then the finish with its usage. */
export const parts = (completion: typeof Completion.Type): Array<Response.PartEncoded> => {
  const [choice] = completion.choices
  const usage = completion.usage ?? {}
  const finish = choice.finish_reason ?? undefined
  return [
    { type: "text", text: choice.message.content ?? "" },
    {
      type: "finish",
      reason: finish === undefined ? "unknown" : (finishReasons.get(finish) ?? "other"),
      usage: {
        inputTokens: { total: usage.prompt_tokens ?? undefined },
        outputTokens: { total: usage.completion_tokens ?? undefined }
      }
    }
  ]
}

const ErrorBody = Schema.fromJsonString(
  Schema.Union([
    Schema.Struct({ error: Schema.Union([Schema.String, Schema.Struct({ message: Schema.String })]) }),
    Schema.Struct({ message: Schema.String })
  ])
)

/** The server's own words in an error body (OpenAI, Ollama and vLLM shapes), or the body itself. */
export const serverMessage = (body: string): string =>
  Schema.decodeUnknownOption(ErrorBody)(body).pipe(
    Option.map((parsed) =>
      "message" in parsed ? parsed.message : typeof parsed.error === "string" ? parsed.error : parsed.error.message
    ),
    Option.getOrElse(() => body)
  )

const RetryAfter = Schema.FiniteFromString.check(Schema.isGreaterThanOrEqualTo(0))

/** What a call was, for the words of an error: its settings named as the person gave them. */
export interface Call {
  readonly url: string
  readonly model: string
  readonly hasKey: boolean
  readonly names: {
    readonly baseUrl: string
    readonly apiKey: string
    readonly model: string
    readonly maxTokensField: string
    readonly reasoning: string
    readonly structured: string
  }
  readonly structured: "off" | "json_object" | "json_schema"
}

/**
 * The AI error an HTTP error status amounts to: 429 and 5xx are retryable, the rest are not and name what to fix.
 * `said` is the server's message, already made safe to repeat; `retryAfter` the Retry-After header, in seconds.
 */
export const statusReason = (
  status: number,
  said: string,
  retryAfter: string | undefined,
  call: Call
): AiError.AiErrorReason => {
  const http = said === "" ? `HTTP ${status}` : `HTTP ${status}: ${said}`
  const model = JSON.stringify(call.model)
  const names = call.names
  if (status === 401) {
    return call.hasKey
      ? new AiError.AuthenticationError({
          kind: "InvalidKey",
          description: `the server refused the API key (${http}): check ${names.apiKey}`
        })
      : new AiError.AuthenticationError({
          kind: "MissingKey",
          description: `the server wants an API key (${http}): set ${names.apiKey}`
        })
  }
  if (status === 403) {
    return new AiError.AuthenticationError({
      kind: "InsufficientPermissions",
      description: `the server denied access (${http}): check that ${names.apiKey} may use the model ${model}`
    })
  }
  if (status === 404) {
    return new AiError.InvalidRequestError({
      description: `no such model or endpoint (${http}, from POST ${call.url}): check ${names.model} (${model}) and ${names.baseUrl} (it usually ends in /v1)`
    })
  }
  if (status === 429) {
    const wait = Schema.decodeUnknownOption(RetryAfter)(retryAfter)
    return new AiError.RateLimitError(Option.isSome(wait) ? { retryAfter: Duration.seconds(wait.value) } : {})
  }
  if (status >= 500) {
    return new AiError.InternalProviderError({
      description: `the server failed (${http}): try again later, or check the server`
    })
  }
  if (call.structured !== "off") {
    return new AiError.InvalidRequestError({
      description: `the server rejected the request (${http}): it may not take structured output (${names.structured} is ${call.structured}): set ${names.structured} to ${call.structured === "json_schema" ? "json_object or off" : "off"}, or check ${names.model}, ${names.maxTokensField} and ${names.reasoning}`
    })
  }
  return new AiError.InvalidRequestError({
    description: `the server rejected the request (${http}): check ${names.model}, ${names.maxTokensField} and ${names.reasoning}`
  })
}
