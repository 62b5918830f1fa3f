/**
 * The `mneme` command line (DESIGN.md, "The CLI"): review a JSONL transcript into a memory folder, and read or change
 * that memory. Human output by default (colour only on a terminal), one JSON document with `--json`.
 *
 * Every failure is a short message on stderr and a non-zero exit, with no stack trace unless `--verbose`:
 * 1 when an operation failed (a bad transcript line, the model, a full memory, no match, a failed write), 2 for usage
 * and configuration (unknown command or flag, a missing argument, no model configured, a bad `--model`).
 */
import { Cause, Console, Effect, Logger, References } from "effect"
import { CliError, CliOutput, Command } from "effect/cli"
import { Exit, ExitCode, markValues, mneme } from "./internal/cli/common.ts"
import { journal } from "./internal/cli/journal.ts"
import { review } from "./internal/cli/review.ts"
import { show } from "./internal/cli/show.ts"
import { forget, recall, remember } from "./internal/cli/store.ts"

export { CursorPastEnd, noModel } from "./internal/cli/review.ts"
export { Exit, ExitCode, markValues, UsageError } from "./internal/cli/common.ts"

const cli = mneme.pipe(Command.withSubcommands([review, show, remember, forget, recall, journal]))

/** Errors go to stderr, one line each, with a pointer to the help instead of the whole help text. */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Console.error(
          [
            ...event.errors.map((error) => `mneme: ${error.message}`),
            `Run "${event.commandPath.join(" ")} --help" for usage.`
          ].join("\n")
        )
      : CliOutput.defaultPresenter.present(event)
}

const usageTags = new Set(["UsageError", "ConfigError"])
const failureTags = new Set([
  "CursorPastEnd",
  "MalformedAnswer",
  "UnlistedEntry",
  "BadTopic",
  "MemoryFull",
  "NoMatch",
  "Denied",
  "TooManyTopics",
  "ModelError",
  "TranscriptError",
  "StorageError",
  "NotUndoable",
  "PlatformError"
])

/** Reports a failed run on stderr and gives its exit code. */
const report = (cause: Cause.Cause<unknown>, verbose: boolean): Effect.Effect<number> =>
  Effect.gen(function* () {
    if (Cause.hasInterruptsOnly(cause)) return 130
    const error = Cause.squash(cause)
    const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : undefined
    let code: number = ExitCode.failed
    if (error instanceof Exit) return error.code
    if (CliError.isCliError(error)) {
      code = ExitCode.usage
      // The presenter has shown parse errors; a bare `mneme` has shown the help.
      if (error._tag !== "ShowHelp") yield* Console.error(`mneme: ${error.message}`)
    } else if (tag !== undefined && (usageTags.has(tag) || failureTags.has(tag))) {
      code = usageTags.has(tag) ? ExitCode.usage : ExitCode.failed
      yield* Console.error(`mneme: ${(error as Error).message}`)
    } else {
      yield* Console.error(`mneme: unexpected error: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (verbose) yield* Console.error(Cause.pretty(cause))
    return code
  })

/** The version `mneme --version` prints. */
export const version = "0.1.0"

/** Runs the command line on `args` (without the node and script paths); a failure is reported, then ends as `Exit`. */
export const run = (args: ReadonlyArray<string>): Effect.Effect<void, Exit, Command.Environment> =>
  Command.runWith(cli, { version })(markValues(args)).pipe(
    Effect.provide(CliOutput.layerPresenter(presenter)),
    // The review's warnings are in its summary; its log lines are for --verbose (or --log-level), on stderr.
    Effect.provideService(Logger.LogToStderr, true),
    Effect.provideService(References.MinimumLogLevel, args.includes("--verbose") ? "Info" : "None"),
    Effect.catchCause((cause) =>
      Effect.flatMap(report(cause, args.includes("--verbose")), (code) => Effect.fail(new Exit({ code })))
    )
  )
