/**
 * What planning and undoing a change share: a scope's files looked up and replaced in a draft, the same fact found in a
 * scope, size limits, journal records and the checks of a change's entry and topic.
 */
import { Result } from "effect"
import * as Entry from "../Entry.ts"
import { BadTopic, Denied, EmptyEntry, MemoryFull, NoMatch, SecretEntry, TooLong } from "../Errors.ts"
import * as Match from "../Match.ts"
import * as MemoryFile from "../MemoryFile.ts"
import * as Text from "../Text.ts"
import * as Topic from "../Topic.ts"
import * as Vet from "../Vet.ts"
import type {
  Actor,
  EditSettings,
  Draft,
  File,
  Files,
  EditRecord,
  ReplaceInput,
  SameKeys,
  RemoveInput,
  Write
} from "./editShapes.ts"

// ---------------------------------------------------------------------------------------------------------------------
// Helpers

export const quote = (text: string) => JSON.stringify(text)

export const sizeNote = (size: number, limit: number) => `now ${Text.count(size)} of ${Text.count(limit)} characters`

export const withAdded = (meta: Entry.Metadata, today: string): Entry.Metadata =>
  Entry.metaValue(meta, "added") === undefined ? [...meta, ["added", today]] : meta

/** The size limit of MEMORY.md (no topic) or of a topic file. */
export const limitOf = (settings: EditSettings["settings"], topic: string | undefined) =>
  topic === undefined ? settings.memoryMax : settings.topicMax

export const emptyParsed = MemoryFile.parse("")

/** A file of a scope that is not there. */
export const missing = (file: string, topic: string | undefined): File => ({
  file,
  topic,
  exists: false,
  parsed: emptyParsed,
  size: 0
})

export const memoryOf = (files: Files): File =>
  files.files.find((file) => file.topic === undefined) ?? missing(`${files.dir}/MEMORY.md`, undefined)

/** The file of `topic` (MEMORY.md when none) as it is now; a missing one when there is none. */
export const fileOf = (files: Files, topic: string | undefined): File =>
  topic === undefined
    ? memoryOf(files)
    : (files.files.find((file) => file.topic === topic) ?? missing(`${files.dir}/${topic}.md`, topic))

/** The size of `content`, unless it takes `file` past `limit` (a file already past it may keep its size or shrink). */
export const fits = (file: File, content: string, limit: number): Result.Result<number, MemoryFull> => {
  const size = Text.length(content)
  return size > limit && size > file.size
    ? Result.fail(new MemoryFull({ file: file.file, size, limit }))
    : Result.succeed(size)
}

/** Whether `c` is an ASCII white space character (what `\s` matches below 128). */
const isAsciiSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13)

/**
 * Whether `text`'s same-fact key (`Text.sameKey`) is `key`. Text is compared as it is read, white space folded and
 * A-Z lowered on the way, and the first difference ends the look; where a code point beyond ASCII comes before one, the
 * key is worked out whole (what follows it may fold or lower otherwise). A test checks it against `Text.sameKey`.
 */
export const hasSameKey = (text: string, key: string): boolean => {
  let k = 0
  let space = false // white space read since the last character written, to be written as one space
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 128) return Text.sameKey(text) === key
    if (isAsciiSpace(c)) {
      space = k > 0
      continue
    }
    if (space) {
      if (key.charCodeAt(k++) !== 32) return false
      space = false
    }
    if (key.charCodeAt(k++) !== (c >= 65 && c <= 90 ? c + 32 : c)) return false
  }
  return k === key.length
}

/**
 * A `SameKeys` that remembers the keys of each parse it is given, for as long as the parse is held (a store keeps one
 * for its life: the files it reads stay parsed while they are unchanged).
 */
export const sameKeys = (): SameKeys => {
  const known = new WeakMap<MemoryFile.Parsed, ReadonlyMap<string, MemoryFile.Entry>>()
  return (parsed) => {
    const seen = known.get(parsed)
    if (seen !== undefined) return seen
    const byKey = new Map<string, MemoryFile.Entry>()
    for (const entry of parsed.entries) {
      const key = Text.sameKey(entry.text)
      if (!byKey.has(key)) byKey.set(key, entry)
    }
    known.set(parsed, byKey)
    return byKey
  }
}

/** The file of a scope that already holds `text` (white space folded, case ignored), and the entry there; looked up in
 * `keys` when given. */
export const holding = (files: Files, text: string, keys?: SameKeys) => {
  const key = Text.sameKey(text)
  for (const file of files.files) {
    const entry =
      keys === undefined ? file.parsed.entries.find((entry) => hasSameKey(entry.text, key)) : keys(file.parsed).get(key)
    if (entry !== undefined) return { file, entry }
  }
  return undefined
}

/** How many topics a scope has, counting those that could not be read. */
export const topicCount = (files: Files) => files.files.length - 1 + files.unreadable.length

export const recordOf = (
  files: Files,
  op: EditRecord["op"],
  actor: Actor,
  file: string,
  lines: Pick<EditRecord, "before" | "after">
) => ({
  op,
  scope: files.dir,
  file,
  actor: actor.actor,
  ...(actor.auto === undefined ? {} : { auto: actor.auto }),
  ...lines
})

/** The scope's files with `file` now as `updated` (deleted when `undefined`), topics kept in name order. */
export const withFile = (files: Files, file: File, updated: File | undefined): Files => {
  const others = files.files.filter((other) => other.file !== file.file)
  if (updated === undefined) return { ...files, files: others }
  if (updated.topic === undefined) return { ...files, files: [updated, ...others] }
  const at = others.findIndex((other) => other.topic !== undefined && other.topic > updated.topic!)
  return { ...files, files: at < 0 ? [...others, updated] : others.toSpliced(at, 0, updated) }
}

/** Whether a file existed when the draft's scopes were read. */
export const existed = (draft: Draft, file: string) =>
  draft.read.some((scope) => scope.files.some((read) => read.file === file && read.exists))

/**
 * The parse of a file whose parse was `parsed` once its entry line `at` is replaced by `line` and the file rendered
 * (`MemoryFile.render`), as `MemoryFile.parse` gives it, made from the parse before: only the new line is read. The
 * new line is an entry line as `Entry.format` writes it (a bullet, a space, a text, no line break) and the line it
 * replaces was an entry, so no heading moves and no other line reads otherwise; rendering drops the trailing blank
 * lines. `undefined` for any other line, which is parsed with its file.
 */
export const replacedParse = (parsed: MemoryFile.Parsed, at: number, line: string): MemoryFile.Parsed | undefined => {
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
export const withEdits = (
  draft: Draft,
  at: number,
  edits: ReadonlyArray<readonly [file: File, content: string | undefined, parsed?: MemoryFile.Parsed | undefined]>,
  records: ReadonlyArray<EditRecord>
): Draft => {
  let files = draft.scopes[at]!
  let writes = draft.writes
  for (const [file, content, parsed] of edits) {
    const updated =
      content === undefined
        ? undefined
        : {
            ...file,
            exists: true,
            parsed: parsed ?? MemoryFile.parse(content, MemoryFile.cleanerOf(file.parsed)),
            size: Text.length(content)
          }
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
export const denied = (problem: Vet.Problem): Denied =>
  new Denied({
    reason:
      problem._tag === "Empty"
        ? new EmptyEntry()
        : problem._tag === "Secret"
          ? new SecretEntry()
          : new TooLong({ length: problem.length, max: problem.max })
  })

export const cleanTopic = (topic: string | undefined): Result.Result<string | undefined, BadTopic> => {
  if (topic === undefined) return Result.succeed(undefined)
  const cleaned = Topic.clean(topic)
  return cleaned === undefined ? Result.fail(new BadTopic({ topic })) : Result.succeed(cleaned)
}

/** The entry a match names in `file`, or NoMatch. */
export const entryIn = (file: File, input: ReplaceInput | RemoveInput): Result.Result<MemoryFile.Entry, NoMatch> => {
  const found = (input.exact === true ? Match.exact : Match.find)(file.parsed.entries, input.match)
  return Result.mapError(found, (candidates) => new NoMatch({ file: file.file, match: input.match, candidates }))
}
