/**
 * `mneme export DIR`: the memory of `--memory` (a folder or a Postgres database) written as a memory folder at DIR,
 * which must not exist yet or be empty: every agent's MEMORY.md and topics, team memory, the journal, the review
 * state and the entries waiting for a person, through the storage port.
 */
import { MaskedTaggedError, NotAFolder, StorageError } from "@mneme/core"
import { Console, Effect, FileSystem, Option, Path, Schema } from "effect"
import { Argument, Command } from "effect/cli"
import * as Txt from "../text.ts"
import { memoryLocation, memoryMustExist, output, print, printJson, textArgument, UsageError } from "./common.ts"
import * as CopyMemory from "./copyMemory.ts"
import * as MemoryLocation from "./memoryLocation.ts"

/** The folder to export to holds files already: nothing was written. */
export class FolderNotEmpty extends MaskedTaggedError<FolderNotEmpty>()("FolderNotEmpty", { dir: Schema.String }) {
  override get message() {
    return `${this.dir} is not empty: nothing was exported. Export to a folder that does not exist yet, or is empty`
  }
}

/** Fails unless `dir` is missing or an empty folder. */
const mustBeFree = Effect.fnUntraced(function* (dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const info = yield* fs.stat(dir).pipe(
    Effect.map(Option.some),
    Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(Option.none()))
  )
  if (Option.isNone(info)) return
  if (info.value.type !== "Directory") {
    return yield* new StorageError({ reason: new NotAFolder({ path: path.resolve(dir) }) })
  }
  if ((yield* fs.readDirectory(dir)).length > 0) return yield* new FolderNotEmpty({ dir })
})

/** A summary of what a copy moved, for people. */
export const copiedText = (copied: CopyMemory.Copied) =>
  `${Txt.plural(copied.agents, "agent", "agents")}, ${Txt.plural(copied.files, "file", "files")}, ` +
  `${Txt.plural(copied.journalLines, "journal line", "journal lines")}` +
  (copied.pending === 0
    ? ""
    : `, ${Txt.plural(copied.pending, "entry waiting for a person", "entries waiting for a person")}`) +
  " and the review state"

/** The note on stderr for each agent's folder a copy left out. */
export const leftOutNotes = (copied: CopyMemory.Copied) =>
  Effect.forEach(
    copied.leftOut,
    (dir) => Console.error(`mneme: left out ${dir}: the folder does not record its agent's id`),
    { discard: true }
  )

export const exportMemory = Command.make(
  "export",
  {
    dir: textArgument("dir").pipe(
      Argument.withDescription("The memory folder to write: one that does not exist yet, or is empty")
    )
  },
  Effect.fn("mneme.export")(function* (input) {
    const location = yield* memoryLocation
    yield* memoryMustExist(location)
    const out = yield* output
    if (MemoryLocation.isPostgres(input.dir)) {
      return yield* new UsageError({
        reason:
          "export writes a memory folder, and DIR is a Postgres URL: to copy a folder into Postgres, run " +
          "mneme import DIR --memory postgres://…"
      })
    }
    yield* mustBeFree(input.dir)
    const source = yield* CopyMemory.open(location)
    const target = yield* CopyMemory.open(MemoryLocation.folder(input.dir))
    yield* (yield* FileSystem.FileSystem).makeDirectory(input.dir, { recursive: true })
    const copied = yield* CopyMemory.copy(source, target, "Export to a folder that does not exist yet, or is empty")
    yield* leftOutNotes(copied)
    if (out.json) {
      return yield* printJson({
        from: location.shown,
        to: input.dir,
        agents: copied.agents,
        files: copied.files,
        journalLines: copied.journalLines,
        pending: copied.pending,
        leftOut: copied.leftOut
      })
    }
    yield* print([`Exported the memory in ${location.shown} to ${input.dir}: ${copiedText(copied)}`])
  }, Effect.scoped)
).pipe(
  Command.withDescription(
    "Write the memory of --memory (a folder or a Postgres database) as a memory folder at DIR, a folder that does " +
      "not exist yet or is empty: every agent's memory, team memory, the journal, the review state and the entries " +
      "waiting for a person"
  )
)
