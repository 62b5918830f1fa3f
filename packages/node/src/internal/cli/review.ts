/**
 * `mneme review`: a JSONL transcript (a file, or standard input) reviewed into memory, pass by pass until its last line,
 * with recorded answers or an OpenAI-compatible server. Before any model call it estimates the calls the review needs
 * and stops past `--max-calls`; `--show-prompt` prints what each call sends; `--dry-run` works on a copy and shows what
 * each file would gain or lose. The summary is the run's net effect on memory.
 */
import {
  type Answer,
  Lines,
  MaskedTaggedError,
  MemoryConfig,
  NotAFolder,
  Scope,
  Secret,
  StorageError,
  Text
} from "@mneme/core"
import { Memory, MemoryReview, MemoryStore, Platform, ReviewModel, ReviewOutcome, ReviewState } from "@mneme/review"
import { Console, Context, Effect, FileSystem, Layer, Option, Path, Ref, Schema, Stdio } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as FileTranscript from "../../FileTranscript.ts"
import * as NodePlatform from "../../NodePlatform.ts"
import * as Txt from "../text.ts"
import * as TranscriptIndex from "../transcriptIndex.ts"
import { formatFlag, readOptions } from "./formatFlag.ts"
import { chooseModel, replayFile } from "./model.ts"
import * as MemoryLocation from "./memoryLocation.ts"
import * as ReplayPosition from "./replayPosition.ts"
import {
  Exit,
  ExitCode,
  memoryLocation,
  mneme,
  output,
  print,
  printJson,
  limits,
  switchFlag,
  textArgument,
  textFlag,
  UsageError
} from "./common.ts"

/** The conversation's cursor is past the transcript's last line: the file was cut or replaced since its review. */
export class CursorPastEnd extends MaskedTaggedError<CursorPastEnd>()("CursorPastEnd", {
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

/**
 * The review would make more model calls than `--max-calls` allows: it stops before the first, and says how many it
 * would make and how to allow them.
 */
export class TooManyCalls extends Schema.TaggedError<TooManyCalls>()("TooManyCalls", {
  calls: Schema.Number,
  maxCalls: Schema.Number,
  characters: Schema.Number,
  budget: Schema.Number
}) {
  override get message() {
    return (
      `this review would make about ${Txt.plural(this.calls, "model call", "model calls")} ` +
      `(${Txt.count(this.characters)} characters of lines not reviewed yet, at most ` +
      `${Txt.count(this.budget)} a call), more than --max-calls ${Txt.count(this.maxCalls)} ` +
      `allows: nothing was sent. To make them, pass --max-calls ${this.calls} (or --max-calls 0 for no limit)`
    )
  }
}

/**
 * The review model with the system and request text of each call printed to stderr before it is made, for a person
 * tuning a model. The review masks secrets in what it sends; what is printed is masked again, so nothing unmasked is
 * shown even where a secret spans lines.
 */
const showingPrompts = <E, R>(
  model: Layer.Layer<ReviewModel.ReviewModel, E, R>
): Layer.Layer<ReviewModel.ReviewModel, E, R> =>
  Layer.effect(
    ReviewModel.ReviewModel,
    Effect.gen(function* () {
      const inner = yield* ReviewModel.ReviewModel
      const calls = yield* Ref.make(0)
      const part = (call: number, name: string, text: string) => {
        const shown = Secret.redact(text)
        return [
          `--- model call ${call}: ${name} (${Txt.plural(Text.length(shown), "character", "characters")}) ---`,
          shown
        ]
      }
      return ReviewModel.ReviewModel.of({
        generate: (input) =>
          Ref.updateAndGet(calls, (n) => n + 1).pipe(
            Effect.flatMap((call) =>
              Console.error(
                [
                  ...part(call, "system text", input.system),
                  ...part(call, "request text", input.request),
                  `--- end of model call ${call} ---`
                ].join("\n")
              )
            ),
            Effect.andThen(inner.generate(input))
          )
      })
    })
  ).pipe(Layer.provide(model))

/** A copy of the memory root in a temporary folder, for a dry run. */
const copyRoot = Effect.fnUntraced(function* (memory: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const copy = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "mneme-dry-run-" }), "memory")
  // A folder that is not there yet is copied as an empty one; any other failure to look at it is the run's.
  const info = yield* fs.stat(memory).pipe(
    Effect.map(Option.some),
    Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(Option.none()))
  )
  if (Option.isSome(info) && info.value.type !== "Directory") {
    return yield* new StorageError({ reason: new NotAFolder({ path: path.resolve(memory) }) })
  }
  if (Option.isSome(info)) yield* fs.copy(memory, copy)
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

/** A line of the transcript as the output names it: `#12`, or "the start" before the first. */
const at = (seq: number | undefined | null) => (seq === undefined || seq === null ? "the start" : `#${seq}`)

/** The model calls a review of the lines after a cursor needs, as far as they can be known before asking. */
export interface Estimate {
  /** The last line of each call's lines, oldest first: one call each. */
  readonly calls: ReadonlyArray<number>
  /** Characters of the lines after the cursor, cut and masked as the model would see them. */
  readonly characters: number
}

/**
 * The model calls reviewing the lines after `cursor` to the end needs, split as the review splits them (docs/spec.md 4.2,
 * `Lines.fit`): each review reads as many of the new lines as fit in `newLinesBudget` characters of cut text (the
 * first always), and asks the model once when they hold a user line; lines with no user line after them are passed
 * without a call. An answer at its cap that changed something earns up to `extraPassesMax` more calls over the same
 * lines; those depend on the answers and are not counted here, so the run checks again between reviews. The lines
 * are read from their index: their seqs, which are the user's own words, and their sizes cut as the review cuts them.
 */
export const estimate = (
  lines: TranscriptIndex.Index,
  cursor: number,
  settings: Pick<MemoryConfig.Settings, "newLinesBudget">
): Estimate => {
  const calls: Array<number> = []
  let characters = 0
  let lastUser = lines.count - 1
  while (lastUser >= 0 && !lines.userAt(lastUser)) lastUser--
  let start = TranscriptIndex.after(lines, cursor)
  while (start < lines.count) {
    if (start > lastUser) {
      for (let i = start; i < lines.count; i++) characters += lines.cutSizeAt(i)
      break
    }
    let used = 0
    let end = start
    let user = false
    while (end < lines.count) {
      const size = lines.cutSizeAt(end)
      if (end > start && used + size > settings.newLinesBudget) break
      used += size
      user ||= lines.userAt(end)
      end++
    }
    characters += used
    if (user) calls.push(lines.seqAt(end - 1))
    start = end
  }
  return { calls, characters }
}

/** How a run of reviews ended: their outcomes, and why it stopped early when `--max-calls` was reached between them. */
interface Run {
  readonly outcomes: ReadonlyArray<MemoryReview.Outcome>
  readonly stopped: string | undefined
}

/**
 * Where a review of `target` starts (its cursor; for a conversation never reviewed, before the file's first line) and
 * the model calls it needs from there. A cursor past the file's last line fails.
 */
const planOf = Effect.fnUntraced(function* (
  target: ReviewOutcome.Target,
  lines: TranscriptIndex.Index,
  settings: Pick<MemoryConfig.Settings, "newLinesBudget">
) {
  const cursors = yield* ReviewState.ReviewState
  const first = lines.count === 0 ? undefined : lines.seqAt(0)
  const lastLine = lines.count === 0 ? 0 : lines.seqAt(lines.count - 1)
  const saved = yield* cursors.cursor(ReviewOutcome.targetKey(target))
  if (saved !== undefined && saved > lastLine) {
    return yield* new CursorPastEnd({ conversation: target.conversationId, cursor: saved, lastLine })
  }
  // A person reviewing a file means the whole file: a conversation never reviewed starts before its first line,
  // where a host's first review would read only its last lines.
  const start = saved ?? (first === undefined ? lastLine : first - 1)
  return { saved, start, lastLine, planned: estimate(lines, start, settings) }
})

/**
 * Reviews a conversation (or one member's side of a group) until its cursor reaches the last line: one review after
 * another while newer lines follow (the 16,000-character budget splits a long transcript), stopping at the first that
 * fails. Before the first, the model calls it needs are estimated: past `maxCalls` (0: no limit) nothing is asked,
 * nor any cursor set. Between reviews, the calls made and those still needed are checked again (extra passes are not
 * known in advance).
 */
const reviewToEnd = Effect.fnUntraced(function* (
  target: ReviewOutcome.Target,
  lines: TranscriptIndex.Index,
  guard: { readonly maxCalls: number; readonly settings: Pick<MemoryConfig.Settings, "newLinesBudget"> },
  onPass: (pass: number, outcome: MemoryReview.Outcome) => Effect.Effect<void, StorageError>
) {
  const review = yield* MemoryReview.MemoryReview
  const cursors = yield* ReviewState.ReviewState
  const key = ReviewOutcome.targetKey(target)
  const first = lines.count === 0 ? undefined : lines.seqAt(0)
  const { saved, start, lastLine, planned } = yield* planOf(target, lines, guard.settings)
  const limited = guard.maxCalls > 0
  if (limited && planned.calls.length > guard.maxCalls) {
    return yield* new TooManyCalls({
      calls: planned.calls.length,
      maxCalls: guard.maxCalls,
      characters: planned.characters,
      budget: guard.settings.newLinesBudget
    })
  }
  if (saved === undefined && first !== undefined) yield* cursors.setCursor(key, start)
  const outcomes: Array<MemoryReview.Outcome> = []
  let cursor = start
  let made = 0
  while (true) {
    const outcome = yield* review.reviewNow(target.conversationId, target.member)
    outcomes.push(outcome)
    made += outcome.modelCalls
    yield* onPass(outcomes.length, outcome)
    const moved = outcome.cursor !== cursor
    cursor = outcome.cursor ?? cursor
    if (!ReviewOutcome.isOk(outcome) || !outcome.moreFollow || !moved) return { outcomes, stopped: undefined }
    const left = planned.calls.filter((end) => end > cursor).length
    if (limited && made + left > guard.maxCalls) {
      const stopped =
        `stopped at ${at(cursor)} of ${at(lastLine)} after ` +
        `${Txt.plural(made, "model call", "model calls")}: answers at their cap took extra passes, and the rest ` +
        `would take about ${Txt.count(left)} more, past --max-calls ${Txt.count(guard.maxCalls)}. Run the review ` +
        `again to go on from ${at(cursor)}, or pass a higher --max-calls (0 for no limit)`
      return { outcomes, stopped } satisfies Run
    }
  }
})

/** What a run's reviews did to memory, as one net effect (see `net`). */
export interface Net {
  readonly added: ReadonlyArray<ReviewOutcome.Applied>
  readonly edited: ReadonlyArray<ReviewOutcome.Edited>
  readonly removed: ReadonlyArray<ReviewOutcome.Applied>
}

/**
 * The net effect of a run's changes, review after review: an entry added and then edited is one added entry with its
 * final text; an entry added and then removed is neither; an entry edited twice is one edit from its first text to
 * its last; an entry edited and then removed is removed with the text it had before the run. Within one review (its
 * extra passes over the same lines) adds come before edits and edits before removes, as no pass changes an entry a
 * later pass makes. Entries are the same when their scope and topic are, and their texts but for case and spacing.
 */
export const net = (runs: ReadonlyArray<ReviewOutcome.Changes>): Net => {
  const added: Array<ReviewOutcome.Applied> = []
  const edited: Array<ReviewOutcome.Edited> = []
  const removed: Array<ReviewOutcome.Applied> = []
  const at = (entry: ReviewOutcome.Applied, text: string) => (other: ReviewOutcome.Applied) =>
    other.scope === entry.scope && other.topic === entry.topic && Text.sameKey(other.text) === Text.sameKey(text)
  for (const changes of runs) {
    added.push(...changes.added)
    for (const edit of changes.edited) {
      const fresh = added.findIndex(at(edit, edit.before))
      const again = fresh === -1 ? edited.findIndex(at(edit, edit.before)) : -1
      if (fresh !== -1) added[fresh] = { ...added[fresh]!, text: edit.text }
      else if (again === -1) edited.push(edit)
      else if (Text.sameKey(edited[again]!.before) === Text.sameKey(edit.text)) edited.splice(again, 1)
      else edited[again] = { ...edited[again]!, text: edit.text }
    }
    for (const gone of changes.removed) {
      const fresh = added.findIndex(at(gone, gone.text))
      const changed = fresh === -1 ? edited.findIndex(at(gone, gone.text)) : -1
      if (fresh !== -1) added.splice(fresh, 1)
      else if (changed === -1) removed.push(gone)
      else removed.push({ ...gone, text: edited.splice(changed, 1)[0]!.before })
    }
  }
  return { added, edited, removed }
}

/**
 * Why a review did not succeed, for a person at the command line. The review's note that it "stopped retrying these
 * lines" is about a host's background reviews: `mneme review` tries whenever it is run, so the note says instead how
 * many reviews of these lines have failed in a row.
 */
const reasonFor = (outcome: MemoryReview.Outcome, settings: Lines.CutSettings, failures: number): string | null =>
  outcome._tag === "Failed" && outcome.stopped
    ? `${Lines.mask(outcome.error.message, settings)} (${Txt.count(failures)} reviews of these lines have failed in a row)`
    : ReviewOutcome.reasonOf(outcome)

/** What a change of an answer was, for people: `add "…"`, `edit entry 3`. */
const changeText = (change: Answer.Change) =>
  change.op === "add" ? `add ${JSON.stringify(change.text)}` : `${change.op} entry ${change.entry}`

/**
 * A failed review's lines for stderr, one per failure: each change memory refused, with why; otherwise why the
 * review failed, where.
 */
const failureLines = (
  outcome: MemoryReview.Outcome,
  reason: string | null,
  pass: number,
  last: number | undefined
): Array<string> => {
  const refused = outcome.changes.failed
  if (refused.length > 0) {
    return refused.map((failed) => `mneme: the review could not ${changeText(failed.change)}: ${failed.reason}`)
  }
  const of = last === undefined ? "" : ` of #${last}`
  return [`mneme: the review failed at ${at(outcome.cursor)}${of} (pass ${pass}): ${reason ?? outcome._tag}`]
}

/** One review's progress line. */
const progress = (outcome: MemoryReview.Outcome, last: number | undefined): string => {
  const of = last === undefined ? "" : ` of #${last}`
  const changes = outcome.changes
  switch (outcome._tag) {
    case "Reviewed":
      return (
        `read to ${at(outcome.cursor)}${of} (${Txt.plural(outcome.modelCalls, "model call", "model calls")}): ` +
        `${Txt.count(changes.added.length)} added, ${Txt.count(changes.edited.length)} edited, ${Txt.count(changes.removed.length)} removed, ` +
        `${Txt.count(changes.leftOut.length)} left out` +
        (changes.secretsDropped === 0 ? "" : `, ${Txt.plural(changes.secretsDropped, "secret", "secrets")} dropped`) +
        (changes.skipped.length === 0 ? "" : `, ${Txt.count(changes.skipped.length)} skipped`)
      )
    case "NothingNew":
      return `nothing new after ${at(outcome.cursor)}${of}`
    case "NoUserLine":
      return `no user line up to ${at(outcome.cursor)}${of}, nothing to keep`
    default:
      return `failed at ${at(outcome.cursor)}${of}: ${ReviewOutcome.reasonOf(outcome) ?? outcome._tag}`
  }
}

/** What the conversation id of a group file is made from, in place of an agent's id. */
const groupMark = "\u0000group"

/** The member agents `--members` names: ids separated by commas, none empty, each once. */
const membersOf = (text: string) => {
  const ids = text.split(",").map((id) => id.trim())
  return ids.some((id) => id === "")
    ? Effect.fail(
        new UsageError({ reason: "--members takes agent ids separated by commas (ada,bob), none of them empty" })
      )
    : Effect.succeed([...new Set(ids)])
}

/** What `review --dry-run` says over Postgres. */
const dryRunNeedsFolder =
  "--dry-run works on a copy of a memory folder, and --memory names a Postgres database: to see what a review " +
  "would change, export the memory to a folder (mneme export DIR) and run the review with --dry-run --memory DIR"

/** What `review -` says without `--conversation`. */
const stdinNeedsConversation =
  "a transcript on standard input (-) needs --conversation ID: the id its cursor is kept under, so that the next " +
  "review of the same conversation goes on from where this one stopped"

export const review = Command.make(
  "review",
  {
    transcript: textArgument("transcript").pipe(
      Argument.withDescription(
        "A transcript: JSONL of {seq, who, text}, chat messages, a Claude Code session or Name: text lines (see " +
          "--format); - reads it from standard input (with --conversation)"
      )
    ),
    model: textFlag("model").pipe(
      Flag.withDescription(
        "replay:FILE for recorded answers, or an OpenAI-compatible server URL (default: MNEME_BASE_URL)"
      ),
      Flag.optional
    ),
    conversation: textFlag("conversation").pipe(
      Flag.withDescription(
        "The conversation id (default: the file's base name and a hash of its absolute path and the agent); " +
          "needed when the transcript is read from standard input"
      ),
      Flag.optional
    ),
    maxCalls: Flag.Int("max-calls").pipe(
      Flag.withDescription(
        "Stop before the first model call when the review would make more than N: one call per 16,000 characters " +
          "of lines not reviewed yet that hold a user line (0: no limit)"
      ),
      Flag.withMetavar("N"),
      Flag.withDefault(50)
    ),
    showPrompt: switchFlag(
      "show-prompt",
      "Print the system and request text of each model call to stderr, secrets masked"
    ),
    dryRun: switchFlag("dry-run", "Show the changes without writing them"),
    format: formatFlag,
    members: textFlag("members").pipe(
      Flag.withDescription(
        "A group conversation's member agents, separated by commas (ada,bob): each is reviewed on its own side of " +
          'the conversation, with its own cursor; an agent\'s line names it ({"who":"agent","name":"ada",…})'
      ),
      Flag.withMetavar("IDS"),
      Flag.optional
    )
  },
  Effect.fn("mneme.review")(function* (input) {
    const global = yield* mneme
    const location = yield* memoryLocation
    const out = yield* output
    const path = yield* Path.Path
    if (input.maxCalls < 0) {
      return yield* new UsageError({ reason: "--max-calls must be 0 (no limit) or more" })
    }
    if (input.dryRun && location._tag === "Postgres") {
      return yield* new UsageError({ reason: dryRunNeedsFolder })
    }
    // Recorded answers go on from where this conversation's last run stopped (a memory folder keeps the position).
    const replayPosition = yield* Ref.make(0)
    const chosen = yield* chooseModel(input.model, replayPosition)
    const model = input.showPrompt ? showingPrompts(chosen) : chosen
    const fromStdin = input.transcript === "-"
    // Checked before standard input is read, so a person at a terminal is not left waiting for it.
    if (fromStdin && Option.isNone(input.conversation)) {
      return yield* new UsageError({ reason: stdinNeedsConversation })
    }
    // The settings cut each line as the file is read, for the estimate of the calls.
    const given = yield* limits
    const settings = { ...(yield* MemoryConfig.MemoryConfig), ...given }
    const shape = readOptions(input.format, global.agent)
    const transcript = fromStdin
      ? FileTranscript.ofLines(
          yield* FileTranscript.readStream("standard input", (yield* Stdio.Stdio).stdin, shape),
          settings
        )
      : yield* FileTranscript.open(input.transcript, settings, shape)
    const lines = transcript.index
    const sha256 = yield* Effect.provide(
      Platform.Platform.use((platform) => Effect.succeed(platform.sha256)),
      NodePlatform.layer
    )
    const members = Option.isSome(input.members) ? yield* membersOf(input.members.value) : undefined
    // A group's cursors are per member (`group:<id>:<agent>`), so its id does not name an agent.
    const conversationId = Option.getOrElse(input.conversation, () =>
      FileTranscript.conversationOf(path, input.transcript, members === undefined ? global.agent : groupMark, sha256)
    )
    const label = Option.getOrElse(input.conversation, () => FileTranscript.labelOf(path, input.transcript))
    const copy = input.dryRun ? yield* copyRoot(global.memory) : undefined
    const root = copy === undefined ? location : MemoryLocation.folder(copy)
    const last = lines.count === 0 ? undefined : lines.seqAt(lines.count - 1)
    const targets: ReadonlyArray<ReviewOutcome.Target> =
      members === undefined
        ? [{ conversationId, member: undefined }]
        : members.map((member) => ({ conversationId, member }))
    // A pass that failed is said once, in the failure lines at the end; a member's passes are said with its name.
    const onPass = (target: ReviewOutcome.Target) => (pass: number, outcome: MemoryReview.Outcome) =>
      ReviewOutcome.isOk(outcome)
        ? Console.error(
            `${target.member === undefined ? "" : `${target.member}: `}pass ${pass}: ${progress(outcome, last)}`
          )
        : Effect.void
    const services = Memory.layerOver(MemoryLocation.rootLayer(root), { settings: given }).pipe(
      Layer.provide(
        Layer.mergeAll(
          transcript.layer({ conversationId, label, agentId: global.agent, members }),
          model,
          NodePlatform.layer
        )
      )
    )
    const answers = replayFile(input.model)
    const replayed =
      answers === undefined
        ? undefined
        : {
            root: ReplayPosition.rootFor(root, path.resolve(answers), sha256, path),
            answers: path.resolve(answers)
          }
    const onThisMachine = Effect.provideContext(
      Context.merge(yield* Effect.context<FileSystem.FileSystem | Path.Path>(), yield* Layer.build(NodePlatform.layer))
    )
    const from =
      replayed === undefined
        ? 0
        : yield* ReplayPosition.load(replayed.root, conversationId, replayed.answers).pipe(onThisMachine)
    yield* Ref.set(replayPosition, from)
    /** After each pass, the replay's position is kept, so the next run goes on from there. */
    const keepPosition = (target: ReviewOutcome.Target) => (pass: number, outcome: MemoryReview.Outcome) =>
      onPass(target)(pass, outcome).pipe(
        Effect.andThen(
          Effect.flatMap(Ref.get(replayPosition), (next) =>
            replayed === undefined || next === from
              ? Effect.void
              : ReplayPosition.save(replayed.root, conversationId, replayed.answers, next).pipe(onThisMachine)
          )
        )
      )
    const results = yield* Effect.gen(function* () {
      // Every member's calls are counted before the first is made.
      const plans = yield* Effect.forEach(targets, (target) => planOf(target, lines, settings))
      const needed = plans.reduce((n, plan) => n + plan.planned.calls.length, 0)
      if (input.maxCalls > 0 && needed > input.maxCalls) {
        return yield* new TooManyCalls({
          calls: needed,
          maxCalls: input.maxCalls,
          characters: plans.reduce((n, plan) => n + plan.planned.characters, 0),
          budget: settings.newLinesBudget
        })
      }
      const results: Array<{
        readonly agent: string
        readonly run: Run
        readonly sizes: MemoryStore.View["sizes"]
        readonly failures: number
      }> = []
      let made = 0
      for (const target of targets) {
        const left = input.maxCalls - made
        // Extra passes of the members before may have used the calls this one needed: it is then not reviewed.
        const run: Run =
          input.maxCalls > 0 && left <= 0
            ? {
                outcomes: [],
                stopped: `not reviewed: the members before made the ${Txt.count(made)} model calls --max-calls allows`
              }
            : yield* reviewToEnd(
                target,
                lines,
                { maxCalls: input.maxCalls === 0 ? 0 : left, settings },
                keepPosition(target)
              ).pipe(
                Effect.catchTag("TooManyCalls", (error) =>
                  Effect.succeed({ outcomes: [], stopped: error.message } satisfies Run)
                )
              )
        made += run.outcomes.reduce((n, outcome) => n + outcome.modelCalls, 0)
        const agent = target.member ?? global.agent
        // Both MEMORY.md sizes, read as `mneme show` reads them: of a file past its size, its first entries only.
        const store = yield* MemoryStore.MemoryStore
        const memorySize = (scope: Scope.Scope) =>
          Effect.map(store.load(scope, MemoryStore.withinSizes(settings)), (read) => read.files[0]?.size ?? 0)
        const sizes = { own: yield* memorySize(Scope.own(agent)), team: yield* memorySize(Scope.team) }
        const record = yield* (yield* ReviewState.ReviewState).failure(ReviewOutcome.targetKey(target))
        results.push({ agent, run, sizes, failures: record?.times.length ?? 0 })
      }
      return results
    }).pipe(Effect.provide(services))
    const files = copy === undefined ? [] : yield* diffRoots(global.memory, copy)
    const summaries = results.map(({ agent, run, sizes, failures }) => {
      const { outcomes } = run
      const failed = outcomes.find((outcome) => !ReviewOutcome.isOk(outcome))
      const reason = failed === undefined ? (run.stopped ?? null) : reasonFor(failed, settings, failures)
      const changes = outcomes.map((outcome) => outcome.changes)
      const summary = {
        conversation: conversationId,
        transcript: label,
        agent,
        memory: location.shown,
        dryRun: input.dryRun,
        ok: reason === null,
        reason,
        error:
          reason === null
            ? null
            : {
                tag: failed === undefined ? "TooManyCalls" : failed._tag === "Failed" ? failed.error._tag : failed._tag,
                message: reason
              },
        passes: outcomes.reduce((n, outcome) => n + outcome.passes, 0),
        modelCalls: outcomes.reduce((n, outcome) => n + outcome.modelCalls, 0),
        cursor: outcomes.at(-1)?.cursor ?? null,
        lastLine: last ?? null,
        ...net(changes),
        leftOut: changes.flatMap((change) => change.leftOut),
        secretsDropped: changes.reduce((n, change) => n + change.secretsDropped, 0),
        skipped: changes.flatMap((change) => change.skipped),
        failed: changes.flatMap((change) =>
          change.failed.map((failed) => ({ change: failed.change, tag: failed.error._tag, reason: failed.reason }))
        ),
        sizes,
        limits: {
          entry: settings.entryMax,
          memory: settings.memoryMax,
          topic: settings.topicMax,
          topics: settings.topicsMax
        },
        ...(input.dryRun ? { files } : {})
      }
      const landed = changes.some((change) => change.added.length + change.edited.length + change.removed.length > 0)
      return { summary, failed, reason, landed, run }
    })
    if (out.json) {
      yield* printJson(
        members === undefined
          ? summaries[0]!.summary
          : { conversation: conversationId, transcript: label, members: summaries.map(({ summary }) => summary) }
      )
    } else {
      for (const { summary, reason, landed } of summaries) {
        const shown = members === undefined ? summary : { ...summary, transcript: `${label} for ${summary.agent}` }
        if (reason === null || landed || summary.leftOut.length > 0) yield* print(renderReview(shown, files, out.paint))
      }
    }
    let failing = false
    for (const { summary, failed, reason, run } of summaries) {
      const who = members === undefined ? "" : `${summary.agent}: `
      if (failed !== undefined) {
        const lines = failureLines(failed, reason, run.outcomes.length, last)
        yield* Console.error(lines.map((line) => line.replace(/^mneme: /, `mneme: ${who}`)).join("\n"))
        failing = true
      } else if (run.stopped !== undefined) {
        yield* Console.error(`mneme: ${who}${run.stopped}`)
        failing = true
      }
    }
    if (failing) return yield* new Exit({ code: ExitCode.failed })
  }, Effect.scoped)
).pipe(
  Command.withDescription(
    "Review a transcript into memory, pass by pass until its last line, and print the net effect. " +
      "A transcript never reviewed is read from its first line; later runs go on from where the last one stopped. " +
      "A review that would make more model calls than --max-calls stops before the first."
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
    if (rows.length > 0) out.push("", p.bold(`${title} (${Txt.count(rows.length)})`), ...Txt.table(rows))
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
  section(
    "Left out",
    s.leftOut.map((l) => [p.yellow("!"), `${l.text}  ${p.dim(`(${l.problem})`)}`])
  )
  // Counted as the pass lines count them: a secret dropped is not an entry left out. Its text is never shown.
  if (s.secretsDropped > 0) {
    out.push(
      "",
      p.bold(`Secrets dropped (${Txt.count(s.secretsDropped)})`),
      ...Txt.table([[p.yellow("!"), p.dim("not shown: memory never keeps keys, passwords or ID numbers")]])
    )
  }
  section(
    "Skipped",
    s.skipped.map((k) => [p.yellow("!"), k.reason])
  )
  out.push(
    "",
    `MEMORY.md: own ${Txt.size(s.sizes.own, s.limits.memory)}, team ${Txt.size(s.sizes.team, s.limits.memory)}`
  )
  if (s.dryRun) {
    out.push("", p.bold(`Would change (${Txt.count(files.length)})`))
    if (files.length === 0) out.push("  nothing")
    for (const file of files) {
      out.push(`  ${file.file}${file.status === "changed" ? "" : ` (${file.status})`}`)
      for (const line of file.removed) out.push(p.red(`    - ${line}`))
      for (const line of file.added) out.push(p.green(`    + ${line}`))
    }
  }
  return out
}
