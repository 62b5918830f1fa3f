/**
 * The model a command asks, as `--model` or the environment says: recorded answers (`replay:FILE`), an
 * OpenAI-compatible server URL, or `MNEME_BASE_URL` with `MNEME_MODEL` and `MNEME_API_KEY`. Every message about the
 * server names the setting the way the person gave it: `--model` when the flag gave the URL, else `MNEME_BASE_URL`.
 */
import { type ModelError, Text } from "@mneme/core"
import type { ReviewModel } from "@mneme/review"
import {
  Config,
  ConfigProvider,
  Effect,
  type FileSystem,
  type Layer,
  Option,
  type Path,
  type Ref,
  Schema,
  SchemaIssue
} from "effect"
import * as ReplayModel from "../../ReplayModel.ts"
import { UsageError } from "./common.ts"

/** What a command that needs a model says when none is configured. */
export const noModel =
  "no model configured: pass --model replay:FILE to answer from recorded answers, or set MNEME_BASE_URL " +
  "(with MNEME_MODEL and MNEME_API_KEY) or pass --model <URL> for an OpenAI-compatible server"

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** What is wrong with the model's settings, in words: the variable, and what is wrong with its value. */
const configProblem = (error: Config.ConfigError): string => {
  if (Schema.isSchemaError(error.cause)) {
    const issue = formatIssue(error.cause.issue).issues[0]
    const name = (issue?.path ?? []).map(String).join(".")
    if (issue !== undefined && name !== "") return `${name}: ${Text.fold(issue.message)}`
  }
  return Text.fold(error.message)
}

/** The file of recorded answers `--model replay:FILE` names, if it names one. */
export const replayFile = (model: Option.Option<string>): string | undefined => {
  const choice = Option.getOrUndefined(model)
  return choice?.startsWith("replay:") ? choice.slice("replay:".length) : undefined
}

/**
 * The review model `--model` asks for: recorded answers (from `replayPosition`, when given), a server URL, or the
 * environment; a usage error otherwise.
 */
export const chooseModel = Effect.fnUntraced(function* (
  model: Option.Option<string>,
  replayPosition?: Ref.Ref<number>
): Effect.fn.Return<
  Layer.Layer<ReviewModel.ReviewModel, ModelError, FileSystem.FileSystem | Path.Path>,
  UsageError | Config.ConfigError
> {
  const choice = Option.getOrUndefined(model)
  const file = replayFile(model)
  if (file !== undefined) {
    if (file === "") return yield* new UsageError({ reason: "--model replay:FILE needs a file of recorded answers" })
    return replayPosition === undefined ? ReplayModel.layer(file) : ReplayModel.layerAt(file, replayPosition)
  }
  if (choice !== undefined && !/^https?:\/\//i.test(choice)) {
    return yield* new UsageError({
      reason: `--model takes replay:FILE or a server URL (http://… or https://…), not ${JSON.stringify(choice)}`
    })
  }
  if (choice !== undefined && !URL.canParse(choice)) {
    return yield* new UsageError({
      reason: `--model ${JSON.stringify(choice)} is not a valid URL: give the server's API root, e.g. http://127.0.0.1:11434/v1`
    })
  }
  if (choice === undefined && Option.isNone(yield* Config.option(Config.String("MNEME_BASE_URL")))) {
    return yield* new UsageError({ reason: noModel })
  }
  if (Option.isNone(yield* Config.option(Config.NonEmptyString("MNEME_MODEL")))) {
    return yield* new UsageError({
      reason:
        choice === undefined
          ? "set MNEME_MODEL to the name of the model the server should run"
          : "set MNEME_MODEL to the name of the model the server of --model should run"
    })
  }
  const env = yield* ConfigProvider.ConfigProvider
  const provider =
    choice === undefined ? env : ConfigProvider.orElse(ConfigProvider.fromUnknown({ MNEME_BASE_URL: choice }), env)
  // Loaded only here: the HTTP client is most of the CLI's start-up time, and most commands need no server.
  const OpenAiCompat = yield* Effect.promise(() => import("../../OpenAiCompat.ts"))
  const settings = yield* OpenAiCompat.config
    .parse(provider)
    .pipe(
      Effect.mapError(
        (error) => new UsageError({ reason: `the model server is not configured: ${configProblem(error)}` })
      )
    )
  return OpenAiCompat.layerReviewModel(
    choice === undefined ? settings : { ...settings, names: { ...settings.names, baseUrl: "--model" } }
  )
})
