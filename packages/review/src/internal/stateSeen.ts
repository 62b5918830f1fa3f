/**
 * The review state's file (`reviewed.json`) as the files backend reads and changes it: kept as last read while its
 * stamp says it is unchanged (a text read again and found the same is not parsed again), decoded whole or only the
 * entries a lookup or a change names, a damaged file kept aside under the lock, and a change refused with `StaleCursor`
 * when a cursor it expects has moved. See `stateFile.ts` for the format.
 */
import { NewerFormat, ReadFailed, type StorageError } from "@mneme/core"
import { Clock, Effect, type FileSystem, type Path, Ref } from "effect"
import { emptyState, type ReviewStateDocument, type StateChange, type StateKeys, staleCursor } from "../MemoryRoot.ts"
import type { RootFiles } from "../RootFiles.ts"
import * as FileCache from "./fileCache.ts"
import { decodeText, readFailed, storageError, writeFailed } from "./files.ts"
import * as Paths from "./paths.ts"
import * as StateFile from "./stateFile.ts"

/** What reading the state file works with: the file system, paths, the backend's reads and how paths are looked at. */
export interface Services {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly reads: RootFiles["Service"]
  readonly looker: Paths.Looker
}

/** A change of the state to write (see `stateChanged`). */
export interface StateWrite {
  readonly text: string
  readonly absolute: string
  readonly old: string | undefined
  readonly next: ReviewStateDocument | undefined
  readonly raw: StateFile.Raw | undefined
}

/**
 * The state file as last read: its stamp, when it was read, its text (`undefined` when it was not UTF-8), and, once
 * asked for, what it held decoded whole (`found`) and its JSON as parsed (`raw`, `null` when it is not a version 2
 * state; a key's entry is decoded from it alone). Trusted as the files are; a text read again and found the same is
 * not parsed again.
 */
interface Seen extends Paths.Stamp {
  readonly readAt: number
  readonly text: string | undefined
  readonly found: StateFile.Read | undefined
  readonly raw: StateFile.Raw | null | undefined
}

/** The state file of one root, as last read by this instance (held in a `Ref` made here). */
export const make = Effect.fnUntraced(function* ({ fs, path, reads, looker }: Services) {
  const seenRef = yield* Ref.make<Seen | undefined>(undefined)

  /** Keeps what was decoded of `seen`'s text with the last read, while that read has the same text. */
  const remember = (seen: Seen, added: Partial<Pick<Seen, "found" | "raw">>) =>
    Ref.update(seenRef, (last) => (last !== undefined && last.text === seen.text ? { ...last, ...added } : last))

  /** What the state file held, decoded whole (once). */
  const foundOf = (seen: Seen): Effect.Effect<StateFile.Read> => {
    if (seen.found !== undefined) return Effect.succeed(seen.found)
    const found: StateFile.Read =
      seen.text === undefined ? { _tag: "Damaged", detail: "it is not UTF-8 text" } : StateFile.decode(seen.text)
    return Effect.as(remember(seen, { found }), found)
  }

  /** The state file's JSON as parsed (once), `null` when it is not a version 2 state. */
  const rawOf = (seen: Seen): Effect.Effect<StateFile.Raw | null> => {
    if (seen.raw !== undefined) return Effect.succeed(seen.raw)
    const raw = seen.text === undefined ? null : (StateFile.parseRaw(seen.text) ?? null)
    return Effect.as(remember(seen, { raw }), raw)
  }

  /**
   * Keeps the state this writer has just written: the file is read again next time (a stamp no file has), and its
   * text, found the same, is not parsed again.
   */
  const stateWritten = ({ text, next, raw }: StateWrite) =>
    Ref.set(seenRef, {
      ...FileCache.noStamp,
      readAt: 0,
      text,
      found: next === undefined ? undefined : { _tag: "State", state: next },
      raw
    })

  /**
   * The state file in the root whose real path is `real`: where it is, and what was read of it (`undefined` where
   * there is none).
   */
  const stateNow = Effect.fnUntraced(function* (real: string) {
    const { absolute, info } = yield* Paths.resolve(looker, real, StateFile.stateName)
    if (info === undefined) return { absolute, seen: undefined }
    if (info.type !== "File") {
      return yield* storageError(new ReadFailed({ file: StateFile.stateName, detail: "it is a folder, not a file" }))
    }
    const stamp = Paths.stampOf(info)
    const last = yield* Ref.get(seenRef)
    if (last !== undefined && FileCache.trusted(last, stamp)) return { absolute, seen: last }
    const readAt = yield* Clock.currentTimeMillis
    const bytes = yield* reads.readFile(absolute).pipe(Effect.mapError(readFailed(StateFile.stateName)))
    if (bytes === undefined) return { absolute, seen: undefined }
    const decoded = yield* Effect.result(decodeText(bytes, StateFile.stateName))
    const text = decoded._tag === "Success" ? decoded.success : undefined
    const same = text !== undefined && last !== undefined && last.text === text
    const seen: Seen = {
      ...stamp,
      readAt,
      text,
      found: same ? last.found : undefined,
      raw: same ? last.raw : undefined
    }
    yield* Ref.set(seenRef, seen)
    return { absolute, seen }
  })

  /** What the state file holds, decoded whole: the state, or why it cannot be used (`undefined` where there is none). */
  const foundNow = Effect.fnUntraced(function* (real: string) {
    const { absolute, seen } = yield* stateNow(real)
    const found = seen === undefined ? undefined : yield* foundOf(seen)
    if (found?._tag === "Newer") {
      return yield* storageError(new NewerFormat({ file: StateFile.stateName, version: found.version }))
    }
    return { absolute, found, text: seen?.text }
  })

  /**
   * Under the lock: the state, after keeping a damaged file aside (with one warning); where the state file is, and its
   * text (`undefined` when there is no file there now).
   */
  const stateHeld = Effect.fnUntraced(function* (real: string) {
    const now = yield* foundNow(real)
    if (now.found === undefined) return { state: emptyState, absolute: now.absolute, text: undefined }
    if (now.found._tag === "State") return { state: now.found.state, absolute: now.absolute, text: now.text }
    const dir = path.dirname(now.absolute)
    const stamp = `${StateFile.stateName}.damaged-${yield* Clock.currentTimeMillis}`
    // A name no earlier damaged file has, so none is ever replaced.
    const free = (n: number): Effect.Effect<string, StorageError> => {
      const name = n === 1 ? stamp : `${stamp}-${n}`
      return fs.exists(path.join(dir, name)).pipe(
        Effect.mapError(writeFailed(StateFile.stateName)),
        Effect.flatMap((taken) => (taken ? free(n + 1) : Effect.succeed(name)))
      )
    }
    const aside = yield* free(1)
    yield* fs.rename(now.absolute, path.join(dir, aside)).pipe(Effect.mapError(writeFailed(StateFile.stateName)))
    const detail = now.found._tag === "Damaged" ? now.found.detail : ""
    yield* Effect.logWarning(`${StateFile.damagedWarning} (${detail}); the damaged file is kept as ${aside}`)
    return { state: emptyState, absolute: now.absolute, text: undefined }
  })

  /**
   * The entries `keys` of the state file, decoded from its parsed JSON alone; `undefined` when that cannot be (the file
   * is not a version 2 state, or one of those entries is damaged): the whole file is then decoded.
   */
  const pickedNow = Effect.fnUntraced(function* (real: string, keys: StateKeys) {
    const { absolute, seen } = yield* stateNow(real)
    const raw = seen === undefined ? StateFile.emptyRaw : yield* rawOf(seen)
    const state = raw === null ? undefined : StateFile.pick(raw, keys)
    return state === undefined || raw === null ? undefined : { absolute, raw, state, text: seen?.text }
  })

  /**
   * Under the lock: what `change` makes of the state, `undefined` when it changes nothing; `StaleCursor` when it
   * expects a cursor the state no longer holds. A change of a few keys decodes and writes back only theirs.
   */
  const stateChanged = Effect.fnUntraced(function* (
    real: string,
    change: StateChange
  ): Effect.fn.Return<StateWrite | undefined, StorageError, FileSystem.FileSystem | Path.Path> {
    const picked = change.keys === undefined ? undefined : yield* pickedNow(real, change.keys)
    const held = picked ?? (yield* stateHeld(real))
    const stale = staleCursor(change, held.state)
    if (stale !== undefined) return yield* storageError(stale)
    const next = change(held.state)
    if (next === held.state) return undefined
    if (picked === undefined) {
      return { next, raw: undefined, text: StateFile.encode(next), absolute: held.absolute, old: held.text }
    }
    const raw = StateFile.merge(picked.raw, picked.state, next)
    return { next: undefined, raw, text: StateFile.encodeRaw(raw), absolute: picked.absolute, old: picked.text }
  })

  return { stateWritten, foundNow, stateHeld, pickedNow, stateChanged }
})
