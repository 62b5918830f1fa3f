/**
 * The review's state (SPEC 4): a cursor per key, the failure records and the last review per agent, persisted
 * atomically to `<root>/reviewed.json` with a format version, under the same writer lock as the memory store. A
 * missing file reads as empty state; a damaged one too, with one warning, after it is kept aside as
 * `reviewed.json.damaged-<time>`.
 */
import { MemoryWriteError } from "@mneme/core"
import { Clock, Context, Effect, FileSystem, Layer, Option, Path, Schema } from "effect"
import { failure, orMissing, writeAtomic } from "./internal/files.ts"
import * as MemoryRoot from "./internal/memoryRoot.ts"
import * as Paths from "./internal/paths.ts"

/** The failed reviews at one cursor key. */
export const FailureRecord = Schema.Struct({
  /** The cursor value the failures happened at. */
  cursor: Schema.NullOr(Schema.Number),
  /** The newest user line those tries saw. */
  newestUserSeq: Schema.Number,
  failures: Schema.Number,
  stopWarned: Schema.Boolean,
  at: Schema.Number
})

/** The failed reviews at one cursor key. */
export type FailureRecord = typeof FailureRecord.Type

/** How an agent's latest review ended. */
export const LastReview = Schema.Struct({ at: Schema.Number, ok: Schema.Boolean, reason: Schema.NullOr(Schema.String) })

/** How an agent's latest review ended. */
export type LastReview = typeof LastReview.Type

/** The whole state file. */
export const State = Schema.Struct({
  version: Schema.Literal(1),
  cursors: Schema.Record(Schema.String, Schema.Number),
  failures: Schema.Record(Schema.String, FailureRecord),
  lastReviews: Schema.Record(Schema.String, LastReview)
})

/** The whole state file. */
export type State = typeof State.Type

/** The state of a root nothing has been reviewed in. */
export const empty: State = { version: 1, cursors: {}, failures: {}, lastReviews: {} }

/** The name of the state file, relative to the root. */
export const fileName = "reviewed.json"

/** The warning logged when the state file is damaged (followed by what is wrong and where the file was kept). */
export const damagedWarning = "mneme: the review state file was damaged and starts empty"

const StateJson = Schema.fromJsonString(State)
const decodeState = Schema.decodeUnknownResult(StateJson)
const decodeVersion = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ version: Schema.Number })))
const encodeState = Schema.encodeSync(StateJson)

const lookup = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined

const without = <A>(record: Readonly<Record<string, A>>, key: string): Record<string, A> =>
  Object.fromEntries(Object.entries(record).filter(([k]) => k !== key))

/** Options of the layer: the memory root, and the writer lock's timings. */
export type Options = MemoryRoot.Options

const make = Effect.fnUntraced(function* (options: Options) {
  const { fs, path, context, root, lock } = yield* MemoryRoot.open(options)

  /** The state file's absolute path, checked to stay inside the root; `undefined` while the root does not exist. */
  const locate = orMissing(fs.realPath(root)).pipe(
    Effect.flatMap((realRoot) =>
      realRoot === undefined ? Effect.succeed(undefined) : Paths.resolve(realRoot, fileName)
    ),
    Effect.catchTag("Denied", (denied) => Effect.fail(new MemoryWriteError({ file: fileName, reason: denied.reason }))),
    Effect.catchTag("PlatformError", (error) => Effect.fail(failure(fileName, "find it")(error)))
  )

  /** The state on disk, or the reason it is damaged. */
  const read = Effect.gen(function* () {
    const absolute = yield* locate
    if (absolute === undefined) return { state: empty, absolute }
    const text = yield* orMissing(fs.readFileString(absolute)).pipe(Effect.mapError(failure(fileName, "read it")))
    if (text === undefined) return { state: empty, absolute }
    const decoded = decodeState(text)
    if (decoded._tag === "Success") return { state: decoded.success, absolute }
    const version = Option.getOrUndefined(decodeVersion(text))?.version
    if (version !== undefined && version > 1) {
      return yield* new MemoryWriteError({
        file: fileName,
        reason: `was written by a newer mneme (format version ${version}); upgrade to read it`
      })
    }
    return { state: undefined, absolute, damage: decoded.failure.message }
  })

  /** Inside the lock: the state, after keeping a damaged file aside. */
  const readOrSetAside = Effect.gen(function* () {
    const current = yield* read
    if (current.state !== undefined) return current
    const aside = `${fileName}.damaged-${yield* Clock.currentTimeMillis}`
    yield* fs
      .rename(current.absolute, path.join(path.dirname(current.absolute), aside))
      .pipe(Effect.mapError(failure(fileName, "keep the damaged file aside")))
    yield* Effect.logWarning(`${damagedWarning} (${current.damage}); the damaged file is kept as ${aside}`)
    return { state: empty, absolute: current.absolute }
  })

  const current = read.pipe(
    Effect.flatMap((found) =>
      found.state !== undefined
        ? Effect.succeed(found.state)
        : lock.withLock(readOrSetAside.pipe(Effect.map((s) => s.state)))
    )
  )

  const update = (change: (state: State) => State) =>
    lock.withLock(
      Effect.gen(function* () {
        const found = yield* readOrSetAside
        const next = change(found.state)
        if (next === found.state) return
        const absolute = found.absolute ?? (yield* locate)
        if (absolute === undefined)
          return yield* new MemoryWriteError({ file: fileName, reason: "the memory root is gone" })
        yield* writeAtomic(absolute, fileName, encodeState(next))
      }).pipe(Effect.uninterruptible)
    )

  const run = <A, E>(self: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>) =>
    Effect.provideContext(self, context)

  return Cursors.of({
    cursor: (key) => run(Effect.map(current, (state) => lookup(state.cursors, key))),
    setCursor: (key, seq) =>
      Number.isFinite(seq)
        ? run(
            update((state) => {
              const old = lookup(state.cursors, key)
              return old !== undefined && seq <= old ? state : { ...state, cursors: { ...state.cursors, [key]: seq } }
            })
          )
        : Effect.fail(
            new MemoryWriteError({ file: fileName, reason: `the cursor of ${key} must be a number, not ${seq}` })
          ),
    failure: (key) => run(Effect.map(current, (state) => lookup(state.failures, key))),
    setFailure: (key, record) =>
      run(
        update((state) =>
          record === undefined
            ? lookup(state.failures, key) === undefined
              ? state
              : { ...state, failures: without(state.failures, key) }
            : { ...state, failures: { ...state.failures, [key]: record } }
        )
      ),
    lastReview: (agentId) => run(Effect.map(current, (state) => lookup(state.lastReviews, agentId) ?? null)),
    setLastReview: (agentId, review) =>
      run(update((state) => ({ ...state, lastReviews: { ...state.lastReviews, [agentId]: review } })))
  })
})

/** The review state: cursors, failure records and last reviews, persisted in the memory root. */
export class Cursors extends Context.Service<
  Cursors,
  {
    /** The cursor of `key`: the `seq` of the last line the review has dealt with; `undefined` before any review. */
    readonly cursor: (key: string) => Effect.Effect<number | undefined, MemoryWriteError>
    /** Moves the cursor of `key` forward to `seq`; a smaller or equal `seq` is ignored. */
    readonly setCursor: (key: string, seq: number) => Effect.Effect<void, MemoryWriteError>
    /** The failure record of `key`, if any. */
    readonly failure: (key: string) => Effect.Effect<FailureRecord | undefined, MemoryWriteError>
    /** Sets the failure record of `key`, or clears it with `undefined`. */
    readonly setFailure: (key: string, record: FailureRecord | undefined) => Effect.Effect<void, MemoryWriteError>
    /** How the agent's latest review ended; `null` before any review. */
    readonly lastReview: (agentId: string) => Effect.Effect<LastReview | null, MemoryWriteError>
    /** Records how the agent's latest review ended. */
    readonly setLastReview: (agentId: string, review: LastReview) => Effect.Effect<void, MemoryWriteError>
  }
>()("@mneme/review/Cursors") {
  /** The review state of the memory root `options.root`, over Effect's `FileSystem` and `Path`. */
  static readonly layer = (options: Options): Layer.Layer<Cursors, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(Cursors, make(options))
}

/** The review state of the memory root `options.root`, over Effect's `FileSystem` and `Path`. */
export const layer = Cursors.layer
