/**
 * Undoing a journaled change: the journal's lines grouped into changes, which of them can be undone, and the plan that
 * reverts one, or why it cannot be.
 */
import { Result } from "effect"
import * as Entry from "../Entry.ts"
import {
  MemoryFull,
  NotFound,
  NotUndoable,
  type StorageError,
  StorageError as StorageErrorClass,
  TooManyTopics
} from "../Errors.ts"
import * as MemoryFile from "../MemoryFile.ts"
import * as Text from "../Text.ts"
import * as Topic from "../Topic.ts"
import type { File, Actor, EditRecord, EditSettings, Draft, Planned } from "./editShapes.ts"
import {
  quote,
  sizeNote,
  limitOf,
  memoryOf,
  fileOf,
  fits,
  holding,
  topicCount,
  recordOf,
  withEdits
} from "./editHelpers.ts"

// ---------------------------------------------------------------------------------------------------------------------
// Undoing a journaled change

/** A journal line as an undo reads it (a `MemoryRoot.JournalLine`). */
export interface Journaled {
  /** The line's id (journals from before undo existed have none). */
  readonly id?: string
  readonly time: number
  readonly op: "add" | "replace" | "remove" | "archive" | "undo" | "consolidate" | "purge" | PendingOp
  readonly scope: string
  readonly file: string
  readonly actor: string
  readonly before?: string
  readonly after?: string
  readonly undoes?: string
  /** Its texts were erased by a purge. */
  readonly purged?: boolean
}

/** The ops of the lines that journal the list of entries waiting for a person: none of them is undone. */
export type PendingOp = "hold" | "approve" | "reject"

const pendingOps: ReadonlySet<string> = new Set<PendingOp>(["hold", "approve", "reject"])

/** Why an undo does not revert a line of the pending list. */
export const pendingDetail =
  "an entry held for a person, approved or rejected is not undone: undo the entry an approval wrote (its add), or hold it again by a review"

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
  context: Pick<EditSettings, "settings">
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
    lines.every(
      (line) =>
        line.id !== undefined &&
        line.op !== "undo" &&
        line.op !== "archive" &&
        !pendingOps.has(line.op) &&
        !undone.has(line.id)
    )
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
      : pendingOps.has(first.op)
        ? pendingDetail
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
  context: Pick<EditSettings, "settings">
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
  const record = (file: string, lines: Pick<EditRecord, "before" | "after">, of: Journaled): EditRecord => ({
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
