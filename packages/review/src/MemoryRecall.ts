/**
 * Recall: searching an agent's own and team memory, every entry of both (topics included), or reading one topic whole,
 * over the memory store. The agent's `recall` tool and `mneme recall` both call this one implementation; the ranking
 * is `Recall.search` (pure): the entries that mean the most to the query first, each with its score, none that shares
 * nothing with it. A caller that recalls again and again holds `Indexes`, which keep each file's search index while the
 * file is unchanged.
 */
import { BadTopic, Entry, MemoryScope, NoSuchTopic, Recall, type StorageError, Topic } from "@mneme/core"
import { Clock, DateTime, Effect, Option } from "effect"
import * as Candidates from "./internal/candidates.ts"
import * as RecallIndex from "./internal/recallIndex.ts"
import { MemoryStore, type ScopeView, type ViewEntry } from "./MemoryStore.ts"

/** What to recall, and for which agent. */
export interface Input {
  readonly agentId: string
  /** The words to search for; none, or only white space, for every entry (or the whole topic). */
  readonly query?: string | undefined
  /** Only this topic's entries, in the order of its file unless a query ranks them; the topic must exist. */
  readonly topic?: string | undefined
  /** Only team memory, not the agent's own. */
  readonly teamOnly?: boolean | undefined
  /** Today's date (`YYYY-MM-DD`), which "last week" and "yesterday" in the query count from (`today`). */
  readonly today?: string | undefined
}

/** An entry recalled: where it is, its text, and its metadata, as the store's view gives an entry. */
export interface Found extends ViewEntry {
  /** How much it means to the query; 0 where no query ranked it (every entry, a topic read whole). */
  readonly score: number
}

/** What recall found. */
export interface Recalled {
  /** The entries given, best first (a topic read whole: in the order of its file). */
  readonly entries: ReadonlyArray<Found>
  /** Whether more entries match than the limits let in. */
  readonly more: boolean
  /** The topic read, its name cleaned; `undefined` for a search of all memory. */
  readonly topic: string | undefined
}

/** The search indexes of memory files kept between recalls, held by the caller that recalls again and again. */
export type Indexes = RecallIndex.Indexes

/** Indexes that keep none yet. */
export const indexes = (): Indexes => RecallIndex.make()

/** The files of a scope with the side they are of: MEMORY.md first, then its topics by name. */
const filesOf = (stored: ScopeView) => stored.files.map((file) => ({ side: MemoryScope.side(stored.scope), file }))

const found = (entry: Recall.Candidate, score = 0): Found => ({
  scope: entry.scope,
  topic: entry.topic,
  text: entry.text,
  added: Entry.metaValue(entry.meta, "added"),
  by: Entry.metaValue(entry.meta, "by"),
  source: Entry.metaValue(entry.meta, "source"),
  score
})

/** Today's date (`YYYY-MM-DD`) by the `Clock`, in `timeZone` (an IANA zone; UTC when it is none). */
export const today = (timeZone: string): Effect.Effect<string> =>
  Effect.map(Clock.currentTimeMillis, (millis) => {
    const now = DateTime.makeUnsafe(millis)
    const zone = DateTime.zoneMakeNamed(timeZone)
    return DateTime.formatIsoDate(Option.isSome(zone) ? DateTime.setZone(now, zone.value) : now)
  })

/** The topic name of a topic file's path (`agents/ada/travel.md` → `travel`). */
const topicOfPath = (file: string) => (file.split("/").pop() ?? "").slice(0, -".md".length)

/**
 * The topic `given` names in the scopes read: its cleaned name; BadTopic when it cannot be a topic name, NoSuchTopic
 * (with the topics there are) when no scope has it, the storage's error when its file could not be read.
 */
const topicIn = (
  given: string,
  scopes: ReadonlyArray<ScopeView>
): Effect.Effect<string, BadTopic | NoSuchTopic | StorageError> => {
  const name = Topic.clean(given)
  if (name === undefined) return Effect.fail(new BadTopic({ topic: given }))
  const unreadable = scopes.flatMap((scope) => scope.unreadable).find((file) => topicOfPath(file.file) === name)
  if (unreadable !== undefined) return Effect.fail(unreadable.error)
  const topics = new Set(
    scopes.flatMap((scope) => [
      ...scope.files.flatMap((file) => (file.topic === undefined ? [] : [file.topic])),
      ...scope.unreadable.map((file) => topicOfPath(file.file))
    ])
  )
  return topics.has(name)
    ? Effect.succeed(name)
    : Effect.fail(
        new NoSuchTopic({
          topic: name,
          where: scopes.map((scope) => scope.dir).join(" or "),
          topics: [...topics].toSorted()
        })
      )
}

/**
 * Recalls what `input` asks for: with a topic, that topic's entries (own and team, or team only), all of them in the
 * order of their file when there is no query; otherwise the entries of every file of both scopes relevant to the
 * query, best first, within `limits` (unlimited by default). `kept` are the indexes the caller holds (none given:
 * every file's index is built for this recall).
 */
export const recall = Effect.fn("MemoryRecall.recall")(function* (
  input: Input,
  limits: Recall.Limits = Recall.unlimited,
  kept: Indexes = indexes()
): Effect.fn.Return<Recalled, BadTopic | NoSuchTopic | StorageError, MemoryStore> {
  const store = yield* MemoryStore
  const wanted = input.teamOnly === true ? [MemoryScope.team] : [MemoryScope.own(input.agentId), MemoryScope.team]
  const scopes = yield* Effect.forEach(wanted, (scope) => store.load(scope), { concurrency: "unbounded" })
  const topic = input.topic === undefined ? undefined : yield* topicIn(input.topic, scopes)
  const all = scopes.flatMap(filesOf)
  const files = topic === undefined ? all : all.filter(({ file }) => file.topic === topic)
  const query = input.query ?? ""
  if (topic !== undefined && query.trim() === "") {
    return {
      entries: files.flatMap(({ side, file }) => Candidates.of(side, file).map((entry) => found(entry))),
      more: false,
      topic
    }
  }
  const indexed = files.map(({ side, file }) => RecallIndex.of(kept, side, file))
  const searched = Recall.search({ indexes: indexed }, query, limits, { today: input.today })
  return { entries: searched.entries.map((entry) => found(entry, entry.score)), more: searched.more, topic }
})
