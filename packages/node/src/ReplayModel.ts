/**
 * A review model that answers from recorded answers instead of a server: a JSONL file with one `{"answer": "…"}` or
 * `{"error": "…"}` a line, used in order, one per model call. It lets the CLI run offline and the same way every
 * time (`mneme review --model replay:FILE`). A replay can start further on, at a position its caller keeps (`mneme
 * review` keeps each conversation's beside its memory), so a transcript reviewed in several runs goes on from the
 * answer where its last run stopped.
 */
import { ModelError } from "@mneme/core"
import { ReviewModel } from "@mneme/review"
import { Effect, type FileSystem, Layer, type Path, Ref, Result, Schema } from "effect"
import * as Jsonl from "./internal/jsonl.ts"
import * as Txt from "./internal/text.ts"
import * as TextFile from "./internal/textFile.ts"

/** One recorded model call: the answer's text, or the error the call failed with. */
export type Recorded = { readonly answer: string } | { readonly error: string }

const RecordedJson = Schema.fromJsonString(
  Schema.Union([Schema.Struct({ answer: Schema.String }), Schema.Struct({ error: Schema.String })])
)
const decodeRecorded = Schema.decodeUnknownResult(RecordedJson)

/** Parses a file of recorded answers (blank lines skipped); the first bad line fails with its number. */
export const parse = (file: string, content: string): Result.Result<ReadonlyArray<Recorded>, ModelError> =>
  Result.mapError(
    Jsonl.parse(content, (row) => decodeRecorded(row)),
    ({ line }) =>
      new ModelError({
        reason: `${file} line ${line} is not a recorded answer: each line is {"answer": "…"} or {"error": "…"}`
      })
  )

/** A `ReviewModel` that gives the recorded answers of `file` in order, from the first, and fails once they run out. */
export const layer = (
  file: string
): Layer.Layer<ReviewModel.ReviewModel, ModelError, FileSystem.FileSystem | Path.Path> =>
  Layer.unwrap(Effect.map(Ref.make(0), (position) => layerAt(file, position)))

/**
 * A `ReviewModel` that gives the recorded answers of `file` in order from `position` (the index of the next answer,
 * 0 for the first, read at each call), moving it past each answer it gives; a call past the last answer fails and
 * leaves it there.
 */
export const layerAt = (
  file: string,
  position: Ref.Ref<number>
): Layer.Layer<ReviewModel.ReviewModel, ModelError, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    ReviewModel.ReviewModel,
    Effect.gen(function* () {
      const content = yield* TextFile.read(file, "file").pipe(
        Effect.mapError(
          (error) => new ModelError({ reason: `cannot read recorded answers ${file}: it ${error.problem}` })
        )
      )
      const recorded = yield* Effect.fromResult(parse(file, content))
      return ReviewModel.ReviewModel.of({
        generate: () =>
          Effect.flatMap(
            Ref.getAndUpdate(position, (n) => (n < recorded.length ? n + 1 : n)),
            (call) => {
              const next = recorded[call]
              if (next === undefined) {
                return Effect.fail(
                  new ModelError({
                    reason:
                      recorded.length === 0
                        ? `${file} holds no recorded answers: each line is {"answer": "…"} or {"error": "…"}`
                        : `${file} has no recorded answer left for call ${Txt.count(call + 1)} ` +
                          `(it holds ${Txt.count(recorded.length)})`
                  })
                )
              }
              return "answer" in next
                ? Effect.succeed({ text: next.answer })
                : Effect.fail(new ModelError({ reason: next.error }))
            }
          )
      })
    })
  )
