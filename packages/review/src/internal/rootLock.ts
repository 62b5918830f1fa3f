/**
 * One writer per memory root: a semaphore inside the process, and a lock file across processes (`<root>/.lock`,
 * created exclusively, holding `{version, pid, host, since, token}`).
 *
 * A lock is taken from its holder only when the holder is provably gone: it runs on this host and no process of its
 * id is alive, or it has not renewed its lease for `lease` (a holder touches the lock's time every third of the lease
 * while it holds it; a waiter sees whether the lock changes, so no two hosts' clocks are compared). A lock with no
 * owner in it (left by an earlier release, which created the lock first and filled it after) is taken once it has
 * stayed so for a second.
 * Anything else is waited for, up to `wait`, and then the writer fails with `Busy`, naming who holds the lock and
 * since when. A root where the lock cannot be made fails at once (`RootUnusable`, `NotAFolder`). A stale lock is moved
 * aside (`.lock.<pid>@<host>.<token>.stale`, named by who moved it) before it is removed, so two writers cannot both
 * take it away.
 *
 * A lock is made whole in one step: its owner is written to a temporary file that is then linked into place, so no
 * lock is ever empty. A holder knows its lock by what a stat of it gave when it last wrote it (its inode, size and
 * change time), so seeing that the lock is still its own costs a stat, taken at once (`RootFiles`'); where the stat
 * differs (or gives no inode), the lock's token is read to tell. A hold says whether it took the lock from a holder
 * that was gone, which may have been stopped in the middle of a change.
 */
import { Busy, type LockHolder, NotAFolder, RootUnusable, type StorageError } from "@mneme/core"
import { Clock, Duration, Effect, Fiber, FileSystem, Option, Path, Random, Schema, Semaphore } from "effect"
import type { Platform } from "../Platform.ts"
import type { RootFiles, Stat } from "../RootFiles.ts"
import { describe, encodeText, leftoverSuffix, orMissing, type Owner, storageError } from "./files.ts"

/** How long a writer waits for a busy lock, and the lease a holder renews. */
export interface Options {
  readonly wait?: Duration.Input | undefined
  readonly lease?: Duration.Input | undefined
}

/** The lock file, relative to the root. */
export const lockName = ".lock"

const Content = Schema.Struct({
  version: Schema.optionalKey(Schema.Number),
  pid: Schema.Number,
  host: Schema.String,
  /** When it was taken, epoch ms (`time` in the first release's locks). */
  since: Schema.optionalKey(Schema.Number),
  time: Schema.optionalKey(Schema.Number),
  token: Schema.String
})
const decodeContent = Schema.decodeUnknownOption(Schema.fromJsonString(Content))

/** A kind of file, for people: "a folder", "a symbolic link". */
const kindOf = (type: FileSystem.File.Type): string =>
  type === "Directory" ? "a folder" : type === "SymbolicLink" ? "a symbolic link" : `a ${type.toLowerCase()}`

/** How long a lock with no owner in it must stay so before it is taken. */
const unfilledGrace = 1_000

/** One hold of the lock. */
export interface Held {
  /** Fails with `Busy` when the lock is no longer this hold's (taken away after the lease ran out). */
  readonly check: Effect.Effect<void, StorageError>
  /**
   * The lock's change time on disk when it was taken, epoch ms (to judge leftovers by the file system's clock): looked
   * up the first time it is asked for, which is rarely (a leftover of another host).
   */
  readonly takenAt: Effect.Effect<number>
  /** Whether the lock was taken from a holder that was gone (stopped, it may have left a change half made). */
  readonly tookOver: boolean
}

/** The writer lock of one root. */
export interface RootLock {
  /** Runs `body` as the only writer of the root; never nest it (it is not re-entrant). */
  readonly hold: <A, E, R>(body: (held: Held) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
  /** The lease a holder renews, ms. */
  readonly lease: number
}

/** The lock of `root` (an absolute path, made when missing). */
export const make = Effect.fnUntraced(function* (
  root: string,
  platform: Platform["Service"],
  reads: RootFiles["Service"],
  options: Options = {}
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const semaphore = yield* Semaphore.make(1)
  const wait = Duration.toMillis(Duration.fromInputUnsafe(options.wait ?? "10 seconds"))
  const lease = Duration.toMillis(Duration.fromInputUnsafe(options.lease ?? "5 seconds"))
  const lockFile = path.join(root, lockName)
  const self: Owner = { pid: platform.processId, host: platform.hostName }

  const unusable = (detail: string) => storageError(new RootUnusable({ root, detail }))

  /**
   * `dir`, made when missing, one folder at a time from the nearest that exists (a recursive make loops for ever
   * where a folder cannot be made in an existing one, as in `/proc`); a path that is not a folder, or a folder that
   * cannot be made, fails at once.
   */
  const isFolder = (dir: string) =>
    Effect.map(Effect.option(fs.stat(dir)), (info) => Option.isSome(info) && info.value.type === "Directory")
  const makeFolder = (dir: string): Effect.Effect<void, StorageError> =>
    Effect.flatMap(Effect.option(fs.stat(dir)), (info) => {
      if (Option.isSome(info)) {
        return info.value.type === "Directory" ? Effect.void : Effect.fail(storageError(new NotAFolder({ path: dir })))
      }
      const parent = path.dirname(dir)
      if (parent === dir) return Effect.fail(unusable(`its folder cannot be made: ${dir} does not exist`))
      return makeFolder(parent).pipe(
        Effect.andThen(fs.makeDirectory(dir)),
        // Made meanwhile by another writer; anything else there (a dangling link) is not a folder.
        Effect.catchReason("PlatformError", "AlreadyExists", () =>
          Effect.flatMap(isFolder(dir), (folder) =>
            folder ? Effect.void : Effect.fail(storageError(new NotAFolder({ path: dir })))
          )
        ),
        Effect.catchTag("PlatformError", (error) =>
          Effect.fail(unusable(`its folder cannot be made: ${describe(error)}`))
        )
      )
    })

  /** The root, made when missing; a folder above it that is not one is named beside the root it blocks. */
  const ensureRoot = makeFolder(root).pipe(
    Effect.mapError((error) =>
      error.reason._tag === "NotAFolder" && error.reason.path !== root
        ? unusable(`its folder cannot be made: ${error.reason.path} is not a folder`)
        : error
    )
  )

  /**
   * Creates the lock with its owner in it, in one step (and the root, when it is missing): the content is written to a
   * temporary file beside it (`.lock.<pid>@<host>.<token>.tmp`), which is linked into place (a link fails where there is
   * a lock already, as an exclusive create does) and then removed; `false` when there already is a lock. A writer
   * killed on the way leaves no lock or a whole one (and, at worst, its temporary file, which is removed as any
   * abandoned leftover is), never an empty one.
   */
  const create = (token: string, since: number) => {
    const content = JSON.stringify({ version: 1, pid: self.pid, host: self.host, since, token })
    const temporary = `${lockFile}${leftoverSuffix(self, token, "tmp")}`
    const made = fs.writeFile(temporary, encodeText(content)).pipe(
      Effect.andThen(
        fs.link(temporary, lockFile).pipe(
          Effect.as(true),
          Effect.catchReason("PlatformError", "AlreadyExists", () => Effect.succeed(false)),
          Effect.ensuring(Effect.ignore(fs.remove(temporary, { force: true })))
        )
      )
    )
    // A root that is missing is made; one that is not a folder says so.
    return made.pipe(
      Effect.catchTag("PlatformError", (error) =>
        error.reason._tag === "NotFound"
          ? Effect.andThen(ensureRoot, made)
          : error.reason._tag === "BadResource"
            ? Effect.andThen(ensureRoot, Effect.fail(error))
            : Effect.fail(error)
      ),
      Effect.mapError((error) =>
        error._tag === "StorageError" ? error : unusable(`its lock ${lockFile} cannot be made: ${describe(error)}`)
      )
    )
  }

  /** The lock's stat now (`undefined` when it is gone or cannot be looked at). */
  const statNow = Effect.map(reads.lstatAll([lockFile]), ([stat]) =>
    stat !== undefined && stat._tag === "Success" ? stat.success : undefined
  )

  const sameStat = (a: Stat | undefined, b: Stat | undefined) =>
    a !== undefined &&
    b !== undefined &&
    a.ino !== undefined &&
    a.type === "File" &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtime === b.mtime &&
    a.type === b.type

  /**
   * A hold's own lock: its token, the lock's stat when this hold last wrote it (`undefined` until it is known), and
   * whether it was taken from a holder that was gone.
   */
  interface Mine {
    readonly token: string
    stat: Stat | undefined
    tookOver: boolean
  }

  /** The lock as a waiter sees it: its owner (if it holds one) and a snapshot that changes when the lock does. */
  const look = Effect.gen(function* () {
    const info = yield* orMissing(fs.lstat(lockFile))
    if (info === undefined) return undefined
    if (info.type !== "File") {
      return yield* unusable(`${lockFile} is ${kindOf(info.type)}, not a lock file: remove it`)
    }
    const content = (yield* orMissing(fs.readFileString(lockFile))) ?? ""
    const mtime = Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })
    const owner = Option.getOrUndefined(decodeContent(content))
    const holder: LockHolder | undefined =
      owner === undefined ? undefined : { pid: owner.pid, host: owner.host, since: owner.since ?? owner.time ?? 0 }
    return { content, snapshot: `${mtime} ${info.size} ${Option.getOrUndefined(info.ino)} ${content}`, holder }
  }).pipe(Effect.mapError((error) => (error._tag === "StorageError" ? error : unusable(describe(error)))))

  /**
   * Moves the lock aside, checks that what was moved is the lock judged stale (a lock taken meanwhile is put back),
   * and removes it; says whether the stale lock was removed.
   */
  const takeAway = Effect.fnUntraced(function* (snapshot: string, who: string, token: string) {
    const aside = `${lockFile}${leftoverSuffix(self, token, "stale")}`
    const moved = yield* orMissing(Effect.as(fs.rename(lockFile, aside), true))
    if (moved === undefined) return false
    const info = yield* orMissing(fs.lstat(aside))
    const content = (yield* orMissing(fs.readFileString(aside))) ?? ""
    const mtime = info === undefined ? 0 : Option.match(info.mtime, { onNone: () => 0, onSome: (d) => d.getTime() })
    const same =
      info !== undefined && `${mtime} ${info.size} ${Option.getOrUndefined(info.ino)} ${content}` === snapshot
    if (same) yield* Effect.logWarning(`mneme: removed a stale lock of the memory root ${root}: ${who}`)
    else yield* Effect.ignore(fs.link(aside, lockFile))
    yield* Effect.ignore(fs.remove(aside, { force: true }))
    return same
  })

  /** Takes the lock for `mine`, waiting while its holder may be alive, up to `wait`. */
  const acquire = Effect.fnUntraced(function* (mine: Mine) {
    const start = yield* Clock.currentTimeMillis
    let seen: { readonly snapshot: string; readonly since: number } | undefined
    let pause = 2
    while (true) {
      const now = yield* Clock.currentTimeMillis
      const made = yield* Effect.uninterruptible(
        Effect.flatMap(create(mine.token, now), (made) =>
          made
            ? Effect.map(statNow, (stat) => {
                mine.stat = stat
                return true
              })
            : Effect.succeed(false)
        )
      )
      if (made) return
      const lock = yield* look
      if (lock === undefined) continue
      if (seen?.snapshot !== lock.snapshot) seen = { snapshot: lock.snapshot, since: now }
      const unchanged = now - seen.since
      const holder = lock.holder
      const gone =
        holder === undefined
          ? unchanged >= unfilledGrace
          : unchanged >= lease || (holder.host === self.host && !(yield* platform.isAlive(holder.pid)))
      if (gone) {
        const who = holder === undefined ? "(no owner in it)" : lock.content
        if (yield* takeAway(lock.snapshot, who, mine.token).pipe(Effect.catch(() => Effect.succeed(false)))) {
          mine.tookOver = true
        }
        seen = undefined
        continue
      }
      const waited = now - start
      if (waited >= wait) {
        return yield* storageError(
          new Busy(holder === undefined ? { lock: lockFile, waited } : { lock: lockFile, holder, waited })
        )
      }
      yield* Effect.sleep(Math.min(pause, wait - waited) + (yield* Random.nextIntBetween(0, pause)))
      pause = Math.min(pause * 2, 100)
    }
  })

  /** The lock's token now, if it holds one. */
  const tokenNow = orMissing(fs.readFileString(lockFile)).pipe(
    Effect.map((content) => (content === undefined ? undefined : Option.getOrUndefined(decodeContent(content))?.token))
  )

  /**
   * Whether the lock is still `mine`: its stat unchanged since this hold wrote it, or else its token read.
   * A stat that has changed while the token is still this hold's (a renewal meanwhile) is taken as the lock's stat from
   * now on.
   */
  const isMine = (mine: Mine) =>
    Effect.flatMap(statNow, (stat) =>
      sameStat(stat, mine.stat)
        ? Effect.succeed(true)
        : Effect.map(tokenNow, (now) => {
            if (now !== mine.token) return false
            mine.stat = stat
            return true
          })
    )

  /**
   * Removes the lock if it is still `mine`; `held` says whether it should be (else it is quiet).
   */
  const release = (mine: Mine, held: boolean) =>
    isMine(mine).pipe(
      Effect.flatMap((ours) =>
        ours
          ? fs.remove(lockFile)
          : held
            ? Effect.logWarning(`mneme: the lock of the memory root ${root} was taken away while held`)
            : Effect.void
      ),
      Effect.catch((error) => Effect.logWarning(`mneme: could not release the lock of ${root}: ${error.message}`))
    )

  /** Touches the lock's time every third of the lease while it is `mine`. */
  const renew = (mine: Mine) =>
    Effect.gen(function* () {
      while (true) {
        yield* Effect.sleep(lease / 3)
        if (!(yield* isMine(mine))) return
        const now = new Date(yield* Clock.currentTimeMillis)
        yield* fs.utimes(lockFile, now, now)
        mine.stat = yield* statNow
      }
    }).pipe(Effect.ignore)

  const heldFor = (mine: Mine): Effect.Effect<Held> =>
    Effect.gen(function* () {
      const takenAt = yield* Effect.cached(
        Effect.map(Effect.option(fs.lstat(lockFile)), (info) =>
          Option.match(
            Option.flatMap(info, (info) => info.mtime),
            { onNone: () => 0, onSome: (date) => date.getTime() }
          )
        )
      )
      const check = isMine(mine).pipe(
        Effect.catch(() => Effect.succeed(false)),
        Effect.flatMap((ours) =>
          ours
            ? Effect.void
            : Effect.flatMap(
                Effect.catch(look, () => Effect.succeed(undefined)),
                (lock) =>
                  Effect.fail(
                    storageError(
                      new Busy(
                        lock?.holder === undefined
                          ? { lock: lockFile, waited: 0 }
                          : { lock: lockFile, holder: lock.holder, waited: 0 }
                      )
                    )
                  )
              )
        )
      )
      return { check, takenAt, tookOver: mine.tookOver }
    })

  /** Waiting for the lock can be interrupted (a lock taken just then is given back); `body` runs as given. */
  const hold = <A, E, R>(body: (held: Held) => Effect.Effect<A, E, R>) =>
    semaphore.withPermit(
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const token = (yield* Random.nextIntBetween(0, 2 ** 48)).toString(36)
          const mine: Mine = { token, stat: undefined, tookOver: false }
          yield* restore(acquire(mine)).pipe(Effect.onInterrupt(() => release(mine, false)))
          const renewing = yield* Effect.forkChild(renew(mine))
          const held = yield* heldFor(mine)
          return yield* restore(body(held)).pipe(
            Effect.ensuring(Effect.andThen(Fiber.interrupt(renewing), release(mine, true)))
          )
        })
      )
    )

  return { hold, lease } satisfies RootLock
})
