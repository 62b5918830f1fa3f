/**
 * The files backend of the storage port `MemoryRoot`: a memory root as a folder (docs/spec.md 1), written through Effect's
 * `FileSystem` and `Path`, with the `Platform` for the lock's owner (this process and host, whether a holder is alive),
 * and `RootFiles` for the stats, reads and listings of the small files and folders it reads (at once, on Node, and
 * never through a link); `NodePlatform.layer` provides both.
 *
 * One writer per root: a semaphore in the process and a lock file across processes (`<root>/.lock`), shared by every
 * service over the layer. A busy lock is waited for up to `lock.wait` (10 s by default) and then fails with `Busy`,
 * naming its holder; a lock is taken from its holder only when the holder is provably gone (on this host and no such
 * process, or its lease of `lock.lease`, 5 s by default, not renewed). Writes are atomic (a flushed temporary file
 * renamed into place) and journaled in `journal.jsonl`; a change that cannot be journaled is not made. Parsed files
 * are kept while a stat says they are unchanged. No file is read or written through a symbolic link.
 */
import type { Duration, FileSystem, Layer, Path } from "effect"
import { Context, Effect, Layer as L } from "effect"
import * as Impl from "./internal/memoryRoot.ts"
import * as MemoryPending from "./MemoryPending.ts"
import { MemoryRoot } from "./MemoryRoot.ts"
import type { Platform } from "./Platform.ts"
import type { RootFiles } from "./RootFiles.ts"

/** The writer lock's timings. */
export interface LockOptions {
  /** How long a writer waits for a busy lock before it fails with `Busy` (default 10 seconds). */
  readonly wait?: Duration.Input | undefined
  /** How long a holder's lock stands without being renewed (default 5 seconds; a holder renews it thrice a lease). */
  readonly lease?: Duration.Input | undefined
}

/** The memory root folder, and the writer lock's timings. */
export interface Options {
  readonly root: string
  readonly lock?: LockOptions | undefined
}

/**
 * The storage port over the folder `options.root` (made when first written), and beside it the entries waiting for a
 * person (`MemoryPending`), kept in the scopes' folders.
 */
export const layer = (
  options: Options
): Layer.Layer<
  MemoryRoot | MemoryPending.MemoryPending,
  never,
  FileSystem.FileSystem | Path.Path | Platform | RootFiles
> =>
  L.effectContext(
    Effect.gen(function* () {
      const root = yield* Impl.make(options)
      const pending = yield* MemoryPending.make(root)
      return Context.make(MemoryRoot, root).pipe(Context.add(MemoryPending.MemoryPending, pending))
    })
  )
