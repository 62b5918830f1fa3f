/**
 * `mneme watch DIR`: memory kept for a folder of transcripts as they grow, such as Claude Code's `~/.claude/projects`.
 * Each file under the folder is its own conversation, with the id `mneme review` gives it (so the two share cursors),
 * read in its shape (`TranscriptFormat`). A file's new lines are reviewed once it has been quiet for the review delay,
 * one review at a time across the folder, from the file's cursor (a file never reviewed, from its first line), with
 * the failure policy of a host: two failed reviews at one cursor, then no model call for those lines until the user
 * writes more. The cost guard: a file whose lines not reviewed yet would take more model calls than `--max-calls` is
 * held, and says so, until a person reviews it (`mneme review FILE`).
 *
 * Files may appear, grow, be rotated (moved to a new name, which keeps the cursor, while the old name starts again),
 * be cut or replaced (reviewed again as a new conversation from their first line) or vanish while it runs; a row not
 * written whole yet waits for the next review. Ctrl-C (SIGINT) or SIGTERM stops it: no new review starts, and the one
 * in flight finishes within `--grace` seconds, or is abandoned at once on a second signal; an abandoned review has
 * moved no cursor, so its lines are reviewed when watch runs again. Each review is a progress line, or with `--json`
 * one JSON object a line.
 */
import { Lines, MaskedTaggedError, MemoryConfig, TranscriptError } from "@mneme/core"
import {
  Agents,
  Memory,
  MemoryReview,
  MemoryRoot,
  Platform,
  ReviewOutcome,
  ReviewState,
  Transcript
} from "@mneme/review"
import {
  Console,
  Context,
  Deferred,
  Duration,
  Effect,
  Fiber,
  FiberMap,
  FileSystem,
  Layer,
  Option,
  Path,
  Queue,
  Ref,
  Schema,
  Stream
} from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as FileTranscript from "../../FileTranscript.ts"
import * as NodePlatform from "../../NodePlatform.ts"
import * as TranscriptFormat from "../../TranscriptFormat.ts"
import * as Txt from "../text.ts"
import * as WatchFolder from "../watchFolder.ts"
import { limits, memoryLocation, mneme, output, textArgument, textFlag, UsageError } from "./common.ts"
import { formatFlag, readOptions } from "./formatFlag.ts"
import * as MemoryLocation from "./memoryLocation.ts"
import { chooseModel } from "./model.ts"
import { estimate } from "./review.ts"

/** The folder to watch is not one. */
export class NotWatchable extends MaskedTaggedError<NotWatchable>()("NotWatchable", {
  folder: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.folder} ${this.problem}`
  }
}

/** What watch says as it goes: a line for people, or one JSON object a line for scripts. */
type Event =
  | { readonly event: "watching"; readonly folder: string; readonly memory: string; readonly files: number }
  | {
      readonly event: "review"
      readonly file: string
      readonly conversation: string
      readonly outcome: MemoryReview.Outcome["_tag"]
      readonly cursor: number | null
      readonly lastLine: number | null
      readonly modelCalls: number
      readonly added: ReadonlyArray<ReviewOutcome.Applied>
      readonly edited: ReadonlyArray<ReviewOutcome.Edited>
      readonly removed: ReadonlyArray<ReviewOutcome.Applied>
      readonly leftOut: ReadonlyArray<ReviewOutcome.LeftOut>
      readonly reason: string | null
    }
  | { readonly event: "held"; readonly file: string; readonly conversation: string; readonly reason: string }
  | { readonly event: "unreadable"; readonly file: string; readonly reason: string }
  | { readonly event: "error"; readonly file: string | null; readonly reason: string }
  | { readonly event: "replaced"; readonly file: string; readonly conversation: string }
  | { readonly event: "renamed"; readonly from: string; readonly to: string }
  | { readonly event: "stopping"; readonly reviewing: string | null; readonly grace: number }
  | { readonly event: "stopped"; readonly abandoned: string | null }

/** A line of the transcript as a line names it: `#12`, or "the start" before the first. */
const at = (seq: number | null) => (seq === null ? "the start" : `#${seq}`)

/** What an entry's change looks like under a review's line. */
const entryLine = (sign: string, entry: ReviewOutcome.Applied) =>
  `  ${sign} ${entry.topic === undefined ? entry.scope : `${entry.scope} · ${entry.topic}`}: ${entry.text}`

/** An event as lines for people, and whether they are for stderr (a problem, or watch itself) rather than stdout. */
const render = (event: Event): { readonly lines: ReadonlyArray<string>; readonly stderr: boolean } => {
  switch (event.event) {
    case "watching":
      return {
        stderr: true,
        lines: [
          `mneme watch: following ${Txt.plural(event.files, "file", "files")} in ${event.folder} into ${event.memory}` +
            " (Ctrl-C stops)"
        ]
      }
    case "review": {
      const of = event.lastLine === null ? "" : ` of #${event.lastLine}`
      const calls = Txt.plural(event.modelCalls, "model call", "model calls")
      const head = `${event.file}: `
      switch (event.outcome) {
        case "Reviewed":
          return {
            stderr: false,
            lines: [
              `${head}reviewed to ${at(event.cursor)}${of} (${calls}): ${Txt.count(event.added.length)} added, ` +
                `${Txt.count(event.edited.length)} edited, ${Txt.count(event.removed.length)} removed, ` +
                `${Txt.count(event.leftOut.length)} left out`,
              ...event.added.map((entry) => entryLine("+", entry)),
              ...event.edited.map((entry) => entryLine("~", entry)),
              ...event.removed.map((entry) => entryLine("-", entry))
            ]
          }
        case "NothingNew":
          return { stderr: false, lines: [] }
        case "NoUserLine":
          return { stderr: false, lines: [`${head}no user line up to ${at(event.cursor)}${of}, nothing to keep`] }
        default:
          return { stderr: true, lines: [`${head}not reviewed at ${at(event.cursor)}${of}: ${event.reason}`] }
      }
    }
    case "held":
    case "unreadable":
      return { stderr: true, lines: [`${event.file}: ${event.reason}`] }
    case "error":
      return { stderr: true, lines: [`mneme watch: ${event.file === null ? "" : `${event.file}: `}${event.reason}`] }
    case "replaced":
      return {
        stderr: true,
        lines: [`${event.file}: cut or replaced since its review; reviewed as a new conversation from its first line`]
      }
    case "renamed":
      return { stderr: true, lines: [`${event.from}: moved to ${event.to}, which goes on from its cursor`] }
    case "stopping":
      return {
        stderr: true,
        lines: [
          event.reviewing === null
            ? "mneme watch: stopping"
            : `mneme watch: stopping once the review of ${event.reviewing} finishes (at most ` +
              `${Txt.plural(event.grace, "second", "seconds")}; Ctrl-C again abandons it)`
        ]
      }
    case "stopped":
      return {
        stderr: true,
        lines: [
          event.abandoned === null
            ? "mneme watch: stopped"
            : `mneme watch: stopped; the review of ${event.abandoned} was abandoned, its lines are reviewed when ` +
              "watch runs again"
        ]
      }
  }
}

/**
 * Why a file could not be read, without its path (the line names it): a file of no transcript shape is said in
 * short, as a folder may hold other files (`mneme review FILE` says what is wrong with it at length).
 */
const unreadable = (reason: string, file: string): string =>
  reason.includes(TranscriptFormat.fitsNone)
    ? "not a transcript in a shape mneme reads (mneme review FILE says why); skipped until it changes"
    : `${reason.startsWith(file) ? reason.slice(file.length).replace(/^:? /, "") : reason}; tried again when it changes`

/** The signals that stop watch. */
const stopSignals = ["SIGINT", "SIGTERM"] as const

/**
 * The stop signals, as they come, in `signals`, for as long as the scope is open: the process's own handlers of them
 * (the runtime's, which would interrupt the command at once) are set aside meanwhile and put back after.
 */
const catchSignals = (signals: Queue.Queue<string>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      stopSignals.map((name) => {
        const before = process.listeners(name)
        process.removeAllListeners(name)
        const listener = () => Queue.offerUnsafe(signals, name)
        process.on(name, listener)
        return { name, before, listener }
      })
    ),
    (caught) =>
      Effect.sync(() => {
        for (const { name, before, listener } of caught) {
          process.removeListener(name, listener)
          for (const handler of before) process.on(name, handler as () => void)
        }
      })
  )

/** The current review's transcript: the file being reviewed, as the review's `Transcript` reads it. */
interface Current {
  readonly conversationId: string
  readonly transcript: Transcript.Transcript["Service"]
}

/**
 * The `Transcript` port of a folder: the file under review (one at a time), as `FileTranscript.open` serves it; a
 * conversation that is not under review has no lines to give.
 */
const folderTranscript = (current: Ref.Ref<Current | undefined>, agentId: string): Transcript.Transcript["Service"] => {
  const notNow = (conversationId: string) =>
    new TranscriptError({ reason: `conversation ${JSON.stringify(conversationId)} is not being reviewed now` })
  const lines = (
    conversationId: string,
    read: (transcript: Transcript.Transcript["Service"]) => Stream.Stream<Lines.Line, TranscriptError>
  ) =>
    Stream.unwrap(
      Effect.map(Ref.get(current), (now) =>
        now?.conversationId === conversationId ? read(now.transcript) : Stream.fail(notNow(conversationId))
      )
    )
  const inReview = <A>(
    conversationId: string,
    ask: (transcript: Transcript.Transcript["Service"]) => Effect.Effect<A, TranscriptError>
  ) =>
    Effect.flatMap(Ref.get(current), (now) =>
      now?.conversationId === conversationId ? ask(now.transcript) : Effect.fail(notNow(conversationId))
    )
  return Transcript.make({
    newestFirst: (id) => lines(id, (transcript) => transcript.newestFirst(id)),
    oldestAfter: (id, cursor) => lines(id, (transcript) => transcript.oldestAfter(id, cursor)),
    newestUpTo: (id, seq) => lines(id, (transcript) => transcript.newestUpTo(id, seq)),
    agentOf: () => Effect.succeed(agentId),
    membersOf: (id) => inReview(id, () => Effect.succeed(undefined)),
    anchor: (id, seq) =>
      Effect.flatMap(Ref.get(current), (now) =>
        now?.conversationId === id ? now.transcript.anchor(id, seq) : Effect.succeed(Transcript.defaultAnchor(id, seq))
      )
  })
}

/** The command's flags. */
interface Input {
  readonly dir: string
  readonly model: Option.Option<string>
  readonly format: Option.Option<"mneme" | "chat" | "claude-code" | "text">
  readonly maxCalls: number
  readonly delay: number
  readonly interval: number
  readonly grace: number
}

const run = Effect.fnUntraced(function* (input: Input) {
  const global = yield* mneme
  const location = yield* memoryLocation
  const out = yield* output
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  if (input.maxCalls < 0) return yield* new UsageError({ reason: "--max-calls must be 0 (no limit) or more" })
  if (!(input.delay >= 0)) return yield* new UsageError({ reason: "--delay must be 0 seconds or more" })
  if (!(input.interval > 0)) return yield* new UsageError({ reason: "--interval must be more than 0 seconds" })
  if (!(input.grace >= 0)) return yield* new UsageError({ reason: "--grace must be 0 seconds or more" })
  const dir = path.resolve(input.dir)
  const info = yield* fs.stat(dir).pipe(Effect.option)
  if (Option.isNone(info)) return yield* new NotWatchable({ folder: input.dir, problem: "does not exist" })
  if (info.value.type !== "Directory") {
    return yield* new NotWatchable({ folder: input.dir, problem: "is not a folder of transcripts" })
  }
  const model = yield* chooseModel(input.model)
  const settings: Partial<MemoryConfig.Settings> = {
    ...(yield* limits),
    reviewDelay: Duration.millis(Math.round(input.delay * 1000))
  }
  const config = { ...(yield* MemoryConfig.MemoryConfig), ...settings }
  const shape = { ...readOptions(input.format, global.agent), growing: true }
  const sha256 = yield* Effect.provide(
    Platform.Platform.use((platform) => Effect.succeed(platform.sha256)),
    NodePlatform.layer
  )
  // The memory folder, when it is inside the watched one, is not a transcript.
  const memoryDir = location._tag === "Folder" ? path.resolve(location.path) : undefined
  const skip = (file: string) =>
    memoryDir !== undefined && (file === memoryDir || file.startsWith(memoryDir + path.sep))

  const say = (event: Event) => {
    if (out.json) return Console.log(JSON.stringify(event))
    const { lines, stderr } = render(event)
    if (lines.length === 0) return Effect.void
    return stderr ? Console.error(lines.join("\n")) : Console.log(lines.join("\n"))
  }

  const current = yield* Ref.make<Current | undefined>(undefined)
  const ports = Layer.mergeAll(
    Layer.succeed(Transcript.Transcript, folderTranscript(current, global.agent)),
    Layer.succeed(
      Agents.Agents,
      Agents.Agents.of({
        get: (agentId) =>
          Effect.succeed(agentId === global.agent ? { id: agentId, name: agentId, mayWriteTeam: true } : undefined)
      })
    )
  )
  const services = yield* Layer.build(
    Memory.layerOver(MemoryLocation.rootLayer(location), { settings }).pipe(
      Layer.provideMerge(Layer.mergeAll(ports, model, NodePlatform.layer))
    )
  )
  const review = yield* MemoryReview.reviewer().pipe(
    Effect.provideContext(services),
    Effect.provideService(MemoryConfig.MemoryConfig, config)
  )
  const state = Context.get(services, ReviewState.ReviewState)
  const root = Context.get(services, MemoryRoot.MemoryRoot)

  /** A file as a conversation: its id (as `mneme review` makes it), its name in sources, and its path in lines. */
  const conversationOf = (file: string) => ({
    conversationId: FileTranscript.conversationOf(path, file, global.agent, sha256),
    label: FileTranscript.labelOf(path, file),
    shown: path.relative(dir, file)
  })
  const keyOf = (file: string) => ReviewOutcome.cursorKey(conversationOf(file).conversationId)

  /** Forgets the cursor of a file cut or replaced under its name: what it holds now is a new conversation. */
  const restart = (file: string) =>
    root.updateState((document) => {
      const key = keyOf(file)
      if (!Object.hasOwn(document.cursors, key)) return document
      const cursors = { ...document.cursors }
      delete cursors[key]
      return { ...document, cursors }
    })

  const seen = yield* Ref.make<WatchFolder.Snapshot>(new Map())
  // What was said last of each file that could not be reviewed (unreadable, or held), so it is said once.
  const said = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
  const sayOnce = (file: string, event: Extract<Event, { readonly reason: string; readonly file: string }>) =>
    Effect.flatMap(
      Ref.modify(said, (map): [boolean, ReadonlyMap<string, string>] => [
        map.get(file) !== event.reason,
        new Map(map).set(file, event.reason)
      ]),
      (fresh) => (fresh ? say(event) : Effect.void)
    )
  const clearSaid = (file: string) => Ref.update(said, (map) => new Map([...map].filter(([other]) => other !== file)))

  const timers = yield* FiberMap.make<string>()
  const queue = yield* Queue.unbounded<string>()
  const queued = yield* Ref.make<ReadonlySet<string>>(new Set())
  const stopping = yield* Ref.make(false)
  const inFlight = yield* Ref.make<{ readonly file: string; readonly done: Deferred.Deferred<void> } | undefined>(
    undefined
  )

  const enqueue = (file: string) =>
    Ref.modify(queued, (set): [boolean, ReadonlySet<string>] => [!set.has(file), new Set(set).add(file)]).pipe(
      Effect.flatMap((fresh) => (fresh ? Queue.offer(queue, file) : Effect.void))
    )
  /** A file's review, queued once it has been quiet for the review delay (a newer change starts the wait again). */
  const schedule = (file: string) =>
    FiberMap.run(timers, file, Effect.andThen(Effect.sleep(config.reviewDelay), enqueue(file))).pipe(Effect.asVoid)

  /** Looks at the folder once: what appeared, grew, moved, was replaced or vanished since the last look. */
  const look = Effect.gen(function* () {
    const before = yield* Ref.get(seen)
    const after = yield* WatchFolder.scan(dir, skip).pipe(
      Effect.tap(() => clearSaid(dir)),
      Effect.catch((error) =>
        Effect.as(
          sayOnce(dir, { event: "unreadable", file: input.dir, reason: `cannot be read: ${error.message}` }),
          before
        )
      )
    )
    yield* Ref.set(seen, after)
    const changes = WatchFolder.diff(before, after)
    for (const { from, to } of changes.renamed) {
      const cursor = yield* state.cursor(keyOf(from))
      if (cursor !== undefined && (yield* state.cursor(keyOf(to))) === undefined) {
        yield* state.setCursor(keyOf(to), cursor)
      }
      yield* say({ event: "renamed", from: conversationOf(from).shown, to: conversationOf(to).shown })
      yield* schedule(to)
    }
    for (const file of changes.replaced) {
      yield* restart(file)
      yield* say({
        event: "replaced",
        file: conversationOf(file).shown,
        conversation: conversationOf(file).conversationId
      })
      yield* schedule(file)
    }
    for (const file of [...changes.appeared, ...changes.changed]) yield* schedule(file)
    for (const file of changes.vanished) {
      yield* FiberMap.remove(timers, file)
      yield* clearSaid(file)
    }
    return after.size
  })

  /** Reviews a file's new lines once, from its cursor, and queues it again while more follow. */
  const reviewFile = (file: string) =>
    Effect.gen(function* () {
      const { conversationId, label, shown } = conversationOf(file)
      const key = ReviewOutcome.cursorKey(conversationId)
      const opened = yield* FileTranscript.open(file, config, shape).pipe(Effect.result)
      if (opened._tag === "Failure") {
        return yield* sayOnce(file, {
          event: "unreadable",
          file: shown,
          reason: unreadable(opened.failure.reason, file)
        })
      }
      const lines = opened.success.index
      const first = lines.count === 0 ? undefined : lines.seqAt(0)
      const lastLine = lines.count === 0 ? 0 : lines.seqAt(lines.count - 1)
      let saved = yield* state.cursor(key)
      if (saved !== undefined && saved > lastLine) {
        yield* restart(file)
        yield* say({ event: "replaced", file: shown, conversation: conversationId })
        saved = undefined
      }
      // A file never reviewed is read from its first line, as `mneme review` reads it.
      const start = saved ?? (first === undefined ? lastLine : first - 1)
      const planned = estimate(lines, start, config)
      if (input.maxCalls > 0 && planned.calls.length > input.maxCalls) {
        return yield* sayOnce(file, {
          event: "held",
          file: shown,
          conversation: conversationId,
          reason:
            `not reviewed: its lines after ${at(saved ?? null)} would take about ` +
            `${Txt.plural(planned.calls.length, "model call", "model calls")}, more than --max-calls ` +
            `${Txt.count(input.maxCalls)}; review them with mneme review ${JSON.stringify(file)}` +
            `${Option.match(input.format, { onNone: () => "", onSome: (format) => ` --format ${format}` })} ` +
            `--max-calls ${planned.calls.length}, and watch goes on from there`
        })
      }
      yield* clearSaid(file)
      if (saved === undefined && first !== undefined) yield* state.setCursor(key, start)
      const served = yield* Layer.build(opened.success.layer({ conversationId, label, agentId: global.agent }))
      yield* Ref.set(current, { conversationId, transcript: Context.get(served, Transcript.Transcript) })
      const outcome = yield* review({ conversationId, member: undefined }, false).pipe(
        Effect.ensuring(Ref.set(current, undefined))
      )
      yield* say({
        event: "review",
        file: shown,
        conversation: conversationId,
        outcome: outcome._tag,
        cursor: outcome.cursor ?? null,
        lastLine: lines.count === 0 ? null : lastLine,
        modelCalls: outcome.modelCalls,
        added: outcome.changes.added,
        edited: outcome.changes.edited,
        removed: outcome.changes.removed,
        leftOut: outcome.changes.leftOut,
        reason:
          ReviewOutcome.reasonOf(outcome) === null ? null : Lines.mask(ReviewOutcome.reasonOf(outcome) ?? "", config)
      })
      if (outcome.moreFollow && outcome.cursor !== undefined && outcome.cursor !== start) yield* enqueue(file)
    }).pipe(Effect.scoped)

  /** Takes the queued files one at a time, and stops taking them once watch is stopping. */
  const worker = Effect.forever(
    Effect.gen(function* () {
      const file = yield* Queue.take(queue)
      yield* Ref.update(queued, (set) => new Set([...set].filter((other) => other !== file)))
      if (yield* Ref.get(stopping)) return yield* Effect.never
      if (!(yield* Ref.get(seen)).has(file)) return
      const done = yield* Deferred.make<void>()
      yield* Ref.set(inFlight, { file: conversationOf(file).shown, done })
      yield* reviewFile(file).pipe(
        Effect.catch((error) =>
          say({
            event: "error",
            file: conversationOf(file).shown,
            reason: `the review could not run: ${error.message}`
          })
        ),
        Effect.ensuring(Effect.andThen(Ref.set(inFlight, undefined), Deferred.succeed(done, undefined)))
      )
    })
  )

  const signals = yield* Queue.unbounded<string>()
  yield* catchSignals(signals)
  const files = yield* look
  yield* say({ event: "watching", folder: input.dir, memory: location.shown, files })
  const looking = yield* Effect.forkChild(
    Effect.forever(
      Effect.andThen(
        Effect.sleep(Duration.millis(Math.round(input.interval * 1000))),
        look.pipe(Effect.catch((error) => say({ event: "error", file: null, reason: error.message })))
      )
    )
  )
  const working = yield* Effect.forkChild(worker)

  yield* Queue.take(signals)
  yield* Ref.set(stopping, true)
  yield* Fiber.interrupt(looking)
  yield* FiberMap.clear(timers)
  const flight = yield* Ref.get(inFlight)
  yield* say({ event: "stopping", reviewing: flight?.file ?? null, grace: input.grace })
  const finished =
    flight === undefined
      ? true
      : yield* Effect.raceFirst(
          Deferred.await(flight.done).pipe(
            Effect.as(true),
            Effect.timeoutOption(Duration.millis(Math.round(input.grace * 1000))),
            Effect.map(Option.getOrElse(() => false))
          ),
          Effect.as(Queue.take(signals), false)
        )
  yield* Fiber.interrupt(working)
  yield* say({ event: "stopped", abandoned: finished ? null : (flight?.file ?? null) })
}, Effect.scoped)

export const watch = Command.make(
  "watch",
  {
    dir: textArgument("dir").pipe(
      Argument.withDescription("The folder of transcripts to follow, such as ~/.claude/projects (with its subfolders)")
    ),
    model: textFlag("model").pipe(
      Flag.withDescription(
        "replay:FILE for recorded answers, or an OpenAI-compatible server URL (default: MNEME_BASE_URL)"
      ),
      Flag.optional
    ),
    format: formatFlag,
    maxCalls: Flag.Int("max-calls").pipe(
      Flag.withDescription(
        "Hold a file whose lines not reviewed yet would take more than N model calls (0: no limit); " +
          "mneme review FILE reviews them"
      ),
      Flag.withMetavar("N"),
      Flag.withDefault(50)
    ),
    delay: Flag.Finite("delay").pipe(
      Flag.withDescription("How long a file must be quiet before its new lines are reviewed"),
      Flag.withMetavar("SECONDS"),
      Flag.withDefault(2)
    ),
    interval: Flag.Finite("interval").pipe(
      Flag.withDescription("How often the folder is looked at"),
      Flag.withMetavar("SECONDS"),
      Flag.withDefault(1)
    ),
    grace: Flag.Finite("grace").pipe(
      Flag.withDescription("When stopped, how long the review in flight may take to finish"),
      Flag.withMetavar("SECONDS"),
      Flag.withDefault(30)
    )
  },
  run
).pipe(
  Command.withDescription(
    "Keep memory for a folder of transcripts as they grow: each file is a conversation, its new lines reviewed " +
      "once it is quiet, one review at a time, from its cursor. Ctrl-C stops it, finishing the review in flight."
  )
)
