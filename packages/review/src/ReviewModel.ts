/**
 * The model a review talks to: a system text and one request text in, the answer's text out (docs/spec.md 5). Its default
 * implementation runs on effect/ai's `LanguageModel`, so any provider Effect supports plugs in; it bounds each call
 * by `MemoryConfig.modelTimeout` (read when its layer is built), treats an empty answer as an error, and reports token
 * usage.
 */
import { MemoryConfig, ModelError } from "@mneme/core"
import { Context, Duration, Effect, Layer, Schema } from "effect"
// By module, not from the "effect/ai" index, which loads all of effect/ai (the MCP server among it) in every process.
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"

/** Tokens one call used, as far as the provider reports them. */
export interface Usage {
  readonly inputTokens?: number
  readonly outputTokens?: number
}

/**
 * Which answer a call asks for: a review's (`Answer`) or a consolidation's, which has one more change, `move`
 * (`Consolidation`). A provider that constrains the answer by a schema sends the one it names.
 */
export type AnswerKind = "review" | "consolidation"

/** What one call sends: the system text, the request text and, when not a review's, the answer it asks for. */
export interface Request {
  readonly system: string
  readonly request: string
  readonly answer?: AnswerKind
}

const isConsolidationMark = Schema.is(Schema.Struct({ answer: Schema.Literal("consolidation") }))

/**
 * The answer a prompt asks for, as `fromLanguageModel` marks it on the prompt's system message (under the provider
 * options' `mneme` key) for providers that read it; a prompt without the mark asks for a review's.
 */
export const answerKindOf = (prompt: Prompt.Prompt): AnswerKind => {
  const first = prompt.content[0]
  return first?.role === "system" && isConsolidationMark(first.options["mneme"]) ? "consolidation" : "review"
}

/** What one call gives back. */
export interface Answer {
  readonly text: string
  readonly usage?: Usage
}

/** The review's model service. */
export class ReviewModel extends Context.Service<
  ReviewModel,
  {
    /** Asks the model once; fails with `ModelError` on no answer, an empty answer or any provider error. */
    readonly generate: (input: Request) => Effect.Effect<Answer, ModelError>
  }
>()("@mneme/review/ReviewModel") {}

/** A `ReviewModel` from a plain function (tests, recorded answers). */
export const layer = (generate: (input: Request) => Effect.Effect<Answer, ModelError>): Layer.Layer<ReviewModel> =>
  Layer.succeed(ReviewModel, ReviewModel.of({ generate }))

/** A `ReviewModel` over effect/ai's `LanguageModel`, bounded by the `MemoryConfig.modelTimeout` of its layer's build. */
export const fromLanguageModel: Layer.Layer<ReviewModel, never, LanguageModel.LanguageModel> = Layer.effect(
  ReviewModel,
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    const { modelTimeout } = yield* MemoryConfig.MemoryConfig
    const generate = Effect.fn("ReviewModel.generate")(function* (input: Request) {
      const response = yield* model
        .generateText({
          prompt: [
            {
              role: "system",
              content: input.system,
              options: { mneme: { answer: input.answer ?? "review" } }
            },
            { role: "user", content: input.request }
          ]
        })
        .pipe(
          Effect.mapError(fromAiError),
          Effect.timeoutOrElse({
            duration: modelTimeout,
            orElse: () =>
              Effect.fail(
                new ModelError({
                  reason: `no answer within ${Duration.toSeconds(modelTimeout)} seconds`,
                  retryable: true
                })
              )
          })
        )
      const text = response.text
      if (text.trim() === "") {
        return yield* new ModelError({ reason: emptyReason(response.finishReason), retryable: false })
      }
      const usage = usageOf(response.usage)
      return usage === undefined ? { text } : { text, usage }
    })
    return ReviewModel.of({ generate })
  })
)

/** A provider error as a `ModelError`, keeping the provider's own description where it gives one. */
const fromAiError = (error: AiError.AiError): ModelError => {
  const reason = error.reason
  const description = "description" in reason ? reason.description : undefined
  return new ModelError({
    reason: description !== undefined && description !== "" ? description : reason.message,
    retryable: error.isRetryable
  })
}

const emptyReason = (finish: Response.FinishReason): string =>
  finish === "length"
    ? "the answer is empty: the model stopped at its output cap, likely while reasoning " +
      "(turn reasoning off, or raise the output cap)"
    : finish === "content-filter"
      ? "the answer is empty: the provider's content filter stopped it"
      : "the answer is empty"

const usageOf = (usage: Response.Usage): Usage | undefined => {
  const input = usage.inputTokens.total
  const output = usage.outputTokens.total
  if (input === undefined && output === undefined) return undefined
  return {
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output })
  }
}
