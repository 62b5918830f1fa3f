/**
 * The journal of a memory root as a reader sees it (`MemoryRoot.journal`): its lines, oldest first, with a warning for
 * each it could not read; while the lock is taken, the last change's lines only where the files hold them (it may be
 * half made, `journalSettle.ts`); those of one scope (an agent's folder of the earlier naming read as its own); the
 * last `limit`.
 */
import type { MemoryScope, StorageError } from "@mneme/core"
import { Effect, type FileSystem, Path } from "effect"
import type { JournalLine } from "../MemoryRoot.ts"
import { orMissing, readFailed } from "./files.ts"
import * as Journal from "./journal.ts"
import * as JournalSettle from "./journalSettle.ts"
import * as Paths from "./paths.ts"
import * as RootLock from "./rootLock.ts"

/** Which lines to give: the last `limit`, of one scope when given. */
export interface Options {
  readonly limit?: number | undefined
  readonly scope?: MemoryScope.MemoryScope | undefined
}

/** The lines of `scope` among `lines`, an agent's folder of the earlier naming read as its own. */
const ofScope = (hash: Paths.Hash, scope: MemoryScope.MemoryScope, lines: ReadonlyArray<JournalLine>) => {
  const dir = Paths.scopeDir(hash, scope)
  const earlier = scope.kind === "agent" ? Paths.legacyAgentDir(hash, scope.agentId) : undefined
  const legacy = earlier === undefined ? undefined : `agents/${earlier}`
  return lines.flatMap((line) =>
    line.scope === dir
      ? [line]
      : line.scope === legacy
        ? [{ ...line, scope: dir, file: dir + line.file.slice(legacy.length) }]
        : []
  )
}

/** The journal's lines in the root whose real path is `files.real`, as `options` asks. */
export const read = Effect.fnUntraced(function* (
  files: JournalSettle.Files,
  hash: Paths.Hash,
  options: Options | undefined
): Effect.fn.Return<ReadonlyArray<JournalLine>, StorageError, FileSystem.FileSystem | Path.Path> {
  const { absolute, info } = yield* Paths.resolve(files.looker, files.real, Journal.journalName)
  if (info === undefined) return []
  const text =
    (yield* orMissing(files.looker.fs.readFileString(absolute)).pipe(
      Effect.mapError(readFailed(Journal.journalName))
    )) ?? ""
  const decoded = Journal.decode(text)
  for (const warning of Journal.warnings(decoded)) yield* Effect.logWarning(warning)
  // While the lock is taken, the last change may be half made: its lines show where the files hold them.
  const path = yield* Path.Path
  const all = (yield* JournalSettle.lockTaken(files, path.join(files.real, RootLock.lockName)))
    ? yield* JournalSettle.shown(files, text, decoded.lines)
    : decoded.lines
  const lines = options?.scope === undefined ? all : ofScope(hash, options.scope, all)
  const limit = options?.limit
  return limit === undefined ? lines : lines.slice(Math.max(0, lines.length - Math.max(0, limit)))
})
