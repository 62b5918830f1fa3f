/**
 * `mneme review`: a JSONL transcript reviewed into memory, pass by pass until its last line, with recorded answers or
 * an OpenAI-compatible server; `--dry-run` works on a copy and shows what each file would gain or lose.
 */
import { type Answer, type Lines, Text } from "@mneme/core"
import { Memory, MemoryReview, MemoryStore, Platform, ReviewOutcome, ReviewState } from "@mneme/review"
import { Config, ConfigProvider, Console, Effect, FileSystem, Layer, Option, Path, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as FileTranscript from "../../FileTranscript.ts"
import * as NodePlatform from "../../NodePlatform.ts"
import * as ReplayModel from "../../ReplayModel.ts"
import * as Txt from "../text.ts"
import {
  Exit,
  ExitCode,
  mneme,
  output,
  print,
  printJson,
  limits,
  textArgument,
  textFlag,
  UsageError
} from "./common.ts"

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

/** What `review` says when no model is configured. */
export const noModel =
  "no model configured: pass --model replay:FILE to answer from recorded answers, or set MNEME_BASE_URL " +
  "(with MNEME_MODEL and MNEME_API_KEY) or pass --model <URL> for an OpenAI-compatible server"

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
  const OpenAiCompat = yield* Effect.promise(() => import("../../OpenAiCompat.ts"))
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

export const review = Command.make(
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
