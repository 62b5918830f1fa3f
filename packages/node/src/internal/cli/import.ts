/**
 * `mneme import DIR`: the memory folder at DIR written into the memory of `--memory` (a folder or a Postgres
 * database), which must hold no memory yet: every agent's MEMORY.md and topics, team memory, the journal, the
 * review state and the entries waiting for a person, through the storage port.
 */
import { NotAFolder, NotFound, StorageError } from "@mneme/core"
import { Effect, FileSystem, Option, Path } from "effect"
import { Argument, Command } from "effect/cli"
import { memoryLocation, output, print, printJson, textArgument, UsageError } from "./common.ts"
import * as CopyMemory from "./copyMemory.ts"
import { copiedText, leftOutNotes } from "./export.ts"
import * as MemoryLocation from "./memoryLocation.ts"

/** Fails unless `dir` is a folder. */
const mustBeFolder = Effect.fnUntraced(function* (dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const info = yield* fs.stat(dir).pipe(
    Effect.map(Option.some),
    Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(Option.none()))
  )
  if (Option.isNone(info)) {
    return yield* new StorageError({
      reason: new NotFound({ path: path.resolve(dir), detail: "there is no memory folder there to import" })
    })
  }
  if (info.value.type !== "Directory") {
    return yield* new StorageError({ reason: new NotAFolder({ path: path.resolve(dir) }) })
  }
})

/** What to do when the target holds memory already. */
const instead =
  "Import into a root that holds no memory (a new folder, or a new schema with ?schema=NAME), or export this " +
  "memory first (mneme export DIR) and import into a new root"

export const importMemory = Command.make(
  "import",
  {
    dir: textArgument("dir").pipe(Argument.withDescription("The memory folder to read"))
  },
  Effect.fn("mneme.import")(function* (input) {
    const location = yield* memoryLocation
    const out = yield* output
    if (MemoryLocation.isPostgres(input.dir)) {
      return yield* new UsageError({
        reason:
          "import reads a memory folder, and DIR is a Postgres URL: to copy Postgres into a folder, run " +
          "mneme export DIR --memory postgres://…"
      })
    }
    yield* mustBeFolder(input.dir)
    const source = yield* CopyMemory.open(MemoryLocation.folder(input.dir))
    const target = yield* CopyMemory.open(location)
    const copied = yield* CopyMemory.copy(source, target, instead)
    yield* leftOutNotes(copied)
    if (out.json) {
      return yield* printJson({
        from: input.dir,
        to: location.shown,
        agents: copied.agents,
        files: copied.files,
        journalLines: copied.journalLines,
        pending: copied.pending,
        leftOut: copied.leftOut
      })
    }
    yield* print([`Imported the memory folder ${input.dir} into ${location.shown}: ${copiedText(copied)}`])
  }, Effect.scoped)
).pipe(
  Command.withDescription(
    "Write the memory folder at DIR into the memory of --memory (a folder or a Postgres database), which must hold " +
      "no memory yet: every agent's memory, team memory, the journal, the review state and the entries waiting for " +
      "a person"
  )
)
