/**
 * The `mneme` command line (docs/design.md, "The CLI"): review a JSONL transcript into memory (a folder, or a Postgres
 * database), read or change that memory, and move it between the two. Human output by default (colour only on a terminal), one JSON document with `--json`.
 *
 * Every failure is a short message on stderr and a non-zero exit, with no stack trace unless `--verbose`:
 * 1 when an operation failed (a bad transcript line, the model, a full memory, no match, a failed write), 2 for usage
 * and configuration (unknown command or flag, a missing argument, no model configured, a bad `--model`). The message
 * is in the user's terms (a folder given where a file is needed, a file that is not text), never the platform's
 * names. With `--json` stdout holds one document whatever happens: a failure is `{"ok": false, "error": {tag,
 * message}}`, the message the same as on stderr.
 */
import { Secret } from "@mneme/core"
import { Cause, Console, Effect, Logger, PlatformError, References } from "effect"
import { CliError, CliOutput, Command } from "effect/cli"
import { Exit, ExitCode, markValues, mneme, printFailureJson, printJson, version } from "./internal/cli/common.ts"
import { commandOf } from "./internal/cli/commandChoice.ts"
import { globalSwitches, type Switches } from "./internal/cli/globalSwitches.ts"
import * as TextFile from "./internal/textFile.ts"

export { noModel } from "./internal/cli/model.ts"
export { CursorPastEnd } from "./internal/cli/reviewCount.ts"
export { Exit, ExitCode, markValues, UsageError, version } from "./internal/cli/common.ts"

/**
 * Each command by its name, in the order of the help, loaded only when it runs: a command line that names its command
 * loads that one alone (see `commandOf`); the help, and a command line whose command cannot be told before parsing,
 * load them all.
 */
const commands = {
  review: async () => (await import("./internal/cli/review.ts")).review,
  watch: async () => (await import("./internal/cli/watch.ts")).watch,
  show: async () => (await import("./internal/cli/show.ts")).show,
  remember: async () => (await import("./internal/cli/store.ts")).remember,
  edit: async () => (await import("./internal/cli/store.ts")).edit,
  forget: async () => (await import("./internal/cli/store.ts")).forget,
  purge: async () => (await import("./internal/cli/store.ts")).purge,
  recall: async () => (await import("./internal/cli/store.ts")).recall,
  journal: async () => (await import("./internal/cli/journal.ts")).journal,
  undo: async () => (await import("./internal/cli/undo.ts")).undo,
  pending: async () => (await import("./internal/cli/pending.ts")).pending,
  approve: async () => (await import("./internal/cli/pending.ts")).approve,
  reject: async () => (await import("./internal/cli/pending.ts")).reject,
  consolidate: async () => (await import("./internal/cli/consolidate.ts")).consolidate,
  agents: async () => (await import("./internal/cli/agents.ts")).agents,
  export: async () => (await import("./internal/cli/export.ts")).exportMemory,
  import: async () => (await import("./internal/cli/import.ts")).importMemory,
  mcp: async () => (await import("./internal/cli/mcp.ts")).mcp,
  panel: async () => (await import("./internal/cli/panel.ts")).panel
}

type CommandName = keyof typeof commands
const commandNames = Object.keys(commands) as ReadonlyArray<CommandName>

/** The command line over the commands `args` need: the one they name, or every one. */
const commandLine = (args: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const named = commandOf(args, new Set(commandNames)) as CommandName | undefined
    const needed = named === undefined ? commandNames : [named]
    return mneme.pipe(Command.withSubcommands(await Promise.all(needed.map((name) => commands[name]()))))
  })

/**
 * Errors go to stderr, one line each, with a pointer to the help instead of the whole help text. With `--json`, stdout
 * gets one document: the usage error, or the version; a bare `mneme` shows no help there (`report` says what to do).
 */
const presenter = (json: boolean): CliOutput.Presenter => ({
  present: (event) => {
    switch (event._tag) {
      case "InvalidInvocation": {
        // A value the command line refused is quoted back, masked: it may be a key given in the wrong place.
        const messages = event.errors.map((error) => Secret.redact(error.message))
        return Effect.andThen(
          Console.error(
            [
              ...messages.map((message) => `mneme: ${message}`),
              `Run "${event.commandPath.join(" ")} --help" for usage.`
            ].join("\n")
          ),
          json ? printFailureJson(event.errors[0]?._tag ?? "UsageError", messages.join("\n")) : Effect.void
        )
      }
      case "Version":
        return json
          ? printJson({ name: event.name, version: event.version })
          : CliOutput.defaultPresenter.present(event)
      case "Help":
        return json && event.reason === "Implicit" ? Effect.void : CliOutput.defaultPresenter.present(event)
    }
  }
})

const usageTags = new Set(["UsageError", "ConfigError"])

/** A failure as it is reported: its words and tag (for stderr and `--json`), and its exit code. */
interface Failure {
  readonly tag: string
  readonly message: string
  readonly code: number
  /** Shown already, by the presenter: a usage error (with its JSON document), or a bare `mneme`'s help. */
  readonly presented?: "all" | "text"
}

const tagOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"
    ? error._tag
    : undefined

/** A failure in words: the command line's, the platform's (its path and what is wrong, never its own names), ours. */
const explain = (error: unknown, typed: boolean): Failure => {
  if (CliError.isCliError(error)) {
    if (error._tag !== "ShowHelp")
      return { tag: error._tag, message: Secret.redact(error.message), code: ExitCode.usage }
    const first = error.errors[0]
    if (first !== undefined) {
      return { tag: first._tag, message: Secret.redact(first.message), code: ExitCode.usage, presented: "all" }
    }
    return {
      tag: "UsageError",
      message: `no command given: use one of ${commandNames.join(", ")} (run "mneme --help" for usage)`,
      code: ExitCode.usage,
      presented: "text"
    }
  }
  if (PlatformError.isPlatformError(error)) {
    return { tag: "PlatformError", message: TextFile.sentence(error), code: ExitCode.failed }
  }
  const tag = tagOf(error)
  const text = error instanceof Error ? error.message : String(error)
  if (typed && tag !== undefined) {
    return { tag, message: text === "" ? tag : text, code: usageTags.has(tag) ? ExitCode.usage : ExitCode.failed }
  }
  return {
    tag: tag ?? (error instanceof Error ? error.name : "Defect"),
    message: `mneme itself failed, which is a bug (run again with --verbose to see where, and report it): ${text}`,
    code: ExitCode.failed
  }
}

/** Reports a failed run on stderr (and as one JSON document on stdout with `--json`) and gives its exit code. */
const report = (cause: Cause.Cause<unknown>, options: Switches): Effect.Effect<number> =>
  Effect.gen(function* () {
    const error = Cause.squash(cause)
    // Reported already by the command that ended the run (a failed review has printed its summary and its failure).
    if (error instanceof Exit) return error.code
    if (Cause.hasInterruptsOnly(cause)) {
      if (options.json) yield* printFailureJson("Interrupted", "interrupted")
      return 130
    }
    const failure = explain(error, Cause.hasFails(cause))
    // Without --json a bare `mneme` has shown the help; with it, stdout holds only the failure.
    if (failure.presented === undefined || (failure.presented === "text" && options.json)) {
      yield* Console.error(`mneme: ${failure.message}`)
      if (options.json) yield* printFailureJson(failure.tag, failure.message)
    }
    if (options.verbose) yield* Console.error(Cause.pretty(cause))
    return failure.code
  })

/**
 * Runs the command line on `args` (without the node and script paths); a failure is reported, then ends as `Exit`.
 * `--json` and `--verbose` are read before parsing (`globalSwitches` says why), for the presenter, the log level and
 * the report of a failure, a usage error among them.
 */
export const run = (args: ReadonlyArray<string>): Effect.Effect<void, Exit, Command.Environment> => {
  const switches = globalSwitches(args)
  return Effect.flatMap(commandLine(args), (cli) => Command.runWith(cli, { version })(markValues(args))).pipe(
    Effect.provide(CliOutput.layerPresenter(presenter(switches.json))),
    // The review's warnings are in its summary; its log lines are for --verbose (or --log-level), on stderr.
    Effect.provideService(Logger.LogToStderr, true),
    Effect.provideService(References.MinimumLogLevel, switches.verbose ? "Info" : "None"),
    Effect.catchCause((cause) => Effect.flatMap(report(cause, switches), (code) => Effect.fail(new Exit({ code }))))
  )
}
