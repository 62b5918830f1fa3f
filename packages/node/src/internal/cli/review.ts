/**
 * `mneme review`: a JSONL transcript (a file, or standard input) reviewed into memory, pass by pass until its last line,
 * with recorded answers or an OpenAI-compatible server. Before any model call it estimates the calls the review needs
 * and stops past `--max-calls`; `--show-prompt` prints what each call sends; `--dry-run` works on a copy and shows what
 * each file would gain or lose. The summary is the run's net effect on memory.
 */
import { MemoryConfig } from "@mneme/core"
import { Memory, type MemoryReview, ReviewOutcome, RootLayout } from "@mneme/review"
import { Console, Context, Effect, FileSystem, Layer, Option, Path, Ref, Stdio } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as FileTranscript from "../../FileTranscript.ts"
import * as NodePlatform from "../../NodePlatform.ts"
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
import { formatFlag, readOptions } from "./formatFlag.ts"
import * as MemoryLocation from "./memoryLocation.ts"
import { chooseModel, replayFile } from "./model.ts"
import * as ReplayPosition from "./replayPosition.ts"
import { net } from "./reviewCount.ts"
import { copyRoot, diffRoots } from "./reviewDryRun.ts"
import { failureLines, progress, reasonFor, renderReview } from "./reviewRender.ts"
import { reviewAll, showingPrompts } from "./reviewToEnd.ts"

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
    const members = Option.isSome(input.members) ? yield* membersOf(input.members.value) : undefined
    // A group's cursors are per member (`group:<id>:<agent>`), so its id does not name an agent.
    const conversationId = Option.getOrElse(input.conversation, () =>
      FileTranscript.conversationOf(
        path,
        input.transcript,
        members === undefined ? global.agent : groupMark,
        RootLayout.hash
      )
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
            root: ReplayPosition.rootFor(root, path.resolve(answers), path),
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
    const results = yield* reviewAll(
      targets,
      lines,
      { maxCalls: input.maxCalls, settings, agent: global.agent },
      keepPosition
    ).pipe(Effect.provide(services))
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
