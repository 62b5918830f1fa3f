/**
 * A memory file past its size read only as far as what is shown of it: read in pieces, each decoded and given to
 * `MemoryFile.headReader` and let go, so neither its bytes, nor its text, nor its lines are ever held whole. Only a file
 * surely past its size is read so: one of more than four bytes a character of its size (UTF-8 spends at most four on
 * one).
 */
import { MemoryFile, NotText, type StorageError } from "@mneme/core"
import { Effect, Result } from "effect"
import { RootFiles } from "../RootFiles.ts"
import { readFailed, storageError } from "./files.ts"

/** Whether a file of `bytes` bytes is surely past a size of `limit` characters. */
export const surelyPast = (bytes: number, limit: number): boolean => bytes > 4 * limit

/**
 * The head of the file `absolute` (`file` relative to the root) within `budget` characters of entries, `undefined`
 * when it is gone, or `NotText` when it is not UTF-8.
 */
export const read = Effect.fnUntraced(function* (absolute: string, file: string, budget: number) {
  const reads = yield* RootFiles
  const decoder = new TextDecoder("utf-8", { fatal: true })
  const reader = MemoryFile.headReader(budget)
  const decode = (bytes?: Uint8Array) =>
    Result.try(() => (bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true })))
  let text = true
  const found = yield* reads
    .readPieces(absolute, (bytes) => {
      const decoded = decode(bytes)
      if (Result.isSuccess(decoded)) reader.push(decoded.success)
      else text = false
      return text
    })
    .pipe(Effect.mapError(readFailed(file)))
  if (!found) return undefined
  const last = text ? decode() : undefined
  if (last === undefined || Result.isFailure(last))
    return yield* Effect.fail<StorageError>(storageError(new NotText({ file })))
  reader.push(last.success)
  return reader.end()
})
