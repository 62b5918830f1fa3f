/**
 * The `mneme` command line (DESIGN.md, "The CLI"): review a JSONL transcript into a memory folder, and read or change
 * that memory. Human output by default (colour only on a terminal), one JSON document with `--json`.
 *
 * Every failure is a short message on stderr and a non-zero exit, with no stack trace unless `--verbose`:
 * 1 when an operation failed (a bad transcript line, the model, a full memory, no match, a failed write), 2 for usage
 * and configuration (unknown command or flag, a missing argument, no model configured, a bad `--model`).
 */
import { type Answer, type Lines, MemoryConfig, Scope, Secret, Text, Topic } from "@mneme/core"
import {
  FileRoot,
  Memory,
  MemoryReview,
  type MemoryRoot,
  MemoryStore,
  Platform,
  ReviewOutcome,
  ReviewState
} from "@mneme/review"
import {
  Cause,
  Config,
  ConfigProvider,
  Console,
  Data,
  Effect,
  FileSystem,
  Layer,
  Logger,
  Option,
  Path,
  References,
  Runtime,
  Schema
} from "effect"
import { Argument, CliError, CliOutput, Command, Flag, TerminalCapabilities } from "effect/cli"
import * as FileTranscript from "./FileTranscript.ts"
import * as NodePlatform from "./NodePlatform.ts"
import * as ReplayModel from "./ReplayModel.ts"
import * as Txt from "./internal/text.ts"

/** The exit codes: 0 done, 1 an operation failed, 2 usage or configuration. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const

/** The command line was used wrongly, or something it needs is not configured. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

/** The conversation's cursor is past the transcript's last line: the file was cut or replaced since its review. */
export class CursorPastEnd extends Schema.TaggedError<CursorPastEnd>()("CursorPastEnd", {
  conversation: Schema.String,
  cursor: Schema.Number,
  lastLine: Schema.Number
}) {
  override get message() {
    return (
      `conversation ${this.conversation} was reviewed up to line #${this.cursor}, but this transcript ends at ` +
      `#${this.lastLine}: the file was cut or replaced since. To review it from its first line, as a new ` +
      `conversation, pass --conversation with a new id`
    )
  }
}

/** How the process ends after a failure that was already reported on stderr. */
export class Exit extends Data.TaggedError("Exit")<{ readonly code: number }> {
  override get [Runtime.errorExitCode]() {
    return this.code
  }
  override readonly [Runtime.errorReported] = false
}

/** What `review` says when no model is configured. */
export const noModel =
  "no model configured: pass --model replay:FILE to answer from recorded answers, or set MNEME_BASE_URL " +
  "(with MNEME_MODEL and MNEME_API_KEY) or pass --model <URL> for an OpenAI-compatible server"

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

const unmark = (value: string) => (value.startsWith(valueMark) ? value.slice(valueMark.length) : value)

/** A positional text argument, as typed. */
const textArgument = (name: string) => Argument.String(name).pipe(Argument.map(unmark))

/** A flag that takes a text, as typed. */
const textFlag = (name: string) => Flag.String(name).pipe(Flag.map(unmark))

// ---------------------------------------------------------------------------------------------------------------------
// Global options

const mneme = Command.make("mneme").pipe(
  Command.withSharedFlags({
    memory: textFlag("memory").pipe(
      Flag.withDescription("The memory folder"),
      Flag.withMetavar("DIR"),
      Flag.withDefault("./memory")
    ),
    agent: textFlag("agent").pipe(
      Flag.withDescription("The agent whose memory to use"),
      Flag.withMetavar("ID"),
      Flag.withDefault("default")
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print one JSON document, for scripts"),
      Flag.withDefault(false)
    ),
    verbose: Flag.Boolean("verbose").pipe(
      Flag.withDescription("Print the full cause of a failure"),
      Flag.withDefault(false)
    )
  }),
  Command.withDescription(
    "Long-term memory for AI agents, as Markdown a person can read. " +
      "Exit codes: 0 done, 1 an operation failed, 2 usage or configuration."
  )
)

/** Output settings: JSON or human text, and the colours for the latter. */
const output = Effect.gen(function* () {
  const global = yield* mneme
  const { canColor } = yield* TerminalCapabilities.TerminalCapabilities
  return { json: global.json, paint: Txt.paint(canColor) }
})

/** Prints lines (or one JSON document) to stdout. */
const print = (lines: ReadonlyArray<string>) => Console.log(lines.join("\n"))
const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const topicFlag = textFlag("topic").pipe(
  Flag.withDescription("A topic file instead of MEMORY.md"),
  Flag.withMetavar("T"),
  Flag.optional
)
const teamFlag = Flag.Boolean("team").pipe(
  Flag.withDescription("Team memory instead of the agent's own"),
  Flag.withDefault(false)
)
/** The memory store and the review state over the memory folder `root`, on this machine. */
const storeLayer = (root: string) =>
  Layer.merge(MemoryStore.layer, ReviewState.layer).pipe(
    Layer.provide(FileRoot.layer({ root })),
    Layer.provide(NodePlatform.layer)
  )

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
 * MNEME_TOPICS_MAX.
 */
const limits = Effect.gen(function* () {
  const given = {
    entryMax: yield* optionalLimit("MNEME_ENTRY_MAX"),
    memoryMax: yield* optionalLimit("MNEME_MEMORY_MAX"),
    topicMax: yield* optionalLimit("MNEME_TOPIC_MAX"),
    topicsMax: yield* optionalLimit("MNEME_TOPICS_MAX")
  }
  const settings: Partial<MemoryConfig.Settings> = Object.fromEntries(
    Object.entries(given).filter(([, value]) => value !== undefined)
  )
  return settings
})

/** Runs a command over the memory store and review state of `--memory`, with the limits of the environment. */
const withMemory = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const { memory } = yield* mneme
    const settings = MemoryConfig.layer(yield* limits)
    return yield* Effect.provide(effect, storeLayer(memory).pipe(Layer.provideMerge(settings)))
  })

/** The flags that say which file `remember` and `forget` change: `--topic` and `--team`. */
const whereFlags = { topic: topicFlag, team: teamFlag }

/** The scope, topic and actor of a change `remember` or `forget` makes, from `--team`, `--topic` and `--agent`. */
const target = (input: { readonly team: boolean; readonly topic: Option.Option<string> }) =>
  Effect.map(mneme, (global) => ({
    scope: input.team ? Scope.team : Scope.own(global.agent),
    ...Option.match(input.topic, { onNone: () => ({}), onSome: (topic) => ({ topic }) }),
    actor: "cli"
  }))

// ---------------------------------------------------------------------------------------------------------------------
// review

/** The review model `--model` asks for: recorded answers, a server URL, or the environment. */
const chooseModel = Effect.fnUntraced(function* (model: Option.Option<string>) {
  const choice = Option.getOrUndefined(model)
  if (choice?.startsWith("replay:")) {
    const file = choice.slice("replay:".length)
    if (file === "") return yield* new UsageError({ reason: "--model replay:FILE needs a file of recorded answers" })
    return ReplayModel.layer(file)
  }
  if (choice !== undefined && !/^https?:\/\//i.test(choice)) {
    return yield* new UsageError({
      reason: `--model takes replay:FILE or a server URL (http://… or https://…), not ${JSON.stringify(choice)}`
    })
  }
  if (choice === undefined && Option.isNone(yield* Config.option(Config.String("MNEME_BASE_URL")))) {
    return yield* new UsageError({ reason: noModel })
  }
  if (Option.isNone(yield* Config.option(Config.NonEmptyString("MNEME_MODEL")))) {
    return yield* new UsageError({ reason: "set MNEME_MODEL to the name of the model the server should run" })
  }
  const env = yield* ConfigProvider.ConfigProvider
  const provider =
    choice === undefined ? env : ConfigProvider.orElse(ConfigProvider.fromUnknown({ MNEME_BASE_URL: choice }), env)
  // Loaded only here: the HTTP client is most of the CLI's start-up time, and most commands need no server.
  const OpenAiCompat = yield* Effect.promise(() => import("./OpenAiCompat.ts"))
  const settings = yield* OpenAiCompat.config
    .parse(provider)
    .pipe(
      Effect.mapError(
        (error) => new UsageError({ reason: `the model server is not configured: ${Text.fold(error.message)}` })
      )
    )
  return OpenAiCompat.layerReviewModel(settings)
})

/** A copy of the memory root in a temporary folder, for a dry run. */
const copyRoot = Effect.fnUntraced(function* (memory: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const copy = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "mneme-dry-run-" }), "memory")
  if (yield* fs.exists(memory)) yield* fs.copy(memory, copy)
  else yield* fs.makeDirectory(copy, { recursive: true })
  return copy
})

/** What a dry run would change in one Markdown file: the lines it would gain and lose. */
interface FileChange {
  readonly file: string
  readonly status: "new" | "changed" | "deleted"
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
}

/** The Markdown files of `after` that differ from `before`, line by line. */
const diffRoots = Effect.fnUntraced(function* (before: string, after: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const files = (root: string) =>
    Effect.flatMap(fs.exists(root), (exists) =>
      exists
        ? Effect.map(fs.readDirectory(root, { recursive: true }), (names) =>
            names.filter((name) => name.endsWith(".md")).map((name) => name.split(path.sep).join("/"))
          )
        : Effect.succeed([])
    )
  /** A file's non-blank lines, or `undefined` when it does not exist. */
  const read = (root: string, file: string) =>
    Effect.flatMap(fs.exists(path.join(root, file)), (exists) =>
      exists
        ? Effect.map(fs.readFileString(path.join(root, file)), (text) => text.split("\n").filter((line) => line !== ""))
        : Effect.succeed(undefined)
    )
  const names = [...new Set([...(yield* files(before)), ...(yield* files(after))])].sort()
  const changes: Array<FileChange> = []
  for (const file of names) {
    const old = yield* read(before, file)
    const next = yield* read(after, file)
    const added = without(next ?? [], old ?? [])
    const removed = without(old ?? [], next ?? [])
    const status = old === undefined ? "new" : next === undefined ? "deleted" : "changed"
    if (added.length > 0 || removed.length > 0) changes.push({ file, status, added, removed })
  }
  return changes
})

/** The lines of `lines` not matched by a line of `other` (as multisets, in order). */
const without = (lines: ReadonlyArray<string>, other: ReadonlyArray<string>): Array<string> => {
  const left = new Map<string, number>()
  for (const line of other) left.set(line, (left.get(line) ?? 0) + 1)
  return lines.filter((line) => {
    const n = left.get(line) ?? 0
    if (n > 0) left.set(line, n - 1)
    return n === 0
  })
}

/**
 * Reviews a conversation until its cursor reaches the last line: one review after another while newer lines follow
 * (the 16,000-character budget splits a long transcript), stopping at the first that fails.
 */
const reviewToEnd = Effect.fnUntraced(function* (
  conversationId: string,
  lines: ReadonlyArray<Lines.Line>,
  onPass: (pass: number, outcome: MemoryReview.Outcome) => Effect.Effect<void>
) {
  const review = yield* MemoryReview.MemoryReview
  const cursors = yield* ReviewState.ReviewState
  const key = MemoryReview.cursorKey(conversationId)
  const first = lines[0]
  // A person reviewing a file means the whole file: a conversation never reviewed starts before its first line,
  // where a host's first review would read only its last lines.
  if (first !== undefined && (yield* cursors.cursor(key)) === undefined) yield* cursors.setCursor(key, first.seq - 1)
  const outcomes: Array<MemoryReview.Outcome> = []
  let cursor = yield* cursors.cursor(key)
  const lastLine = lines.at(-1)?.seq ?? 0
  if (cursor !== undefined && cursor > lastLine) {
    return yield* new CursorPastEnd({ conversation: conversationId, cursor, lastLine })
  }
  while (true) {
    const outcome = yield* review.reviewNow(conversationId)
    outcomes.push(outcome)
    yield* onPass(outcomes.length, outcome)
    const moved = outcome.cursor !== cursor
    cursor = outcome.cursor
    if (!ReviewOutcome.isOk(outcome) || !outcome.moreFollow || !moved) return outcomes
  }
})

const at = (seq: number | undefined | null) => (seq === undefined || seq === null ? "the start" : `#${seq}`)

/** What a change of an answer was, for people: `add "…"`, `edit entry 3`. */
const changeText = (change: Answer.Change) =>
  change.op === "add" ? `add ${JSON.stringify(change.text)}` : `${change.op} entry ${change.entry}`

/**
 * A failed review's lines for stderr, one per failure: each change memory refused, with why; otherwise why the
 * review failed, where.
 */
const failureLines = (outcome: MemoryReview.Outcome, pass: number, last: number | undefined): Array<string> => {
  const refused = outcome.changes.failed
  if (refused.length > 0) {
    return refused.map((failed) => `mneme: the review could not ${changeText(failed.change)}: ${failed.reason}`)
  }
  const of = last === undefined ? "" : ` of #${last}`
  const reason = ReviewOutcome.reasonOf(outcome) ?? outcome._tag
  return [`mneme: the review failed at ${at(outcome.cursor)}${of} (pass ${pass}): ${reason}`]
}

/** One review's progress line. */
const progress = (outcome: MemoryReview.Outcome, last: number | undefined): string => {
  const of = last === undefined ? "" : ` of #${last}`
  const changes = outcome.changes
  switch (outcome._tag) {
    case "Reviewed":
      return (
        `read to ${at(outcome.cursor)}${of} (${Txt.plural(outcome.modelCalls, "model call", "model calls")}): ` +
        `${changes.added.length} added, ${changes.edited.length} edited, ${changes.removed.length} removed, ` +
        `${changes.leftOut.length} left out` +
        (changes.secretsDropped === 0 ? "" : `, ${Txt.plural(changes.secretsDropped, "secret", "secrets")} dropped`)
      )
    case "NothingNew":
      return `nothing new after ${at(outcome.cursor)}${of}`
    case "NoUserLine":
      return `no user line up to ${at(outcome.cursor)}${of}, nothing to keep`
    default:
      return `failed at ${at(outcome.cursor)}${of}: ${ReviewOutcome.reasonOf(outcome) ?? outcome._tag}`
  }
}

const review = Command.make(
  "review",
  {
    transcript: textArgument("transcript").pipe(
      Argument.withDescription("A JSONL transcript: one {seq, who, text} object a line")
    ),
    model: textFlag("model").pipe(
      Flag.withDescription(
        "replay:FILE for recorded answers, or an OpenAI-compatible server URL (default: MNEME_BASE_URL)"
      ),
      Flag.optional
    ),
    conversation: textFlag("conversation").pipe(
      Flag.withDescription(
        "The conversation id (default: the file's base name and a hash of its absolute path and the agent)"
      ),
      Flag.optional
    ),
    dryRun: Flag.Boolean("dry-run").pipe(
      Flag.withDescription("Show the changes without writing them"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("mneme.review")(function* (input) {
    const global = yield* mneme
    const out = yield* output
    const path = yield* Path.Path
    const model = yield* chooseModel(input.model)
    const lines = yield* FileTranscript.read(input.transcript)
    const sha256 = yield* Effect.provide(
      Platform.Platform.use((platform) => Effect.succeed(platform.sha256)),
      NodePlatform.layer
    )
    const conversationId = Option.getOrElse(input.conversation, () =>
      FileTranscript.conversationOf(path, input.transcript, global.agent, sha256)
    )
    const label = Option.getOrElse(input.conversation, () => FileTranscript.labelOf(path, input.transcript))
    const root = input.dryRun ? yield* copyRoot(global.memory) : global.memory
    const last = lines.at(-1)?.seq
    // A pass that failed is said once, in the failure lines at the end.
    const onPass = (pass: number, outcome: MemoryReview.Outcome) =>
      ReviewOutcome.isOk(outcome) ? Console.error(`pass ${pass}: ${progress(outcome, last)}`) : Effect.void
    const services = Memory.layer({ root, settings: yield* limits }).pipe(
      Layer.provide(
        Layer.mergeAll(
          FileTranscript.layer({ lines, conversationId, label, agentId: global.agent }),
          model,
          NodePlatform.layer
        )
      )
    )
    const { outcomes, view } = yield* Effect.gen(function* () {
      const outcomes = yield* reviewToEnd(conversationId, lines, onPass)
      const view = yield* (yield* MemoryStore.MemoryStore).view(global.agent)
      return { outcomes, view }
    }).pipe(Effect.provide(services))
    const files = input.dryRun ? yield* diffRoots(global.memory, root) : []
    const failed = outcomes.find((outcome) => !ReviewOutcome.isOk(outcome))
    const changes = outcomes.map((outcome) => outcome.changes)
    const summary = {
      conversation: conversationId,
      transcript: label,
      agent: global.agent,
      memory: global.memory,
      dryRun: input.dryRun,
      ok: failed === undefined,
      reason: failed === undefined ? null : ReviewOutcome.reasonOf(failed),
      passes: outcomes.reduce((n, outcome) => n + outcome.passes, 0),
      modelCalls: outcomes.reduce((n, outcome) => n + outcome.modelCalls, 0),
      cursor: outcomes.at(-1)?.cursor ?? null,
      lastLine: last ?? null,
      added: changes.flatMap((change) => change.added),
      edited: changes.flatMap((change) => change.edited),
      removed: changes.flatMap((change) => change.removed),
      leftOut: changes.flatMap((change) => change.leftOut),
      secretsDropped: changes.reduce((n, change) => n + change.secretsDropped, 0),
      skipped: changes.flatMap((change) => change.skipped),
      failed: changes.flatMap((change) =>
        change.failed.map((failed) => ({ change: failed.change, tag: failed.error._tag, reason: failed.reason }))
      ),
      sizes: view.sizes,
      limits: view.limits,
      ...(input.dryRun ? { files } : {})
    }
    const kept = summary.added.length + summary.edited.length + summary.removed.length + summary.leftOut.length
    if (out.json) yield* printJson(summary)
    else if (failed === undefined || kept > 0) yield* print(renderReview(summary, files, out.paint))
    if (failed !== undefined) {
      yield* Console.error(failureLines(failed, outcomes.length, last).join("\n"))
      return yield* new Exit({ code: ExitCode.failed })
    }
  }, Effect.scoped)
).pipe(
  Command.withDescription(
    "Review a JSONL transcript into memory, pass by pass until its last line. " +
      "A transcript never reviewed is read from its first line; later runs go on from where the last one stopped."
  )
)

/** The human summary of a review. */
const renderReview = (
  s: {
    readonly transcript: string
    readonly memory: string
    readonly dryRun: boolean
    readonly passes: number
    readonly modelCalls: number
    readonly cursor: number | null
    readonly lastLine: number | null
    readonly added: ReadonlyArray<ReviewOutcome.Applied>
    readonly edited: ReadonlyArray<ReviewOutcome.Edited>
    readonly removed: ReadonlyArray<ReviewOutcome.Applied>
    readonly leftOut: ReadonlyArray<ReviewOutcome.LeftOut>
    readonly secretsDropped: number
    readonly skipped: ReadonlyArray<ReviewOutcome.Skipped>
    readonly sizes: { readonly own: number; readonly team: number }
    readonly limits: { readonly memory: number }
  },
  files: ReadonlyArray<FileChange>,
  p: Txt.Paint
): Array<string> => {
  const where = (scope: string, topic: string | undefined) => (topic === undefined ? scope : `${scope} · ${topic}`)
  const out: Array<string> = [
    p.bold(`Reviewed ${s.transcript}: `) +
      (s.modelCalls === 0
        ? "nothing new to review"
        : `${Txt.plural(s.passes, "pass", "passes")} (${Txt.plural(s.modelCalls, "model call", "model calls")})`) +
      `, cursor at ${at(s.cursor)}${s.lastLine === null ? "" : ` of #${s.lastLine}`}` +
      (s.dryRun ? p.yellow(` — dry run: nothing was written to ${s.memory}`) : "")
  ]
  const nothing =
    s.added.length + s.edited.length + s.removed.length + s.leftOut.length + s.skipped.length + s.secretsDropped === 0
  // A review that changed nothing is one line (a dry run still says what it would write: nothing).
  if (nothing && !s.dryRun) return out
  const section = (title: string, rows: ReadonlyArray<ReadonlyArray<string>>) => {
    if (rows.length > 0) out.push("", p.bold(`${title} (${rows.length})`), ...Txt.table(rows))
  }
  section(
    "Added",
    s.added.map((a) => [p.green("+"), where(a.scope, a.topic), a.text])
  )
  section(
    "Edited",
    s.edited.map((e) => [p.yellow("~"), where(e.scope, e.topic), `${e.before}\n${" ".repeat(4)}→ ${e.text}`])
  )
  section(
    "Removed",
    s.removed.map((r) => [p.red("-"), where(r.scope, r.topic), r.text])
  )
  const leftOut = s.leftOut.map((l) => [p.yellow("!"), `${l.text}  ${p.dim(`(${l.problem})`)}`])
  if (s.secretsDropped > 0) {
    const secrets = Txt.plural(s.secretsDropped, "secret", "secrets")
    leftOut.push([p.yellow("!"), `${secrets} dropped  ${p.dim("(memory never keeps keys, passwords or ID numbers)")}`])
  }
  section("Left out", leftOut)
  section(
    "Skipped",
    s.skipped.map((k) => [p.yellow("!"), k.reason])
  )
  out.push(
    "",
    `MEMORY.md: own ${Txt.size(s.sizes.own, s.limits.memory)}, team ${Txt.size(s.sizes.team, s.limits.memory)}`
  )
  if (s.dryRun) {
    out.push("", p.bold(`Would change (${files.length})`))
    if (files.length === 0) out.push("  nothing")
    for (const file of files) {
      out.push(`  ${file.file}${file.status === "changed" ? "" : ` (${file.status})`}`)
      for (const line of file.removed) out.push(p.red(`    - ${line}`))
      for (const line of file.added) out.push(p.green(`    + ${line}`))
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------------
// show

/** How many of the first entries, of these sizes, fit within `limit` characters. */
const entriesWithin = (sizes: ReadonlyArray<number>, limit: number): number => {
  let total = 0
  for (const [i, size] of sizes.entries()) {
    total += size
    if (total > limit) return i
  }
  return sizes.length
}

/**
 * A memory file as `show` gives it: its entries up to its size (a hand-edited file far past it is not printed
 * whole), each masked where it looks secret, and how many were not shown.
 */
const showFile = (file: MemoryRoot.StoredFile, settings: MemoryConfig.Settings) => {
  const limit = file.topic === undefined ? settings.memoryMax : settings.topicMax
  const entries = file.parsed.entries
  const within = entriesWithin(
    entries.map((entry) => Text.length(entry.text)),
    limit
  )
  return {
    file: file.file,
    topic: file.topic ?? null,
    size: file.size,
    limit,
    entries: entries.slice(0, within).map((entry) => {
      const looksSecret = Secret.looksSecret(entry.text)
      return {
        text: looksSecret ? Secret.redact(entry.text) : entry.text,
        meta: Object.fromEntries(entry.meta),
        looksSecret
      }
    }),
    notShown: entries.length - within
  }
}

const show = Command.make(
  "show",
  {},
  Effect.fn("mneme.show")(function* () {
    const global = yield* mneme
    const out = yield* output
    const settings = yield* MemoryConfig.MemoryConfig
    const store = yield* MemoryStore.MemoryStore
    const cursors = yield* ReviewState.ReviewState
    const scopes = [
      { name: "own", view: yield* store.load(Scope.own(global.agent)) },
      { name: "team", view: yield* store.load(Scope.team) }
    ]
    const lastReview = yield* cursors.lastReview(global.agent)
    const document = {
      memory: global.memory,
      agent: global.agent,
      scopes: scopes.map(({ name, view }) => ({
        scope: name,
        topics: view.files.length - 1,
        topicsMax: settings.topicsMax,
        files: view.files.map((file) => showFile(file, settings)),
        unlinked: view.unlinked.map((file) => file.file),
        unreadable: view.unreadable.map((file) => ({ file: file.file, reason: file.error.message }))
      })),
      lastReview
    }
    if (out.json) return yield* printJson(document)
    const p = out.paint
    const lines: Array<string> = [p.bold(`Memory in ${global.memory} for agent ${JSON.stringify(global.agent)}`)]
    for (const scope of document.scopes) {
      lines.push(
        "",
        p.bold(`${scope.scope === "own" ? "Own" : "Team"} memory`) +
          p.dim(` (${Txt.size(scope.topics, scope.topicsMax)} topics)`)
      )
      for (const file of scope.files) {
        const name = file.topic === null ? "MEMORY.md" : `topic ${file.topic}`
        const full = file.size > file.limit ? p.red : file.size > file.limit * 0.9 ? p.yellow : (t: string) => t
        lines.push(`  ${Txt.pad(name, 40)}${full(Txt.padStart(Txt.size(file.size, file.limit), 18))}`)
        if (file.size > file.limit) {
          lines.push(p.red(`    ! over its size of ${Txt.count(file.limit)} characters: remove or shorten entries`))
        }
        if (file.entries.length === 0 && file.notShown === 0) lines.push(p.dim("    (no entries)"))
        for (const entry of file.entries) {
          const meta = Object.entries(entry.meta).map(([key, value]) => `${key}: ${value}`)
          lines.push(`    - ${entry.text}${meta.length === 0 ? "" : p.dim(`  [${meta.join("; ")}]`)}`)
          if (entry.looksSecret) {
            lines.push(p.red("      ! this entry looks like a secret (masked here): memory should not keep it"))
          }
        }
        if (file.notShown > 0) {
          lines.push(p.dim(`    … ${Txt.plural(file.notShown, "more entry", "more entries")} past its size, not shown`))
        }
      }
      for (const file of scope.unlinked) {
        lines.push(p.yellow(`  ! ${file} is not linked from MEMORY.md's index (the next entry added to it links it)`))
      }
      for (const { file, reason } of scope.unreadable) {
        lines.push(p.red(`  ! ${file} could not be read, and is left out: ${reason}`))
      }
    }
    lines.push(
      "",
      `Last review: ${
        lastReview === null
          ? "never"
          : `${Txt.time(lastReview.at)}, ${lastReview.ok ? p.green("ok") : p.red(`failed: ${lastReview.reason ?? "unknown"}`)}`
      }`
    )
    yield* print(lines)
  }, withMemory)
).pipe(
  Command.withDescription(
    "Show the agent's own and team memory: entries by topic, sizes against limits, the last review"
  )
)

// ---------------------------------------------------------------------------------------------------------------------
// remember, forget

/** Prints a store outcome: its message, or the outcome as JSON. */
const printOutcome = Effect.fnUntraced(function* (outcome: MemoryStore.Outcome) {
  const out = yield* output
  if (out.json) return yield* printJson(outcome)
  yield* print([outcome.changed ? outcome.message : out.paint.dim(outcome.message)])
})

const remember = Command.make(
  "remember",
  {
    text: textArgument("text").pipe(Argument.withDescription("The fact to keep")),
    ...whereFlags
  },
  Effect.fn("mneme.remember")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    yield* printOutcome(yield* store.add({ ...(yield* target(input)), text: input.text }))
  }, withMemory)
).pipe(Command.withDescription("Add an entry (nothing changes if memory already holds it)"))

const forget = Command.make(
  "forget",
  {
    match: textArgument("match").pipe(Argument.withDescription("The entry's text, or a part only it contains")),
    ...whereFlags
  },
  Effect.fn("mneme.forget")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    yield* printOutcome(yield* store.remove({ ...(yield* target(input)), match: input.match }))
  }, withMemory)
).pipe(Command.withDescription("Remove the one entry that matches"))

// ---------------------------------------------------------------------------------------------------------------------
// recall

const recall = Command.make(
  "recall",
  {
    query: textArgument("query").pipe(Argument.withDescription("Words every entry shown must hold"), Argument.optional),
    topic: topicFlag
  },
  Effect.fn("mneme.recall")(function* (input) {
    const global = yield* mneme
    const out = yield* output
    const store = yield* MemoryStore.MemoryStore
    const view = yield* store.view(global.agent)
    const topic = Option.map(input.topic, (name) => Topic.clean(name) ?? name)
    const words = Option.match(input.query, { onNone: () => [], onSome: (query) => Text.sameKey(query).split(" ") })
    const entries = view.entries.filter(
      (entry) =>
        Option.match(topic, { onNone: () => true, onSome: (name) => entry.topic === name }) &&
        words.every((word) => Text.sameKey(entry.text).includes(word))
    )
    if (out.json) {
      return yield* printJson({
        agent: global.agent,
        entries: entries.map((entry) => ({
          scope: entry.scope,
          topic: entry.topic ?? null,
          text: entry.text,
          added: entry.added ?? null,
          by: entry.by ?? null,
          source: entry.source ?? null
        }))
      })
    }
    const p = out.paint
    if (entries.length === 0) return yield* print([p.dim("no entry matches")])
    yield* print(
      Txt.table(
        entries.map((entry) => [
          entry.scope,
          entry.topic ?? "-",
          entry.text + (entry.source === undefined ? "" : p.dim(`  [source: ${entry.source}]`))
        ]),
        ""
      )
    )
  }, withMemory)
).pipe(Command.withDescription("Search every entry for words, or read one topic"))

// ---------------------------------------------------------------------------------------------------------------------
// journal

const journal = Command.make(
  "journal",
  {
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("How many of the latest changes to show"),
      Flag.withMetavar("N"),
      Flag.withDefault(20)
    )
  },
  Effect.fn("mneme.journal")(function* (input) {
    const out = yield* output
    if (input.limit < 1) return yield* new UsageError({ reason: `--limit must be 1 or more, not ${input.limit}` })
    const store = yield* MemoryStore.MemoryStore
    const lines = yield* store.journal({ limit: input.limit })
    if (out.json) return yield* printJson({ journal: lines })
    const p = out.paint
    if (lines.length === 0) return yield* print([p.dim("the journal is empty")])
    const rows: Array<string> = []
    for (const line of lines) {
      rows.push(
        `${p.dim(Txt.time(line.time))}  ${Txt.pad(line.op, 7)}  ${line.file}  ${p.dim(
          `by ${line.actor}${line.auto === true ? " (auto)" : ""}`
        )}`
      )
      if (line.before !== undefined) rows.push(p.red(`    - ${line.before}`))
      if (line.after !== undefined) rows.push(p.green(`    + ${line.after}`))
    }
    yield* print(rows)
  }, withMemory)
).pipe(Command.withDescription("Show the latest changes to memory, oldest first"))

// ---------------------------------------------------------------------------------------------------------------------
// The whole command line

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
