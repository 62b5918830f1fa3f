/**
 * What every command of the `mneme` CLI shares: the exit codes and the errors that end a run, the global flags
 * (`--memory`, `--agent`, `--json`, `--verbose`), values that start with "-", output, and the memory store over
 * `--memory` (a folder, or a Postgres database) with the limits of the environment.
 */
import { MaskedTaggedError, MemoryConfig, MemoryScope, Secret } from "@mneme/core"
import { MemoryStore, ReviewState } from "@mneme/review"
import { Config, Console, Data, Effect, FileSystem, Layer, Option, Path, Result, Runtime, Schema } from "effect"
import { Argument, Command, Flag, TerminalCapabilities } from "effect/cli"
import * as Txt from "../text.ts"
import * as MemoryLocation from "./memoryLocation.ts"

export { version } from "./version.ts"

/** The exit codes: 0 done, 1 an operation failed, 2 usage or configuration. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const

/** The command line was used wrongly, or something it needs is not configured. */
export class UsageError extends MaskedTaggedError<UsageError>()("UsageError", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

/** A command that only reads memory was given a memory folder that does not exist: there is nothing to read. */
export class NoMemoryFolder extends MaskedTaggedError<NoMemoryFolder>()("NoMemoryFolder", {
  /** The folder as given. */
  path: Schema.String,
  /** The folder as an absolute path. */
  absolute: Schema.String
}) {
  override get message() {
    const where = this.absolute === this.path ? this.path : `${this.path} (${this.absolute})`
    return `there is no memory folder at ${where}: check --memory (./memory by default, in the folder mneme runs from); remember and review make one`
  }
}

/** How the process ends after a failure that was already reported on stderr. */
export class Exit extends Data.TaggedError("Exit")<{ readonly code: number }> {
  override get [Runtime.errorExitCode]() {
    return this.code
  }
  override readonly [Runtime.errorReported] = false
}

// ---------------------------------------------------------------------------------------------------------------------
// Values that start with "-"

/**
 * An argument starts with "-" yet cannot be a flag ("- the user likes tea", "-[x]"): the command line's lexer would
 * read it as a cluster of short flags (`-h` among them), so it is marked as a value before parsing (with a NUL, which
 * no argument can hold) and unmarked where values are read.
 */
const valueMark = "\u0000"
const flagShape = /^--?[A-Za-z][A-Za-z0-9-]*(?:=|$)/
const negativeNumber = /^-(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** `args` with each argument before `--` that starts with "-" but cannot be a flag marked as a value. */
export const markValues = (args: ReadonlyArray<string>): Array<string> => {
  const end = args.indexOf("--")
  return args.map((arg, i) =>
    (end === -1 || i < end) &&
    arg.length > 1 &&
    arg.startsWith("-") &&
    !flagShape.test(arg) &&
    !negativeNumber.test(arg)
      ? valueMark + arg
      : arg
  )
}

export const unmark = (value: string) => (value.startsWith(valueMark) ? value.slice(valueMark.length) : value)

/** A flag that is on when given, with what it does. */
export const switchFlag = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withDefault(false))

/** A positional text argument, as typed. */
export const textArgument = (name: string) => Argument.String(name).pipe(Argument.map(unmark))

/** A flag that takes a text, as typed. */
export const textFlag = (name: string) => Flag.String(name).pipe(Flag.map(unmark))

export const mneme = Command.make("mneme").pipe(
  Command.withSharedFlags({
    memory: textFlag("memory").pipe(
      Flag.filter(
        (dir) => dir.trim() !== "",
        () => "a memory folder (or a postgres:// URL) that is not empty"
      ),
      Flag.withDescription(
        "The memory folder, or a Postgres database: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME] " +
          "(schema mneme by default)"
      ),
      Flag.withMetavar("DIR|URL"),
      Flag.withDefault("./memory")
    ),
    agent: textFlag("agent").pipe(
      Flag.filter(
        (id) => id.trim() !== "",
        () => "an agent id that is not empty"
      ),
      Flag.filter(
        (id) => !Secret.looksSecret(id),
        () =>
          "an agent id that does not look like a secret (a key, a token, a password): the id names the agent's " +
          "folder and is written into its journal"
      ),
      Flag.withDescription("The agent whose memory to use"),
      Flag.withMetavar("ID"),
      Flag.withDefault("default")
    ),
    json: switchFlag("json", "Print one JSON document, for scripts"),
    verbose: switchFlag("verbose", "Print the full cause of a failure")
  }),
  Command.withDescription(
    "Long-term memory for AI agents, as Markdown a person can read. " +
      "Exit codes: 0 done, 1 an operation failed, 2 usage or configuration."
  )
)

/** Output settings: JSON or human text, and the colours for the latter. */
export const output = Effect.gen(function* () {
  const global = yield* mneme
  const { canColor } = yield* TerminalCapabilities.TerminalCapabilities
  return { json: global.json, paint: Txt.paint(canColor) }
})

/** Prints lines (or one JSON document) to stdout. */
export const print = (lines: ReadonlyArray<string>) => Console.log(lines.join("\n"))
export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** The one JSON document a failed run prints with `--json`: `{"ok": false, "error": {"tag", "message"}}`. */
export const printFailureJson = (tag: string, message: string) => printJson({ ok: false, error: { tag, message } })

export const topicFlag = textFlag("topic").pipe(
  Flag.withDescription("A topic file instead of MEMORY.md"),
  Flag.withMetavar("T"),
  Flag.optional
)
export const teamFlag = switchFlag("team", "Team memory instead of the agent's own")
/** Where `--memory` says memory is: a folder or a Postgres database, or a usage error saying how to write it. */
export const memoryLocation = Effect.flatMap(mneme, (global) =>
  Result.match(MemoryLocation.parse(global.memory), {
    onSuccess: Effect.succeed,
    onFailure: (reason) => Effect.fail(new UsageError({ reason }))
  })
)

/** The memory store and the review state over `location` (a memory folder or a Postgres database), on this machine. */
export const storeLayer = (location: MemoryLocation.Location) =>
  Layer.merge(MemoryStore.layer, ReviewState.layer).pipe(Layer.provide(MemoryLocation.rootLayer(location)))

/** A limit from the environment variable `name`, if set: a whole number above 0, or a usage error naming it. */
const optionalLimit = Effect.fnUntraced(function* (name: string) {
  const given = Option.getOrUndefined(yield* Config.option(Config.String(name)))
  if (given === undefined) return undefined
  const value = Number(given.trim())
  if (given.trim() === "" || !Number.isSafeInteger(value) || value <= 0) {
    return yield* new UsageError({ reason: `${name} must be a whole number above 0, not ${JSON.stringify(given)}` })
  }
  return value
})

/**
 * The memory limits from the environment, over the defaults: MNEME_ENTRY_MAX, MNEME_MEMORY_MAX, MNEME_TOPIC_MAX and
 * MNEME_TOPICS_MAX; the review budget per agent and day, MNEME_REVIEW_CALLS_PER_DAY and MNEME_REVIEW_TOKENS_PER_DAY; and
 * whether a review consolidates a full MEMORY.md, MNEME_CONSOLIDATE (on, the default, or off).
 */
export const limits = Effect.gen(function* () {
  const given = {
    entryMax: yield* optionalLimit("MNEME_ENTRY_MAX"),
    memoryMax: yield* optionalLimit("MNEME_MEMORY_MAX"),
    topicMax: yield* optionalLimit("MNEME_TOPIC_MAX"),
    topicsMax: yield* optionalLimit("MNEME_TOPICS_MAX")
  }
  const settings: Partial<MemoryConfig.Settings> = Object.fromEntries(
    Object.entries(given).filter(([, value]) => value !== undefined)
  )
  const calls = yield* optionalLimit("MNEME_REVIEW_CALLS_PER_DAY")
  const tokens = yield* optionalLimit("MNEME_REVIEW_TOKENS_PER_DAY")
  const consolidate = Option.getOrUndefined(yield* Config.option(Config.String("MNEME_CONSOLIDATE")))
  if (consolidate !== undefined && consolidate !== "on" && consolidate !== "off") {
    return yield* new UsageError({ reason: `MNEME_CONSOLIDATE must be on or off, not ${JSON.stringify(consolidate)}` })
  }
  return {
    ...settings,
    ...(calls === undefined && tokens === undefined ? {} : { reviewBudget: { calls, tokens } }),
    ...(consolidate === undefined ? {} : { consolidateEnabled: consolidate === "on" })
  } satisfies Partial<MemoryConfig.Settings>
})

/** Runs a command over the memory store and review state of `--memory`, with the limits of the environment. */
export const withMemory = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const location = yield* memoryLocation
    const settings = MemoryConfig.layer(yield* limits)
    return yield* Effect.provide(effect, storeLayer(location).pipe(Layer.provideMerge(settings)))
  })

/**
 * Fails with `NoMemoryFolder` when `location` is a folder that does not exist, so that a command that only reads
 * memory never shows a typo of the folder as memory that is empty. (What is there but not a folder, the storage port
 * itself refuses.)
 */
export const memoryMustExist = Effect.fnUntraced(function* (location: MemoryLocation.Location) {
  if (location._tag !== "Folder") return
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const missing = yield* fs.stat(location.path).pipe(
    Effect.as(false),
    Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(true)),
    // Anything else (a parent that is a file, a folder not readable) is the storage port's to say, in its words.
    Effect.catch(() => Effect.succeed(false))
  )
  if (missing) return yield* new NoMemoryFolder({ path: location.shown, absolute: path.resolve(location.path) })
})

/**
 * Runs a command that only reads memory over the store and review state of `--memory`: as `withMemory`, but a memory
 * folder that does not exist is `NoMemoryFolder` (exit 1), never memory shown as empty.
 */
export const withMemoryToRead = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.andThen(Effect.flatMap(memoryLocation, memoryMustExist), withMemory(effect))

/** The flags that say which file `remember` and `forget` change: `--topic` and `--team`. */
export const whereFlags = { topic: topicFlag, team: teamFlag }

/** The scope, topic and actor of a change `remember` or `forget` makes, from `--team`, `--topic` and `--agent`. */
export const target = (input: { readonly team: boolean; readonly topic: Option.Option<string> }) =>
  Effect.map(mneme, (global) => ({
    scope: input.team ? MemoryScope.team : MemoryScope.own(global.agent),
    ...Option.match(input.topic, { onNone: () => ({}), onSome: (topic) => ({ topic }) }),
    actor: "cli"
  }))
