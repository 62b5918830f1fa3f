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
import { Lines, MaskedTaggedError, MemoryConfig } from "@mneme/core"
import {
  Agents,
  Memory,
  MemoryReview,
  MemoryRoot,
  RootLayout,
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
  Schema
} from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as FileTranscript from "../../FileTranscript.ts"
import * as NodePlatform from "../../NodePlatform.ts"
import * as OutcomeText from "../outcomeText.ts"
import * as Txt from "../text.ts"
import * as WatchFolder from "../watchFolder.ts"
import { limits, memoryLocation, mneme, output, textArgument, textFlag, UsageError } from "./common.ts"
import { formatFlag, readOptions } from "./formatFlag.ts"
import * as MemoryLocation from "./memoryLocation.ts"
import { chooseModel } from "./model.ts"
import { estimate } from "./reviewCount.ts"
import { catchSignals, type Current, folderTranscript } from "./watchPorts.ts"
import { type Event, render, reviewed, type Said, unreadable } from "./watchEvents.ts"

/** The folder to watch is not one. */
export class NotWatchable extends MaskedTaggedError<NotWatchable>()("NotWatchable", {
  folder: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.folder} ${this.problem}`
  }
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
  // The memory folder, when it is inside the watched one, is not a transcript.
  const memoryDir = location._tag === "Folder" ? path.resolve(location.path) : undefined
  const skip = (file: string) =>
    memoryDir !== undefined && (file === memoryDir || file.startsWith(memoryDir + path.sep))

  /** An event, as a JSON line or as `said` for people. */
  const tell = (event: Event, said: Said) => {
    if (out.json) return Console.log(JSON.stringify(event))
    const { lines, stderr } = said
    if (lines.length === 0) return Effect.void
    return stderr ? Console.error(lines.join("\n")) : Console.log(lines.join("\n"))
  }
  const say = (event: Exclude<Event, { readonly event: "review" }>) => tell(event, render(event))

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
  const review = yield* MemoryReview.reviewOnce().pipe(
    Effect.provideContext(services),
    Effect.provideService(MemoryConfig.MemoryConfig, config)
  )
  const state = Context.get(services, ReviewState.ReviewState)
  const root = Context.get(services, MemoryRoot.MemoryRoot)

  /** A file as a conversation: its id (as `mneme review` makes it), its name in sources, and its path in lines. */
  const conversationOf = (file: string) => ({
    conversationId: FileTranscript.conversationOf(path, file, global.agent, RootLayout.hash),
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
            `not reviewed: its lines after ${OutcomeText.at(saved)} would take about ` +
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
      const mask = (reason: string) => Lines.mask(reason, config)
      const reason = ReviewOutcome.reasonOf(outcome)
      const lastLineShown = lines.count === 0 ? null : lastLine
      yield* tell(
        {
          event: "review",
          file: shown,
          conversation: conversationId,
          outcome: outcome._tag,
          cursor: outcome.cursor ?? null,
          lastLine: lastLineShown,
          modelCalls: outcome.modelCalls,
          added: outcome.changes.added,
          edited: outcome.changes.edited,
          removed: outcome.changes.removed,
          leftOut: outcome.changes.leftOut,
          reason: reason === null ? null : mask(reason)
        },
        reviewed(shown, outcome, lastLineShown, mask)
      )
      // Newer lines go to the back of the queue, so one long file does not hold the others back.
      if (ReviewOutcome.goesOn(outcome, start)) yield* enqueue(file)
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
