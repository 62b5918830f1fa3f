/**
 * Planning a change (docs/spec.md 2–3): where an entry goes, the same fact anywhere in the scope, a topic made within
 * the topic limit with its index link, an emptied topic deleted with its link, the size limits; and a batch planned
 * against the files read once, each change seeing what the earlier ones left.
 */
import { Result } from "effect"
import * as Entry from "../Entry.ts"
import {
  BadTopic,
  Denied,
  NotFound,
  type StorageError,
  StorageError as StorageErrorClass,
  TooManyTopics
} from "../Errors.ts"
import * as MemoryFile from "../MemoryFile.ts"
import * as MemoryScope from "../MemoryScope.ts"
import * as Text from "../Text.ts"
import * as Vet from "../Vet.ts"
import type {
  File,
  AddInput,
  ReplaceInput,
  RemoveInput,
  Change,
  ChangeError,
  Outcome,
  EditRecord,
  EditSettings,
  Draft,
  Planned
} from "./editShapes.ts"
import {
  quote,
  sizeNote,
  withAdded,
  limitOf,
  memoryOf,
  fileOf,
  fits,
  holding,
  topicCount,
  recordOf,
  replacedParse,
  withEdits,
  denied,
  cleanTopic,
  entryIn
} from "./editHelpers.ts"

// ---------------------------------------------------------------------------------------------------------------------
// Planning a change

/** A change checked before any file is read: its text cleaned and vetted, its topic cleaned. */
export interface Prepared {
  readonly change: Change
  /** The topic cleaned, `undefined` for MEMORY.md. */
  readonly topic: string | undefined
  /** The entry's text cleaned (add, replace); "" for a remove. */
  readonly text: string
  readonly context: EditSettings
}

/** Checks what a change can be checked for without the files: the entry's problem, then the topic name. */
export const prepare = (change: Change, context: EditSettings): Result.Result<Prepared, Denied | BadTopic> => {
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
  const same = holding(files, text, context.sameKeys)
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
  const records: Array<EditRecord> = [recordOf(files, "add", input, target.file, { after: line })]
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
const scopeAt = (draft: Draft, scope: MemoryScope.MemoryScope): Result.Result<number, StorageError> => {
  const at = draft.scopes.findIndex((files) => MemoryScope.equals(files.scope, scope))
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
