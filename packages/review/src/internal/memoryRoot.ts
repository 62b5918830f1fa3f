/**
 * What a service over a memory root starts from: the root's options, and the file system, the root's absolute path
 * and its writer lock, made once when the service's layer is built.
 */
import { Effect, FileSystem, Path } from "effect"
import * as RootLock from "./rootLock.ts"

/** Options of a layer over a memory root: the root, and the writer lock's timings. */
export interface Options {
  readonly root: string
  readonly lock?: RootLock.Options | undefined
}

/** The file system and paths (with their context, to provide later), the root's absolute path and its writer lock. */
export const open = Effect.fnUntraced(function* (options: Options) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
  const root = path.resolve(options.root)
  const lock = yield* RootLock.make(root, options.lock)
  return { fs, path, context, root, lock }
})
