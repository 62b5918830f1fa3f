/**
 * Settling the journal's last change after its writer was stopped (docs/spec.md 3: the journal names every change the files
 * hold, and no other).
 *
 * A change appends its journal lines, flushed, before it renames its files into place, so a writer killed between the
 * two leaves lines for a change the files do not hold (or, between two renames, hold only in part). Only the last
 * change can be so, and only when its writer was stopped: the next writer, taking the lock from a holder that was
 * gone, checks each line of the last change against its file (the line it added or put in place is there, the line it
 * removed is gone, the folder it archived has moved) and drops the lines whose change is not there, with a warning. A
 * reader that finds the lock taken shows the last change's lines only where the files hold them, as it may be half
 * made.
 */
import { MemoryFile } from "@mneme/core"
import { Effect, FileSystem, type Path, Result } from "effect"
import * as MemoryPending from "../MemoryPending.ts"
import type { JournalLine } from "../MemoryRoot.ts"
import type { RootFiles } from "../RootFiles.ts"
import { decodeText, encodeText, orMissing, writeFailed } from "./files.ts"
import * as Journal from "./journal.ts"
import * as Paths from "./paths.ts"

/** The warning given when the lines of a change that was not made are dropped. */
export const droppedWarning = `mneme: the last change in ${Journal.journalName} was not made (its writer was stopped before it replaced the files); its lines are dropped`

/** How the files of the root are looked at: its real path, how paths are resolved in it, and how a file is read. */
export interface Files {
  readonly real: string
  readonly looker: Paths.Looker
  readonly readFile: RootFiles["Service"]["readFile"]
}

/** The lines of a file's text, `undefined` when it is not there; `null` when it cannot be looked at. */
const linesOf = (files: Files, file: string) =>
  Effect.gen(function* () {
    const { absolute, info } = yield* Paths.resolve(files.looker, files.real, file)
    if (info === undefined) return undefined
    const bytes = yield* files.readFile(absolute)
    if (bytes === undefined) return undefined
    return MemoryFile.parse(yield* decodeText(bytes, file)).lines
  }).pipe(Effect.catch(() => Effect.succeed(null)))

/**
 * The texts of the entries a `pending.json` holds, `undefined` when it is not there; `null` when it cannot be looked
 * at or read as a list of entries.
 */
const pendingTextsOf = (files: Files, file: string) =>
  Effect.gen(function* () {
    const { absolute, info } = yield* Paths.resolve(files.looker, files.real, file)
    if (info === undefined) return undefined
    const bytes = yield* files.readFile(absolute)
    if (bytes === undefined) return undefined
    return MemoryPending.textsOf(yield* decodeText(bytes, file)) ?? null
  }).pipe(Effect.catch(() => Effect.succeed(null)))

/**
 * Whether the files hold what `line` says its change did; a line whose file cannot be looked at is trusted (it is not
 * dropped on a doubt).
 */
const holds = (files: Files, line: JournalLine): Effect.Effect<boolean, never, Path.Path> => {
  if (line.op === "archive") {
    const to = line.after
    if (to === undefined) return Effect.succeed(true)
    return Paths.resolve(files.looker, files.real, to).pipe(
      Effect.map(({ info }) => info !== undefined),
      Effect.catch(() => Effect.succeed(true))
    )
  }
  if (line.op === "hold" || line.op === "approve" || line.op === "reject") {
    return Effect.map(pendingTextsOf(files, line.file), (texts) => {
      if (texts === null) return true
      if (line.after !== undefined) return texts !== undefined && texts.includes(line.after)
      return line.before === undefined || texts === undefined || !texts.includes(line.before)
    })
  }
  return Effect.map(linesOf(files, line.file), (lines) => {
    if (lines === null) return true
    if (line.after !== undefined) return lines !== undefined && lines.includes(line.after)
    if (line.before !== undefined) return lines === undefined || !lines.includes(line.before)
    return true
  })
}

/** The last change of the journal's text and, of its lines, those the files hold. */
const judge = (files: Files, text: string) =>
  Effect.gen(function* () {
    const last = Journal.lastChange(text)
    if (last === undefined) return undefined
    const held = yield* Effect.forEach(last.lines, (line) => holds(files, line), { concurrency: "unbounded" })
    return { last, kept: last.lines.filter((_, i) => held[i]) }
  })

/** The journal's lines as a reader shows them while the lock is taken: the last change's only where the files hold them. */
export const shown = (files: Files, text: string, lines: ReadonlyArray<JournalLine>) =>
  Effect.map(judge(files, text), (judged) => {
    if (judged === undefined || judged.kept.length === judged.last.lines.length) return lines
    // The last change's lines are the last of `lines` (both are the journal's records, oldest first).
    return [...lines.slice(0, lines.length - judged.last.lines.length), ...judged.kept]
  })

/**
 * Under the lock taken from a holder that was gone: drops the lines of the journal's last change that the files do not
 * hold (the journal is cut where that change begins and the lines kept are appended again, flushed).
 */
export const settle = Effect.fnUntraced(function* (files: Files) {
  const fs = yield* FileSystem.FileSystem
  const journal = yield* Paths.resolve(files.looker, files.real, Journal.journalName)
  if (journal.info?.type !== "File") return
  const text = yield* orMissing(fs.readFileString(journal.absolute)).pipe(
    Effect.mapError(writeFailed(Journal.journalName))
  )
  if (text === undefined) return
  const judged = yield* judge(files, text)
  if (judged === undefined || judged.kept.length === judged.last.lines.length) return
  const start = encodeText(text.slice(0, judged.last.start)).length
  const kept = judged.kept.length === 0 ? "" : yield* Journal.encode(judged.kept)
  yield* Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* fs.open(journal.absolute, { flag: "a" })
      yield* handle.truncate(start)
      if (kept !== "") yield* handle.writeAll(encodeText(kept))
      yield* handle.sync
    })
  ).pipe(Effect.mapError(writeFailed(Journal.journalName)))
  yield* Effect.logWarning(droppedWarning)
})

/** Whether the root's lock (`lock`, absolute) is taken now, by a writer at work or by one that was stopped. */
export const lockTaken = (files: Files, lock: string) =>
  Effect.map(files.looker.lstatAll([lock]), ([stat]) =>
    stat === undefined ? false : Result.isFailure(stat) || stat.success !== undefined
  )
