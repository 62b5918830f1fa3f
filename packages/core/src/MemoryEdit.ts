/**
 * The rules of changing memory (docs/spec.md 2–3), as pure planning over a scope's files as read: where an entry goes, the
 * same fact anywhere in the scope, topic creation within the topic limit and its index link, an emptied topic deleted
 * with its link, the size limits, the entry's problem, topic names, the `added` date, and undoing a journaled change.
 * A plan gives the new file texts (each file once), the journal records (one per file changed per change) and the
 * outcome with its message, or a typed error. Several changes planned in a row see what the earlier ones left, so a
 * batch is planned against the files read once. Nothing here reads or writes a file: the store does, through its
 * storage port.
 */
import { Result } from "effect"
import * as Entry from "./Entry.ts"
import {
  BadTopic,
  Denied,
  EmptyEntry,
  MemoryFull,
  NoMatch,
  NotFound,
  NotUndoable,
  SecretEntry,
  type StorageError,
  StorageError as StorageErrorClass,
  TooLong,
  TooManyTopics
} from "./Errors.ts"
import * as Match from "./Match.ts"
import type { Settings } from "./MemoryConfig.ts"
import * as MemoryFile from "./MemoryFile.ts"
import * as Scope from "./Scope.ts"
import * as Text from "./Text.ts"
import * as Topic from "./Topic.ts"
import * as Vet from "./Vet.ts"

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
  readonly scope: Scope.Scope
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
  readonly scope: Scope.Scope
  readonly topic?: string | undefined
  readonly text: string
  /** Metadata; `added` is filled with today's date when absent. */
  readonly meta?: Entry.Metadata | undefined
}

/** An entry to replace, in its place. */
export interface ReplaceInput extends Actor {
  readonly scope: Scope.Scope
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
  readonly scope: Scope.Scope
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
  readonly scope: Scope.Scope
  readonly topic: string | undefined
  readonly file: string
  readonly message: string
  /** The line as it was (replace, remove). */
  readonly before?: string
  /** The line as written (add, replace). */
  readonly after?: string
}

/** What a plan journals for one file a change changed (a `MemoryRoot.JournalRecord`). */
export interface Record extends Actor {
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

/** What a plan needs besides the files: the limits and the entry check, and today's date (`YYYY-MM-DD`). */
export interface Context {
  readonly settings: Pick<Settings, "entryMax" | "memoryMax" | "topicMax" | "topicsMax" | "isSecret">
  readonly today: string
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
  readonly journal: ReadonlyArray<Record>
}

/** A change planned: the draft with it, and what it did. */
export interface Planned {
  readonly draft: Draft
  readonly outcome: Outcome
}

/** A draft with nothing planned yet, over the scopes as read. */
export const start = (scopes: ReadonlyArray<Files>): Draft => ({ read: scopes, scopes, writes: [], journal: [] })

// ---------------------------------------------------------------------------------------------------------------------
// Helpers

const quote = (text: string) => JSON.stringify(text)

const sizeNote = (size: number, limit: number) => `now ${Text.count(size)} of ${Text.count(limit)} characters`

const withAdded = (meta: Entry.Metadata, today: string): Entry.Metadata =>
  Entry.metaValue(meta, "added") === undefined ? [...meta, ["added", today]] : meta

/** The size limit of MEMORY.md (no topic) or of a topic file. */
const limitOf = (settings: Context["settings"], topic: string | undefined) =>
  topic === undefined ? settings.memoryMax : settings.topicMax

const emptyParsed = MemoryFile.parse("")

/** A file of a scope that is not there. */
const missing = (file: string, topic: string | undefined): File => ({
  file,
  topic,
  exists: false,
  parsed: emptyParsed,
  size: 0
})

const memoryOf = (files: Files): File =>
  files.files.find((file) => file.topic === undefined) ?? missing(`${files.dir}/MEMORY.md`, undefined)

/** The file of `topic` (MEMORY.md when none) as it is now; a missing one when there is none. */
const fileOf = (files: Files, topic: string | undefined): File =>
  topic === undefined
    ? memoryOf(files)
    : (files.files.find((file) => file.topic === topic) ?? missing(`${files.dir}/${topic}.md`, topic))

/** The size of `content`, unless it takes `file` past `limit` (a file already past it may keep its size or shrink). */
const fits = (file: File, content: string, limit: number): Result.Result<number, MemoryFull> => {
  const size = Text.length(content)
  return size > limit && size > file.size
    ? Result.fail(new MemoryFull({ file: file.file, size, limit }))
    : Result.succeed(size)
}

/** The entries of a parsed file by the key the same fact is found by (the first of each), kept per parsed file. */
const keyed = new WeakMap<MemoryFile.Parsed, ReadonlyMap<string, MemoryFile.Entry>>()

const sameIn = (parsed: MemoryFile.Parsed, key: string): MemoryFile.Entry | undefined => {
  let keys = keyed.get(parsed)
  if (keys === undefined) {
    const byKey = new Map<string, MemoryFile.Entry>()
    for (const entry of parsed.entries) {
      const entryKey = Text.sameKey(entry.text)
      if (!byKey.has(entryKey)) byKey.set(entryKey, entry)
    }
    keys = byKey
    keyed.set(parsed, keys)
  }
  return keys.get(key)
}

/** The file of a scope that already holds `text` (white space folded, case ignored), and the entry there. */
const holding = (files: Files, text: string) => {
  const key = Text.sameKey(text)
  for (const file of files.files) {
    const entry = sameIn(file.parsed, key)
    if (entry !== undefined) return { file, entry }
  }
  return undefined
}

/** How many topics a scope has, counting those that could not be read. */
const topicCount = (files: Files) => files.files.length - 1 + files.unreadable.length

const recordOf = (
  files: Files,
  op: Record["op"],
  actor: Actor,
  file: string,
  lines: Pick<Record, "before" | "after">
) => ({
  op,
  scope: files.dir,
  file,
  actor: actor.actor,
  ...(actor.auto === undefined ? {} : { auto: actor.auto }),
  ...lines
})

/** The scope's files with `file` now as `updated` (deleted when `undefined`), topics kept in name order. */
const withFile = (files: Files, file: File, updated: File | undefined): Files => {
  const others = files.files.filter((other) => other.file !== file.file)
  if (updated === undefined) return { ...files, files: others }
  if (updated.topic === undefined) return { ...files, files: [updated, ...others] }
  const at = others.findIndex((other) => other.topic !== undefined && other.topic > updated.topic!)
  return { ...files, files: at < 0 ? [...others, updated] : others.toSpliced(at, 0, updated) }
}

/** Whether a file existed when the draft's scopes were read. */
const existed = (draft: Draft, file: string) =>
  draft.read.some((scope) => scope.files.some((read) => read.file === file && read.exists))

/**
 * The parse of a file whose parse was `parsed` once its entry line `at` is replaced by `line` and the file rendered
 * (`MemoryFile.render`), as `MemoryFile.parse` gives it, made from the parse before: only the new line is read. The
 * new line is an entry line as `Entry.format` writes it (a bullet, a space, a text, no line break) and the line it
 * replaces was an entry, so no heading moves and no other line reads otherwise; rendering drops the trailing blank
 * lines. `undefined` for any other line, which is parsed with its file.
 */
const replacedParse = (parsed: MemoryFile.Parsed, at: number, line: string): MemoryFile.Parsed | undefined => {
  if (!line.startsWith("- ") || line.includes("\n") || line.includes("\r")) return undefined
  const { text, meta } = Entry.split(line.slice(1))
  if (text === "") return undefined
  const lines = parsed.lines.with(at, line)
  let end = lines.length
  while (end > 0 && lines[end - 1]!.trim() === "") end--
  return {
    lines: end === lines.length ? lines : lines.slice(0, end),
    entries: parsed.entries.map((entry) => (entry.line === at ? { line: at, text, meta } : entry)),
    links: parsed.links
  }
}

/**
 * The draft with `edits` made in the scope at `at` (a file's new text, `undefined` to delete it, and its parse when
 * the plan has it) and `records` added.
 */
const withEdits = (
  draft: Draft,
  at: number,
  edits: ReadonlyArray<readonly [file: File, content: string | undefined, parsed?: MemoryFile.Parsed | undefined]>,
  records: ReadonlyArray<Record>
): Draft => {
  let files = draft.scopes[at]!
  let writes = draft.writes
  for (const [file, content, parsed] of edits) {
    const updated =
      content === undefined
        ? undefined
        : { ...file, exists: true, parsed: parsed ?? MemoryFile.parse(content), size: Text.length(content) }
    files = withFile(files, file, updated)
    const write: Write =
      updated === undefined ? { file: file.file, content } : { file: file.file, content, parsed: updated.parsed }
    const index = writes.findIndex((other) => other.file === file.file)
    if (content === undefined && !existed(draft, file.file)) {
      writes = writes.filter((other) => other.file !== file.file) // made and deleted again: nothing to write
    } else {
      writes = index < 0 ? [...writes, write] : writes.map((other, i) => (i === index ? write : other))
    }
  }
  return {
    ...draft,
    scopes: draft.scopes.map((scope, i) => (i === at ? files : scope)),
    writes,
    journal: [...draft.journal, ...records]
  }
}

/** The entry problem as the error the store gives. */
const denied = (problem: Vet.Problem): Denied =>
  new Denied({
    reason:
      problem._tag === "Empty"
        ? new EmptyEntry()
        : problem._tag === "Secret"
          ? new SecretEntry()
          : new TooLong({ length: problem.length, max: problem.max })
  })

const cleanTopic = (topic: string | undefined): Result.Result<string | undefined, BadTopic> => {
  if (topic === undefined) return Result.succeed(undefined)
  const cleaned = Topic.clean(topic)
  return cleaned === undefined ? Result.fail(new BadTopic({ topic })) : Result.succeed(cleaned)
}

/** The entry a match names in `file`, or NoMatch. */
const entryIn = (file: File, input: ReplaceInput | RemoveInput): Result.Result<MemoryFile.Entry, NoMatch> => {
  const found = (input.exact === true ? Match.exact : Match.find)(file.parsed.entries, input.match)
  return Result.mapError(found, (candidates) => new NoMatch({ file: file.file, match: input.match, candidates }))
}

// ---------------------------------------------------------------------------------------------------------------------
// Planning a change

/** A change checked before any file is read: its text cleaned and vetted, its topic cleaned. */
export interface Prepared {
  readonly change: Change
  /** The topic cleaned, `undefined` for MEMORY.md. */
  readonly topic: string | undefined
  /** The entry's text cleaned (add, replace); "" for a remove. */
  readonly text: string
  readonly context: Context
}

/** Checks what a change can be checked for without the files: the entry's problem, then the topic name. */
export const prepare = (change: Change, context: Context): Result.Result<Prepared, Denied | BadTopic> => {
  const text = change.op === "remove" ? "" : Entry.clean(change.text)
  if (change.op !== "remove") {
    const problem = Vet.problem(text, context.settings)
    if (problem !== undefined) return Result.fail(denied(problem))
  }
  return Result.map(cleanTopic(change.topic), (topic) => ({ change, topic, text, context }))
}

const planAdd = (draft: Draft, at: number, input: AddInput, prepared: Prepared) => {
  const files = draft.scopes[at]!
  const { topic, text, context } = prepared
  const { settings } = context
  const outcome = { op: "add", scope: input.scope } as const
  const same = holding(files, text)
  if (same !== undefined) {
    return Result.succeed<Planned>({
      draft,
      outcome: {
        ...outcome,
        changed: false,
        topic: same.file.topic,
        file: same.file.file,
        message: `nothing changed: ${same.file.file} already holds ${quote(same.entry.text)}`
      }
    })
  }
  const target = fileOf(files, topic)
  if (topic !== undefined && !target.exists && topicCount(files) >= settings.topicsMax) {
    return Result.fail(new TooManyTopics({ scope: files.dir, limit: settings.topicsMax }))
  }
  const base = target.exists
    ? target.parsed
    : MemoryFile.parse(topic === undefined ? MemoryFile.newMemory : MemoryFile.newTopic(topic))
  const line = Entry.format(text, withAdded(input.meta ?? [], context.today))
  const content = MemoryFile.render(MemoryFile.insertEntry(base, line, topic === undefined ? "memory" : "topic"))
  const limit = limitOf(settings, topic)
  const size = fits(target, content, limit)
  if (Result.isFailure(size)) return Result.fail(size.failure)
  const memory = memoryOf(files)
  const unlinked = topic !== undefined && !memory.parsed.links.some((link) => link.topic === topic)
  const edits: Array<readonly [File, string]> = [[target, content]]
  const records: Array<Record> = [recordOf(files, "add", input, target.file, { after: line })]
  let note = ""
  if (unlinked) {
    const index = MemoryFile.render(
      MemoryFile.addLink(memory.exists ? memory.parsed : MemoryFile.parse(MemoryFile.newMemory), topic)
    )
    const linked = fits(memory, index, settings.memoryMax)
    if (Result.isFailure(linked)) return Result.fail(linked.failure)
    edits.push([memory, index])
    records.push(recordOf(files, "add", input, memory.file, { after: `- [[${topic}]]` }))
    note = target.exists
      ? `; the topic ${quote(topic)} was not linked and is now linked from ${memory.file}`
      : `; the new topic ${quote(topic)} is linked from ${memory.file}`
  }
  return Result.succeed<Planned>({
    draft: withEdits(draft, at, edits, records),
    outcome: {
      ...outcome,
      changed: true,
      topic,
      file: target.file,
      message: `added to ${target.file} (${sizeNote(size.success, limit)}): ${quote(text)}${note}`,
      after: line
    }
  })
}

const planReplace = (draft: Draft, at: number, input: ReplaceInput, prepared: Prepared) => {
  const files = draft.scopes[at]!
  const { topic, text, context } = prepared
  const target = fileOf(files, topic)
  const found = entryIn(target, input)
  if (Result.isFailure(found)) return Result.fail(found.failure)
  const entry = found.success
  const before = target.parsed.lines[entry.line] ?? ""
  const line = Entry.format(text, withAdded(input.meta ?? entry.meta, context.today))
  const outcome = { op: "replace", scope: input.scope, topic, file: target.file } as const
  if (line === before) {
    return Result.succeed<Planned>({
      draft,
      outcome: { ...outcome, changed: false, message: `nothing changed: ${target.file} already holds ${quote(text)}` }
    })
  }
  const content = MemoryFile.render(MemoryFile.replaceLine(target.parsed.lines, entry.line, line))
  const limit = limitOf(context.settings, topic)
  const size = fits(target, content, limit)
  if (Result.isFailure(size)) return Result.fail(size.failure)
  return Result.succeed<Planned>({
    draft: withEdits(
      draft,
      at,
      [[target, content, replacedParse(target.parsed, entry.line, line)]],
      [recordOf(files, "replace", input, target.file, { before, after: line })]
    ),
    outcome: {
      ...outcome,
      changed: true,
      message: `replaced in ${target.file} (${sizeNote(size.success, limit)}): ${quote(entry.text)} is now ${quote(text)}`,
      before,
      after: line
    }
  })
}

const planRemove = (draft: Draft, at: number, input: RemoveInput, prepared: Prepared) => {
  const files = draft.scopes[at]!
  const { topic, context } = prepared
  const target = fileOf(files, topic)
  const found = entryIn(target, input)
  if (Result.isFailure(found)) return Result.fail(found.failure)
  const entry = found.success
  const before = target.parsed.lines[entry.line] ?? ""
  const content = MemoryFile.render(MemoryFile.removeLine(target.parsed.lines, entry.line))
  const outcome = { op: "remove", changed: true, scope: input.scope, topic, file: target.file, before } as const
  const record = recordOf(files, "remove", input, target.file, { before })
  if (topic === undefined || !MemoryFile.isEmptyTopic(MemoryFile.parse(content))) {
    const note = sizeNote(Text.length(content), limitOf(context.settings, topic))
    return Result.succeed<Planned>({
      draft: withEdits(draft, at, [[target, content]], [record]),
      outcome: { ...outcome, message: `removed from ${target.file}: ${quote(entry.text)} (${note})` }
    })
  }
  const memory = memoryOf(files)
  const link = memory.parsed.links.find((link) => link.topic === topic)
  const deleted = `removed from ${target.file}: ${quote(entry.text)}; the topic ${quote(topic)} had nothing left and is deleted`
  if (link === undefined) {
    return Result.succeed<Planned>({
      draft: withEdits(draft, at, [[target, undefined]], [record]),
      outcome: { ...outcome, message: deleted }
    })
  }
  const index = MemoryFile.render(MemoryFile.removeLink(memory.parsed, topic))
  const unlink = recordOf(files, "remove", input, memory.file, { before: memory.parsed.lines[link.line] ?? "" })
  return Result.succeed<Planned>({
    draft: withEdits(
      draft,
      at,
      [
        [target, undefined],
        [memory, index]
      ],
      [record, unlink]
    ),
    outcome: { ...outcome, message: `${deleted}, with its link in ${memory.file}` }
  })
}

/** The place of a scope in a draft, or the error of a scope the draft was not given. */
const scopeAt = (draft: Draft, scope: Scope.Scope): Result.Result<number, StorageError> => {
  const at = draft.scopes.findIndex((files) => Scope.equals(files.scope, scope))
  return at < 0
    ? Result.fail(
        new StorageErrorClass({
          reason: new NotFound({
            path: scope.kind === "team" ? "team" : `agent ${quote(scope.agentId)}`,
            detail: "its memory was not read for this change"
          })
        })
      )
    : Result.succeed(at)
}

/**
 * Plans a prepared change over the draft: its outcome and the draft with it, or why it cannot be made (the draft is
 * then unchanged). A change to a topic file that could not be read fails with that file's StorageError.
 */
export const plan = (draft: Draft, prepared: Prepared): Result.Result<Planned, ChangeError | StorageError> => {
  const at = scopeAt(draft, prepared.change.scope)
  if (Result.isFailure(at)) return Result.fail(at.failure)
  const files = draft.scopes[at.success]!
  const path = fileOf(files, prepared.topic).file
  const unreadable = files.unreadable.find((file) => file.file === path)
  if (unreadable !== undefined) return Result.fail(unreadable.error)
  const { change } = prepared
  switch (change.op) {
    case "add":
      return planAdd(draft, at.success, change, prepared)
    case "replace":
      return planReplace(draft, at.success, change, prepared)
    case "remove":
      return planRemove(draft, at.success, change, prepared)
  }
}

/** What planning a batch gives: the draft with every change that could be made, and each change's own result. */
export interface Batch {
  readonly draft: Draft
  readonly results: ReadonlyArray<Result.Result<Outcome, ChangeError | StorageError>>
}

/**
 * Plans changes, each prepared (or the error preparing it gave), in order over the draft, each against the files the
 * earlier ones left; a change that cannot be made is left out of the draft, with its error among the results.
 */
export const planAll = (draft: Draft, prepared: ReadonlyArray<Result.Result<Prepared, Denied | BadTopic>>): Batch =>
  prepared.reduce<Batch>(
    (batch, change) => {
      const planned = Result.flatMap(change, (ready) => plan(batch.draft, ready))
      return Result.isSuccess(planned)
        ? { draft: planned.success.draft, results: [...batch.results, Result.succeed(planned.success.outcome)] }
        : { draft: batch.draft, results: [...batch.results, Result.fail(planned.failure)] }
    },
    { draft, results: [] }
  )

// ---------------------------------------------------------------------------------------------------------------------
// Undoing a journaled change

/** A journal line as an undo reads it (a `MemoryRoot.JournalLine`). */
export interface Journaled {
  /** The line's id (journals from before undo existed have none). */
  readonly id?: string
  readonly time: number
  readonly op: "add" | "replace" | "remove" | "archive" | "undo" | "consolidate" | "purge"
  readonly scope: string
  readonly file: string
  readonly actor: string
  readonly before?: string
  readonly after?: string
  readonly undoes?: string
  /** Its texts were erased by a purge. */
  readonly purged?: boolean
}

/** Why an undo cannot revert a purge, or a change whose text a purge erased. */
export const purgedDetail =
  "a purge erased its text for good (forgetting that erases), so nothing can bring it back; add the entry again if it is wanted"

/** The topic a journaled file of a scope is, `undefined` for MEMORY.md, or `null` when it is no file of the scope. */
const topicOfPath = (dir: string, file: string): string | undefined | null => {
  if (file === `${dir}/MEMORY.md`) return undefined
  if (!file.startsWith(`${dir}/`) || !file.endsWith(".md")) return null
  const topic = file.slice(dir.length + 1, -3)
  return Topic.clean(topic) === topic ? topic : null
}

/** Whether `line` is the index link that the change journaled by `first` made or removed in MEMORY.md with it. */
const isLinkOf = (first: Journaled, line: Journaled): boolean => {
  const topic = topicOfPath(first.scope, first.file)
  return (
    typeof topic === "string" &&
    line.file === `${first.scope}/MEMORY.md` &&
    line.scope === first.scope &&
    line.op === first.op &&
    line.time === first.time &&
    line.actor === first.actor &&
    (line.before === undefined) !== (line.after === undefined) &&
    (line.after ?? line.before) === `- [[${topic}]]`
  )
}

/**
 * A journal's lines grouped into the changes that wrote them, oldest first. A change journals one line per file it
 * changed; only a change to a topic also changes MEMORY.md (the topic's index link, journaled right after it), so a
 * topic's line and the link line that follows it are one change.
 */
export const changesOf = (lines: ReadonlyArray<Journaled>): ReadonlyArray<ReadonlyArray<Journaled>> => {
  const changes: Array<Array<Journaled>> = []
  for (const line of lines) {
    const last = changes[changes.length - 1]
    if (last?.length === 1 && isLinkOf(last[0]!, line)) last.push(line)
    else if (last !== undefined && sameConsolidation(last[0]!, line)) last.push(line)
    else changes.push([line])
  }
  return changes
}

/** Whether `line` was journaled by the same consolidation as `first`: every line of one is one change. */
const sameConsolidation = (first: Journaled, line: Journaled): boolean =>
  first.op === "consolidate" &&
  line.op === "consolidate" &&
  line.scope === first.scope &&
  line.time === first.time &&
  line.actor === first.actor

/**
 * Plans the undo of a consolidation (every line it journaled) over the draft: its lines undone newest first, each as
 * `undo` undoes a line, where the index links it made or removed are given back by the undo of their topic's lines.
 */
const undoConsolidation = (
  draft: Draft,
  journaled: ReadonlyArray<Journaled>,
  actor: Actor,
  context: Pick<Context, "settings">
): Result.Result<Planned, NotUndoable | MemoryFull | TooManyTopics | StorageError> => {
  const first = journaled[0]!
  const topics = new Set(
    journaled.map((line) => topicOfPath(line.scope, line.file)).filter((t) => typeof t === "string")
  )
  const isLink = (line: Journaled) =>
    line.file === `${line.scope}/MEMORY.md` &&
    [...topics].some((topic) => (line.after ?? line.before) === `- [[${topic}]]`)
  let planned: Planned | undefined = undefined
  let current = draft
  for (const line of journaled.toReversed()) {
    if (isLink(line)) continue
    const done = undo(
      current,
      [{ ...line, op: line.before === undefined ? "add" : line.after === undefined ? "remove" : "replace" }],
      actor,
      context
    )
    if (Result.isFailure(done)) return Result.fail(done.failure)
    current = done.success.draft
    planned = done.success
  }
  if (planned === undefined) {
    return Result.fail(new NotUndoable({ file: first.file, detail: "the journal names no line of it to revert" }))
  }
  const count = journaled.filter((line) => !isLink(line)).length
  return Result.succeed<Planned>({
    draft: current,
    outcome: {
      ...planned.outcome,
      message: `undone: the consolidation of ${first.scope}/MEMORY.md (${count} change${count === 1 ? "" : "s"}) is reverted`
    }
  })
}

/** The changes an undo may revert, oldest first: journaled with an id, not an undo or an archive, not undone. */
export const undoable = (lines: ReadonlyArray<Journaled>): ReadonlyArray<ReadonlyArray<Journaled>> => {
  const undone = new Set(
    lines.flatMap((line) => (line.op === "undo" && line.undoes !== undefined ? [line.undoes] : []))
  )
  return changesOf(lines).filter((lines) =>
    lines.every((line) => line.id !== undefined && line.op !== "undo" && line.op !== "archive" && !undone.has(line.id))
  )
}

/** The change with a line of id `id`, if an undo may revert it; NotUndoable, or StorageError (NotFound) otherwise. */
export const changeWithId = (
  lines: ReadonlyArray<Journaled>,
  id: string,
  dir: string
): Result.Result<ReadonlyArray<Journaled>, NotUndoable | StorageError> => {
  const found = changesOf(lines).find((lines) => lines.some((line) => line.id === id))
  if (found === undefined) {
    return Result.fail(
      new StorageErrorClass({
        reason: new NotFound({ path: dir, detail: `the journal holds no change ${quote(id)} of this memory` })
      })
    )
  }
  const first = found[0]!
  const why =
    first.op === "archive"
      ? "archiving a memory folder is undone by moving it back by hand"
      : first.op === "undo"
        ? "it is itself an undo"
        : lines.some((line) => line.op === "undo" && found.some((done) => done.id === line.undoes))
          ? "it was undone already"
          : undefined
  return why === undefined ? Result.succeed(found) : Result.fail(new NotUndoable({ file: first.file, detail: why }))
}

/** The line at which `lines` hold exactly `text`, or NotUndoable naming it. */
const lineHolding = (file: File, text: string): Result.Result<number, NotUndoable> => {
  const at = file.parsed.lines.indexOf(text)
  return at < 0
    ? Result.fail(new NotUndoable({ file: file.file, detail: `it no longer holds ${quote(text)}` }))
    : Result.succeed(at)
}

/** The lines of a file without line `at`: an index link alone, an entry as `removeLine` takes it out. */
const withoutLine = (parsed: MemoryFile.Parsed, at: number) =>
  parsed.links.some((link) => link.line === at)
    ? parsed.lines.filter((_, i) => i !== at)
    : MemoryFile.removeLine(parsed.lines, at)

/**
 * Plans the undo of one journaled change (its lines as `changesOf` groups them) over the draft: each file is given
 * back the line the change replaced or removed, or loses the line it added, and the undo is journaled (op `undo`,
 * `undoes` the line reverted). NotUndoable where a file no longer holds what the journal says the change wrote, or
 * already holds again the entry it removed. A topic the undo leaves with nothing but headings is deleted with its
 * link; a topic it gives back an entry is made again and linked.
 */
export const undo = (
  draft: Draft,
  journaled: ReadonlyArray<Journaled>,
  actor: Actor,
  context: Pick<Context, "settings">
): Result.Result<Planned, NotUndoable | MemoryFull | TooManyTopics | StorageError> => {
  const [first, link] = journaled
  if (first === undefined) {
    return Result.fail(new NotUndoable({ file: "", detail: "the journal names no change" }))
  }
  const purged = journaled.find((line) => line.op === "purge" || line.purged === true)
  if (purged !== undefined) return Result.fail(new NotUndoable({ file: purged.file, detail: purgedDetail }))
  if (first.op === "consolidate") return undoConsolidation(draft, journaled, actor, context)
  const at = draft.scopes.findIndex((files) => files.dir === first.scope)
  const files = draft.scopes[at]
  const topic = topicOfPath(first.scope, first.file)
  if (files === undefined || topic === null) {
    return Result.fail(new NotUndoable({ file: first.file, detail: "it is not a memory file of this scope" }))
  }
  const unreadable = files.unreadable.find((file) => file.file === first.file)
  if (unreadable !== undefined) return Result.fail(unreadable.error)
  const { settings } = context
  const target = fileOf(files, topic)
  const memory = memoryOf(files)
  const limit = limitOf(settings, topic)
  const record = (file: string, lines: Pick<Record, "before" | "after">, of: Journaled): Record => ({
    ...recordOf(files, "undo", actor, file, lines),
    ...(of.id === undefined ? {} : { undoes: of.id })
  })
  const outcome = { changed: true, scope: files.scope, topic, file: target.file } as const

  if (first.before === undefined && first.after !== undefined) {
    // An add: take its line out again.
    const added = first.after
    const found = lineHolding(target, added)
    if (Result.isFailure(found)) return Result.fail(found.failure)
    const content = MemoryFile.render(withoutLine(target.parsed, found.success))
    const text = quote(Entry.clean(added))
    const records = [record(target.file, { before: added }, first)]
    if (topic === undefined || !MemoryFile.isEmptyTopic(MemoryFile.parse(content))) {
      return Result.succeed<Planned>({
        draft: withEdits(draft, at, [[target, content]], records),
        outcome: {
          ...outcome,
          op: "remove",
          before: added,
          message: `undone: removed ${text} from ${target.file} (${sizeNote(Text.length(content), limit)})`
        }
      })
    }
    const edits: Array<readonly [File, string | undefined]> = [[target, undefined]]
    const linked = memory.parsed.links.find((line) => line.topic === topic)
    let note = `; the topic ${quote(topic)} had nothing left and is deleted`
    if (linked !== undefined) {
      const before = memory.parsed.lines[linked.line] ?? ""
      edits.push([memory, MemoryFile.render(MemoryFile.removeLink(memory.parsed, topic))])
      records.push(record(memory.file, { before }, link ?? first))
      note += `, with its link in ${memory.file}`
    }
    return Result.succeed<Planned>({
      draft: withEdits(draft, at, edits, records),
      outcome: {
        ...outcome,
        op: "remove",
        before: added,
        message: `undone: removed ${text} from ${target.file}${note}`
      }
    })
  }

  if (first.before !== undefined && first.after !== undefined) {
    // A replace: give the line back its old text.
    const { before, after } = first
    const found = lineHolding(target, after)
    if (Result.isFailure(found)) return Result.fail(found.failure)
    const content = MemoryFile.render(MemoryFile.replaceLine(target.parsed.lines, found.success, before))
    const size = fits(target, content, limit)
    if (Result.isFailure(size)) return Result.fail(size.failure)
    return Result.succeed<Planned>({
      draft: withEdits(draft, at, [[target, content]], [record(target.file, { before: after, after: before }, first)]),
      outcome: {
        ...outcome,
        op: "replace",
        before: after,
        after: before,
        message: `undone: ${quote(Entry.clean(after))} in ${target.file} is again ${quote(Entry.clean(before))} (${sizeNote(size.success, limit)})`
      }
    })
  }

  // A remove: put the line back, with the topic and its link where the remove deleted them.
  const removed = first.before ?? ""
  const same = holding(files, Entry.clean(removed))
  if (same !== undefined) {
    return Result.fail(new NotUndoable({ file: same.file.file, detail: `it holds ${quote(same.entry.text)} again` }))
  }
  if (topic !== undefined && !target.exists && topicCount(files) >= settings.topicsMax) {
    return Result.fail(new TooManyTopics({ scope: files.dir, limit: settings.topicsMax }))
  }
  const base = target.exists
    ? target.parsed
    : MemoryFile.parse(topic === undefined ? MemoryFile.newMemory : MemoryFile.newTopic(topic))
  const content = MemoryFile.render(MemoryFile.insertEntry(base, removed, topic === undefined ? "memory" : "topic"))
  const size = fits(target, content, limit)
  if (Result.isFailure(size)) return Result.fail(size.failure)
  const edits: Array<readonly [File, string]> = [[target, content]]
  const records = [record(target.file, { after: removed }, first)]
  let note = ""
  if (topic !== undefined && !memory.parsed.links.some((line) => line.topic === topic)) {
    const index = MemoryFile.render(
      MemoryFile.addLink(memory.exists ? memory.parsed : MemoryFile.parse(MemoryFile.newMemory), topic)
    )
    const linked = fits(memory, index, settings.memoryMax)
    if (Result.isFailure(linked)) return Result.fail(linked.failure)
    edits.push([memory, index])
    records.push(record(memory.file, { after: `- [[${topic}]]` }, link ?? first))
    note = `; the topic ${quote(topic)} is linked again from ${memory.file}`
  }
  return Result.succeed<Planned>({
    draft: withEdits(draft, at, edits, records),
    outcome: {
      ...outcome,
      op: "add",
      after: removed,
      message: `undone: ${quote(Entry.clean(removed))} is back in ${target.file} (${sizeNote(size.success, limit)})${note}`
    }
  })
}
