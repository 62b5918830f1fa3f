/**
 * What planning a change to memory reads and gives: a scope's files as read, the changes, their outcomes and journal
 * records, and the draft several changes are planned on in a row.
 */
import * as Entry from "../Entry.ts"
import { BadTopic, Denied, MemoryFull, NoMatch, type StorageError, TooManyTopics } from "../Errors.ts"
import type { Settings } from "../MemoryConfig.ts"
import * as MemoryFile from "../MemoryFile.ts"
import * as MemoryScope from "../MemoryScope.ts"

// ---------------------------------------------------------------------------------------------------------------------
// What a plan reads

/** One memory file of a scope as read (what the storage port gives as a `StoredFile`). */
export interface File {
  /** The path relative to the root, "/" separated. */
  readonly file: string
  /** The topic, `undefined` for MEMORY.md. */
  readonly topic: string | undefined
  readonly exists: boolean
  readonly parsed: MemoryFile.Parsed
  /** Its size in characters (code points); 0 when missing. */
  readonly size: number
  /**
   * The entries a read `within` sizes left out of a file past its size: `parsed` then holds the file's lines only up to
   * the first of them, and every link. Absent when the file was read whole, as every change reads it.
   */
  readonly omitted?: number | undefined
}

/** A topic file that could not be read, and why. */
export interface Unreadable {
  readonly file: string
  readonly error: StorageError
}

/** A scope's files as read: MEMORY.md first (empty when missing), then its topics by name (a `StoredScope`). */
export interface Files {
  readonly scope: MemoryScope.MemoryScope
  /** The scope's folder relative to the root, as the journal names it. */
  readonly dir: string
  readonly files: ReadonlyArray<File>
  readonly unreadable: ReadonlyArray<Unreadable>
}

// ---------------------------------------------------------------------------------------------------------------------
// The changes

/** Who makes a change: "review", "agent", "person", "cli", a host's name; `auto` when no one asked for it. */
export interface Actor {
  readonly actor: string
  readonly auto?: boolean
}

/** An entry to add. */
export interface AddInput extends Actor {
  readonly scope: MemoryScope.MemoryScope
  readonly topic?: string | undefined
  readonly text: string
  /** Metadata; `added` is filled with today's date when absent. */
  readonly meta?: Entry.Metadata | undefined
}

/** An entry to replace, in its place. */
export interface ReplaceInput extends Actor {
  readonly scope: MemoryScope.MemoryScope
  readonly topic?: string | undefined
  /** What names the entry: docs/spec.md 3's match, or with `exact` only the entry whose cleaned text is exactly this. */
  readonly match: string
  readonly exact?: boolean | undefined
  readonly text: string
  /** Metadata; the old entry's when absent, `added` filled when missing. */
  readonly meta?: Entry.Metadata | undefined
}

/** An entry to remove; a topic left with nothing but headings and blank lines is deleted with its index link. */
export interface RemoveInput extends Actor {
  readonly scope: MemoryScope.MemoryScope
  readonly topic?: string | undefined
  /** What names the entry: docs/spec.md 3's match, or with `exact` only the entry whose cleaned text is exactly this. */
  readonly match: string
  readonly exact?: boolean | undefined
}

/** One change. */
export type Change =
  | ({ readonly op: "add" } & AddInput)
  | ({ readonly op: "replace" } & ReplaceInput)
  | ({ readonly op: "remove" } & RemoveInput)

/** Why one change cannot be made (the store goes on with the others of a batch). */
export type ChangeError = MemoryFull | TooManyTopics | NoMatch | Denied | BadTopic

/** What a change did, with a message a tool can hand an agent. */
export interface Outcome {
  readonly op: "add" | "replace" | "remove"
  readonly changed: boolean
  readonly scope: MemoryScope.MemoryScope
  readonly topic: string | undefined
  readonly file: string
  readonly message: string
  /** The line as it was (replace, remove). */
  readonly before?: string
  /** The line as written (add, replace). */
  readonly after?: string
}

/** What a plan journals for one file a change changed (a `MemoryRoot.JournalRecord`). */
export interface EditRecord extends Actor {
  readonly op: "add" | "replace" | "remove" | "undo"
  /** The scope's folder. */
  readonly scope: string
  readonly file: string
  readonly before?: string
  readonly after?: string
  /** For an undo: the id of the journal line it reverts. */
  readonly undoes?: string
}

/** A file a plan writes: its new text, or `undefined` to delete it (a `MemoryRoot.FileWrite`). */
export interface Write {
  readonly file: string
  readonly content: string | undefined
  /** The new text as parsed, which the plan has made anyway (a backend keeps it for the next read). */
  readonly parsed?: MemoryFile.Parsed | undefined
}

/** The entries of a parsed file by the key the same fact is found by (`Text.sameKey`), the first of each. */
export type SameKeys = (parsed: MemoryFile.Parsed) => ReadonlyMap<string, MemoryFile.Entry>

/** What a plan needs besides the files: the limits and the entry check, and today's date (`YYYY-MM-DD`). */
export interface EditSettings {
  readonly settings: Pick<Settings, "entryMax" | "memoryMax" | "topicMax" | "topicsMax" | "isSecret">
  readonly today: string
  /**
   * The entries of each file by their key, remembered by whoever plans many changes (a store, with `sameKeys()`), so
   * the same fact is looked up, not searched for, in files that have not changed; without it each file is read through.
   */
  readonly sameKeys?: SameKeys | undefined
}

/** Changes planned so far: the scopes as they leave them, each file they change once with its text, their records. */
export interface Draft {
  /** The scopes as read, before any change. */
  readonly read: ReadonlyArray<Files>
  /** The scopes as the changes so far leave them. */
  readonly scopes: ReadonlyArray<Files>
  /** Each file changed so far, once, in the order first changed, with its text now. */
  readonly writes: ReadonlyArray<Write>
  /** The journal records of the changes so far, in order. */
  readonly journal: ReadonlyArray<EditRecord>
}

/** A change planned: the draft with it, and what it did. */
export interface Planned {
  readonly draft: Draft
  readonly outcome: Outcome
}

/** A draft with nothing planned yet, over the scopes as read. */
export const start = (scopes: ReadonlyArray<Files>): Draft => ({ read: scopes, scopes, writes: [], journal: [] })
