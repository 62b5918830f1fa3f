/**
 * The memory store (SPEC 1–3): the scopes of one memory root on disk, and the only way mneme changes them — add,
 * replace and remove, each re-reading what it changes, checking sizes and the entry, writing atomically and
 * appending a journal line, one writer at a time per root (across processes too). Nothing outside the root is read
 * or written, whatever an agent id, a topic name or a link in the root says.
 */
import {
  BadTopic,
  Denied,
  Entry,
  MemoryConfig,
  MemoryFile,
  MemoryFull,
  MemoryWriteError,
  NoMatch,
  Text,
  Topic,
  TooManyTopics,
  Vet
} from "@mneme/core"
import { Clock, Context, Effect, FileSystem, Layer, Path, Result } from "effect"
import { failure, orMissing, readText, writeAtomic } from "./internal/files.ts"
import * as Journal from "./internal/journal.ts"
import * as Match from "./internal/match.ts"
import * as MemoryRoot from "./internal/memoryRoot.ts"
import * as Paths from "./internal/paths.ts"

/** Whose memory: an agent's own, or the team's. */
export type Scope = { readonly kind: "agent"; readonly agentId: string } | { readonly kind: "team" }

/** One file of a scope as read. */
export interface FileView {
  /** The topic, or `undefined` for MEMORY.md. */
  readonly topic: string | undefined
  /** The path relative to the root, "/" separated. */
  readonly file: string
  readonly parsed: MemoryFile.Parsed
  /** Its size in characters (code points); 0 when missing. */
  readonly size: number
}

/** A scope as read: MEMORY.md first (parsed empty when missing), then its topics by name. */
export interface ScopeView {
  readonly scope: Scope
  readonly files: ReadonlyArray<FileView>
}

/** Who makes a change: "review", "cli", an agent id, a person; `auto` when no one asked for it. */
export interface Actor {
  readonly actor: string
  readonly auto?: boolean
}

/** What an operation did, with a message a tool can hand an agent. */
export interface Outcome {
  readonly op: "add" | "replace" | "remove"
  readonly changed: boolean
  readonly scope: Scope
  readonly topic: string | undefined
  readonly file: string
  readonly message: string
  readonly before?: string
  readonly after?: string
}

/** One entry of an agent's view. */
export interface ViewEntry {
  readonly scope: "own" | "team"
  readonly topic: string | undefined
  readonly text: string
  readonly added: string | undefined
  readonly by: string | undefined
  readonly source: string | undefined
}

/** What a host can see of an agent's memory (SPEC 4.6, without the last review). */
export interface View {
  readonly agentId: string
  readonly entries: ReadonlyArray<ViewEntry>
  /** MEMORY.md sizes in characters. */
  readonly sizes: { readonly own: number; readonly team: number }
  readonly limits: { readonly entry: number; readonly memory: number; readonly topic: number; readonly topics: number }
}

/** One line of the journal. */
export type JournalLine = Journal.JournalLine

/** What `add` takes. */
export interface AddInput extends Actor {
  readonly scope: Scope
  readonly topic?: string | undefined
  readonly text: string
  /** Metadata; `added` is filled with today's date in `timeZone` when absent. */
  readonly meta?: Entry.Metadata | undefined
}

/** What `replace` takes. */
export interface ReplaceInput extends Actor {
  readonly scope: Scope
  readonly topic?: string | undefined
  readonly match: string
  readonly text: string
  /** Metadata; the old entry's when absent, `added` filled when missing. */
  readonly meta?: Entry.Metadata | undefined
}

/** What `remove` takes. */
export interface RemoveInput extends Actor {
  readonly scope: Scope
  readonly topic?: string | undefined
  readonly match: string
}

/** Options of the layer: the memory root, and the writer lock's timings. */
export type Options = MemoryRoot.Options

/** A file as read inside an operation: its view, where it is, and whether it exists. */
interface Loaded extends FileView {
  readonly absolute: string
  readonly exists: boolean
}

const publicView = ({ topic, file, parsed, size }: Loaded): FileView => ({ topic, file, parsed, size })

const quote = (text: string) => JSON.stringify(text)

/** Today's date, `YYYY-MM-DD`, in `timeZone` (UTC, with a warning, when the zone is not known). */
const today = Effect.fnUntraced(function* (timeZone: string) {
  const now = yield* Clock.currentTimeMillis
  const format = (zone: string) => {
    const parts = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit"
    })
      .formatToParts(now)
      .reduce<Record<string, string>>((all, part) => ({ ...all, [part.type]: part.value }), {})
    return `${parts.year}-${parts.month}-${parts.day}`
  }
  return yield* Effect.try({ try: () => format(timeZone), catch: (error) => error }).pipe(
    Effect.catch(() =>
      Effect.as(
        Effect.logWarning(`mneme: unknown time zone ${quote(timeZone)}; dates are written in UTC`),
        format("UTC")
      )
    )
  )
})

const withAdded = (meta: Entry.Metadata, date: string): Entry.Metadata =>
  Entry.metaValue(meta, "added") === undefined ? [...meta, ["added", date]] : meta

const sizeNote = (size: number, limit: number) => `now ${size} of ${limit} characters`

/** What a change inside the root gives: its outcome, or its errors or a failed write. */
type Written<E> = Effect.fn.Return<Outcome, E | MemoryWriteError, FileSystem.FileSystem | Path.Path>

/** The size limit of MEMORY.md (no topic) or of a topic file. */
const limitOf = (settings: MemoryConfig.Settings, topic: string | undefined) =>
  topic === undefined ? settings.memoryMax : settings.topicMax

const make = Effect.fnUntraced(function* (options: Options) {
  const { fs, path, context, root, lock } = yield* MemoryRoot.open(options)

  /** The root's real path; `undefined` while it does not exist. */
  const realRoot = orMissing(fs.realPath(root)).pipe(Effect.mapError(failure(".", "find the memory root")))

  /** `rel` resolved inside the root (see `Paths.resolve`). */
  const locate = (real: string, rel: string, checked?: string) =>
    Paths.resolve(real, rel, checked).pipe(
      Effect.mapError((error) => (error._tag === "Denied" ? error : failure(rel, "find it")(error)))
    )

  const readFile = Effect.fnUntraced(function* (
    real: string,
    dir: string,
    topic: string | undefined,
    checked?: string
  ) {
    const file = Paths.fileOf(dir, topic)
    const absolute = yield* locate(real, file, checked)
    const text = yield* readText(absolute, file)
    const loaded: Loaded = {
      topic,
      file,
      absolute,
      exists: text !== undefined,
      parsed: MemoryFile.parse(text ?? ""),
      size: text === undefined ? 0 : Text.length(text)
    }
    return loaded
  })

  /** Every file of a scope: MEMORY.md, then the topics (files `<topic>.md` with a clean topic name) by name. */
  const readScope = Effect.fnUntraced(function* (real: string, scope: Scope) {
    const dir = Paths.scopeDir(scope)
    const folder = yield* locate(real, dir)
    const listing = yield* orMissing(fs.readDirectoryEntries(folder)).pipe(Effect.mapError(failure(dir, "list it")))
    const topics = (listing ?? [])
      .filter((entry) => entry.type !== "Directory" && entry.name.endsWith(".md"))
      .map((entry) => entry.name.slice(0, -3))
      .filter((stem) => Topic.clean(stem) === stem)
      .sort()
    return yield* Effect.forEach([undefined, ...topics], (topic) => readFile(real, dir, topic, folder), {
      concurrency: 8
    })
  })

  /** Writes one file and appends its journal line. */
  const write = Effect.fnUntraced(function* (
    journal: string,
    file: Loaded,
    content: string | undefined,
    line: Omit<JournalLine, "version" | "time" | "file">
  ) {
    yield* fs
      .makeDirectory(path.dirname(file.absolute), { recursive: true })
      .pipe(Effect.mapError(failure(file.file, "make its folder")))
    if (content === undefined) {
      yield* fs.remove(file.absolute).pipe(Effect.mapError(failure(file.file, "remove it")))
    } else {
      yield* writeAtomic(file.absolute, file.file, content)
    }
    const time = yield* Clock.currentTimeMillis
    yield* Journal.append(journal, { version: 1, time, file: file.file, ...line }).pipe(
      Effect.mapError(
        (error) =>
          new MemoryWriteError({ file: error.file, reason: `${error.reason} (the change to ${file.file} was made)` })
      )
    )
  })

  const journalFields = (op: JournalLine["op"], scope: Scope, actor: Actor) => ({
    op,
    scope: Paths.scopeDir(scope),
    actor: actor.actor,
    ...(actor.auto === undefined ? {} : { auto: actor.auto })
  })

  const checkSize = (file: Loaded, content: string, limit: number) => {
    const size = Text.length(content)
    return size > limit && size > file.size
      ? Effect.fail(new MemoryFull({ file: file.file, size, limit }))
      : Effect.succeed(size)
  }

  const cleanTopic = (topic: string | undefined) => {
    if (topic === undefined) return Effect.succeed(undefined)
    const cleaned = Topic.clean(topic)
    return cleaned === undefined ? Effect.fail(new BadTopic({ topic })) : Effect.succeed(cleaned)
  }

  /** What `add` and `replace` write: the entry's text cleaned and vetted, its topic cleaned, and today's date. */
  const cleanInput = Effect.fnUntraced(function* (input: Pick<AddInput, "text" | "topic">) {
    const settings = yield* MemoryConfig.MemoryConfig
    const text = Entry.clean(input.text)
    const problem = Vet.problem(text, settings)
    if (problem !== undefined) {
      return yield* new Denied({ reason: `memory cannot keep this entry: ${Vet.describe(problem)}` })
    }
    const topic = yield* cleanTopic(input.topic)
    return { settings, text, topic, date: yield* today(settings.timeZone) }
  })

  /**
   * Runs a change as the root's only writer, given the root's real path and the journal's (found before anything is
   * written); its writes are not interrupted midway.
   */
  const change = <A, E>(
    body: (at: {
      readonly real: string
      readonly journal: string
    }) => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>
  ) =>
    lock
      .withLock(
        Effect.gen(function* () {
          const real = yield* realRoot
          if (real === undefined) {
            return yield* new MemoryWriteError({ file: ".", reason: "the memory root could not be made" })
          }
          return yield* body({ real, journal: yield* locate(real, Journal.journalName) })
        }).pipe(Effect.uninterruptible)
      )
      .pipe(Effect.provideContext(context))

  const find = (file: Loaded, match: string) => {
    const found = Match.find(file.parsed.entries, match)
    return Result.isSuccess(found)
      ? Effect.succeed(found.success)
      : Effect.fail(new NoMatch({ file: file.file, match, candidates: found.failure }))
  }

  const add = Effect.fn("MemoryStore.add")(function* (input: AddInput) {
    const { settings, text, topic, date } = yield* cleanInput(input)
    return yield* change(
      Effect.fnUntraced(function* ({ real, journal }): Written<MemoryFull | TooManyTopics | Denied> {
        const files = yield* readScope(real, input.scope)
        const key = Text.sameKey(text)
        for (const file of files) {
          const same = file.parsed.entries.find((entry) => Text.sameKey(entry.text) === key)
          if (same !== undefined) {
            return {
              op: "add",
              changed: false,
              scope: input.scope,
              topic: file.topic,
              file: file.file,
              message: `nothing changed: ${file.file} already holds ${quote(same.text)}`
            }
          }
        }
        const [memory, ...topics] = files as [Loaded, ...Array<Loaded>]
        const existing = topic === undefined ? memory : topics.find((file) => file.topic === topic)
        if (topic !== undefined && existing === undefined && topics.length >= settings.topicsMax) {
          return yield* new TooManyTopics({ scope: Paths.scopeDir(input.scope), limit: settings.topicsMax })
        }
        const target = existing ?? (yield* readFile(real, Paths.scopeDir(input.scope), topic))
        const base = target.exists
          ? target.parsed
          : MemoryFile.parse(topic === undefined ? MemoryFile.newMemory : MemoryFile.newTopic(topic))
        const line = Entry.format(text, withAdded(input.meta ?? [], date))
        const content = MemoryFile.render(MemoryFile.insertEntry(base, line, topic === undefined ? "memory" : "topic"))
        const limit = limitOf(settings, topic)
        const size = yield* checkSize(target, content, limit)
        let linked: string | undefined
        if (topic !== undefined && !memory.parsed.links.some((link) => link.topic === topic) && !target.exists) {
          const index = memory.exists ? memory.parsed : MemoryFile.parse(MemoryFile.newMemory)
          linked = MemoryFile.render(MemoryFile.addLink(index, topic))
          yield* checkSize(memory, linked, settings.memoryMax)
        }
        const fields = journalFields("add", input.scope, input)
        yield* write(journal, target, content, { ...fields, after: line })
        if (linked !== undefined) yield* write(journal, memory, linked, { ...fields, after: `- [[${topic}]]` })
        return {
          op: "add",
          changed: true,
          scope: input.scope,
          topic,
          file: target.file,
          message:
            `added to ${target.file} (${sizeNote(size, limit)}): ${quote(text)}` +
            (linked === undefined ? "" : `; the new topic ${quote(topic ?? "")} is linked from ${memory.file}`),
          after: line
        }
      })
    )
  })

  const replace = Effect.fn("MemoryStore.replace")(function* (input: ReplaceInput) {
    const { settings, text, topic, date } = yield* cleanInput(input)
    return yield* change(
      Effect.fnUntraced(function* ({ real, journal }): Written<NoMatch | MemoryFull | Denied> {
        const target = yield* readFile(real, Paths.scopeDir(input.scope), topic)
        const entry = yield* find(target, input.match)
        const before = target.parsed.lines[entry.line] ?? ""
        const line = Entry.format(text, withAdded(input.meta ?? entry.meta, date))
        const outcome = { op: "replace", scope: input.scope, topic, file: target.file } as const
        if (line === before) {
          return { ...outcome, changed: false, message: `nothing changed: ${target.file} already holds ${quote(text)}` }
        }
        const content = MemoryFile.render(MemoryFile.replaceLine(target.parsed.lines, entry.line, line))
        const limit = limitOf(settings, topic)
        const size = yield* checkSize(target, content, limit)
        yield* write(journal, target, content, { ...journalFields("replace", input.scope, input), before, after: line })
        return {
          ...outcome,
          changed: true,
          message: `replaced in ${target.file} (${sizeNote(size, limit)}): ${quote(entry.text)} is now ${quote(text)}`,
          before,
          after: line
        }
      })
    )
  })

  const remove = Effect.fn("MemoryStore.remove")(function* (input: RemoveInput) {
    const settings = yield* MemoryConfig.MemoryConfig
    const topic = yield* cleanTopic(input.topic)
    return yield* change(
      Effect.fnUntraced(function* ({ real, journal }): Written<NoMatch | Denied> {
        const dir = Paths.scopeDir(input.scope)
        const target = yield* readFile(real, dir, topic)
        const entry = yield* find(target, input.match)
        const before = target.parsed.lines[entry.line] ?? ""
        const content = MemoryFile.render(MemoryFile.removeLine(target.parsed.lines, entry.line))
        const fields = journalFields("remove", input.scope, input)
        const outcome = { op: "remove", changed: true, scope: input.scope, topic, file: target.file, before } as const
        if (topic === undefined || !MemoryFile.isEmptyTopic(MemoryFile.parse(content))) {
          yield* write(journal, target, content, { ...fields, before })
          const note = sizeNote(Text.length(content), limitOf(settings, topic))
          return { ...outcome, message: `removed from ${target.file}: ${quote(entry.text)} (${note})` }
        }
        yield* write(journal, target, undefined, { ...fields, before })
        const memory = yield* readFile(real, dir, undefined)
        const link = memory.parsed.links.find((link) => link.topic === topic)
        if (link !== undefined) {
          const index = MemoryFile.render(MemoryFile.removeLink(memory.parsed, topic))
          yield* write(journal, memory, index, { ...fields, before: memory.parsed.lines[link.line] ?? "" })
        }
        return {
          ...outcome,
          message: `removed from ${target.file}: ${quote(entry.text)}; the topic ${quote(topic)} had nothing left and is deleted, with its link in ${memory.file}`
        }
      })
    )
  })

  /** A path leading outside the root as a `MemoryWriteError` of `file`, where `Denied` is not among the errors. */
  const deniedAsWriteError =
    (file: string) =>
    <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, Denied> | MemoryWriteError, R> =>
      Effect.mapError(self, (error) =>
        error instanceof Denied ? new MemoryWriteError({ file, reason: error.reason }) : (error as Exclude<E, Denied>)
      )

  /** A read-only look at the root: a path leading outside it is a `MemoryWriteError` here. */
  const look = <A>(
    body: (real: string) => Effect.Effect<A, Denied | MemoryWriteError, FileSystem.FileSystem | Path.Path>,
    otherwise: A
  ) =>
    Effect.flatMap(realRoot, (real) => (real === undefined ? Effect.succeed(otherwise) : body(real))).pipe(
      deniedAsWriteError("."),
      Effect.provideContext(context)
    )

  const emptyScope = (scope: Scope): ScopeView => ({
    scope,
    files: [
      { topic: undefined, file: Paths.fileOf(Paths.scopeDir(scope), undefined), parsed: MemoryFile.parse(""), size: 0 }
    ]
  })

  const load = Effect.fn("MemoryStore.load")(function* (scope: Scope) {
    return yield* look(
      (real) => Effect.map(readScope(real, scope), (files): ScopeView => ({ scope, files: files.map(publicView) })),
      emptyScope(scope)
    )
  })

  const view = Effect.fn("MemoryStore.view")(function* (agentId: string) {
    const settings = yield* MemoryConfig.MemoryConfig
    const own = yield* load({ kind: "agent", agentId })
    const team = yield* load({ kind: "team" })
    const entries = (which: "own" | "team", scope: ScopeView) =>
      scope.files.flatMap((file) =>
        file.parsed.entries.map((entry): ViewEntry => ({
          scope: which,
          topic: file.topic,
          text: entry.text,
          added: Entry.metaValue(entry.meta, "added"),
          by: Entry.metaValue(entry.meta, "by"),
          source: Entry.metaValue(entry.meta, "source")
        }))
      )
    const view: View = {
      agentId,
      entries: [...entries("own", own), ...entries("team", team)],
      sizes: { own: own.files[0]?.size ?? 0, team: team.files[0]?.size ?? 0 },
      limits: {
        entry: settings.entryMax,
        memory: settings.memoryMax,
        topic: settings.topicMax,
        topics: settings.topicsMax
      }
    }
    return view
  })

  const journal = Effect.fn("MemoryStore.journal")(function* (options?: { readonly limit?: number | undefined }) {
    return yield* look(
      (real) => Effect.flatMap(locate(real, Journal.journalName), (file) => Journal.read(file, options?.limit)),
      []
    )
  })

  const archive = Effect.fn("MemoryStore.archive")(function* (agentId: string, actor: Actor = { actor: "host" }) {
    const dir = Paths.scopeDir({ kind: "agent", agentId })
    return yield* change(({ real, journal }) =>
      Effect.gen(function* () {
        const from = yield* locate(real, dir)
        if ((yield* orMissing(fs.stat(from)).pipe(Effect.mapError(failure(dir, "find it")))) === undefined) {
          return yield* new MemoryWriteError({ file: dir, reason: "there is no memory folder to archive" })
        }
        const stamp = new Date(yield* Clock.currentTimeMillis).toISOString().replace(/[:.]/g, "-")
        let to = `archive/${Paths.agentDir(agentId)}-${stamp}`
        for (let n = 2; yield* fs.exists(path.join(real, to)).pipe(Effect.mapError(failure(to, "look for it"))); n++) {
          to = `archive/${Paths.agentDir(agentId)}-${stamp}-${n}`
        }
        const target = yield* locate(real, to)
        yield* fs
          .makeDirectory(path.dirname(target), { recursive: true })
          .pipe(Effect.mapError(failure("archive", "make it")))
        yield* fs.rename(from, target).pipe(Effect.mapError(failure(dir, `move it to ${to}`)))
        const time = yield* Clock.currentTimeMillis
        yield* Journal.append(journal, {
          version: 1,
          time,
          ...journalFields("archive", { kind: "agent", agentId }, actor),
          file: dir,
          after: to
        })
        return to
      })
    ).pipe(deniedAsWriteError(dir))
  })

  return MemoryStore.of({ load, add, replace, remove, archive, view, journal })
})

/** The memory store of one root. */
export class MemoryStore extends Context.Service<
  MemoryStore,
  {
    /** Reads a scope: MEMORY.md first (parsed empty when missing), then its topics by name. */
    readonly load: (scope: Scope) => Effect.Effect<ScopeView, MemoryWriteError>
    /** Adds an entry, unless the scope already holds the same text (white space folded, case ignored). */
    readonly add: (
      input: AddInput
    ) => Effect.Effect<Outcome, MemoryFull | TooManyTopics | Denied | BadTopic | MemoryWriteError>
    /** Replaces the entry `match` names with `text`, in its place. */
    readonly replace: (
      input: ReplaceInput
    ) => Effect.Effect<Outcome, NoMatch | MemoryFull | Denied | BadTopic | MemoryWriteError>
    /** Removes the entry `match` names; a topic left empty is deleted with its index link. */
    readonly remove: (input: RemoveInput) => Effect.Effect<Outcome, NoMatch | Denied | BadTopic | MemoryWriteError>
    /** Moves an agent's folder whole under `archive/`; gives the archive folder, relative to the root. */
    readonly archive: (agentId: string, actor?: Actor) => Effect.Effect<string, MemoryWriteError>
    /** Every entry an agent sees, its MEMORY.md sizes and the limits. */
    readonly view: (agentId: string) => Effect.Effect<View, MemoryWriteError>
    /** The journal's lines, newest last; the last `limit` when given. */
    readonly journal: (options?: {
      readonly limit?: number | undefined
    }) => Effect.Effect<ReadonlyArray<JournalLine>, MemoryWriteError>
  }
>()("@mneme/review/MemoryStore") {
  /** The store of the memory root `options.root`, over Effect's `FileSystem` and `Path`. */
  static readonly layer = (options: Options): Layer.Layer<MemoryStore, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(MemoryStore, make(options))
}

/** The store of the memory root `options.root`, over Effect's `FileSystem` and `Path`. */
export const layer = MemoryStore.layer
