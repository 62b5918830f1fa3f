/**
 * What the Postgres backend's modules share: its errors in Postgres's words, where a file a commit writes lives, and the
 * journal's rows as lines.
 */
import { ReadFailed, StorageError, type StorageReason, WriteFailed } from "@mneme/core"
import { MemoryRoot, RootLayout } from "@mneme/review"
import { Option, Schema } from "effect"
import type { SqlError } from "effect/sql"

/** A storage error of `reason`. */
export const storageError = (reason: StorageReason) => new StorageError({ reason })

/** What Postgres said, in words: the server's message where there is one. */
export const describe = (error: SqlError.SqlError): string => {
  const cause: unknown = "cause" in error.reason ? error.reason.cause : undefined
  return cause instanceof Error && cause.message !== "" ? cause.message : error.message
}

/** A failed read of `file`, in Postgres's words. */
export const readFailed = (file: string) => (error: SqlError.SqlError) =>
  storageError(new ReadFailed({ file, detail: describe(error) }))

/** A failed write of `file`, in Postgres's words. */
export const writeFailed = (file: string) => (error: SqlError.SqlError) =>
  storageError(new WriteFailed({ file, detail: describe(error) }))

/** The parts of a file a commit writes: its scope's folder and its topic (`''` for MEMORY.md); `undefined` if none. */
export const partsOf = (file: string): { readonly dir: string; readonly topic: string } | undefined => {
  const slash = file.lastIndexOf("/")
  const dir = file.slice(0, slash)
  const topic = slash === -1 ? null : RootLayout.topicOfName(file.slice(slash + 1))
  const inScope = dir === "team" || (dir.startsWith("agents/") && dir.indexOf("/", "agents/".length) === -1)
  return topic === null || !inScope || dir === "agents/" ? undefined : { dir, topic: topic ?? "" }
}

/** A journal row as selected. */
export interface JournalRow {
  readonly version: number
  readonly id: string | null
  readonly time: number
  readonly op: string
  readonly scope: string
  readonly file: string
  readonly actor: string
  readonly auto: boolean | null
  readonly before: string | null
  readonly after: string | null
  readonly undoes: string | null
  readonly entries: number | null
  readonly purged: boolean | null
}

/** A journal line, if the value is one. */
export const decodeLine = Schema.decodeUnknownOption(MemoryRoot.JournalLine)

/** The agent id an `agent` column holds (a JSON string), or `undefined` when it holds none. */
export const agentOfColumn = (column: string): string | undefined =>
  Option.getOrUndefined(Schema.decodeUnknownOption(Schema.fromJsonString(Schema.String))(column))

/** A journal row as its line (its empty columns left out), if it is one. */
export const lineOf = (row: JournalRow) =>
  decodeLine(Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null)))
