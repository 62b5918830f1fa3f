/**
 * `mneme remember`, `edit`, `forget`, `purge` and `recall`: add, replace, remove and search entries of the agent's or
 * the team's memory; `forget --purge` and `purge --conversation` also erase the text from the journal and the review
 * state. A match that names nothing where it was looked for says where else in memory it would name one.
 * `recall` is `MemoryRecall`, the search the agent's `recall` tool makes, with no limit on what it shows.
 */
import { Match, MemoryConfig, MemoryScope, NoMatch, Topic } from "@mneme/core"
import { MemoryRecall, MemoryStore } from "@mneme/review"
import { Effect, Option, Result } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Txt from "../text.ts"
import {
  mneme,
  output,
  print,
  printJson,
  switchFlag,
  target,
  textArgument,
  textFlag,
  whereFlags,
  withMemory,
  withMemoryToRead
} from "./common.ts"

/** Prints a store outcome: its message, or the outcome as JSON. */
const printOutcome = Effect.fnUntraced(function* (outcome: MemoryStore.Outcome) {
  const out = yield* output
  if (out.json) return yield* printJson(outcome)
  yield* print([outcome.changed ? outcome.message : out.paint.dim(outcome.message)])
})

export const remember = Command.make(
  "remember",
  {
    text: textArgument("text").pipe(Argument.withDescription("The fact to keep")),
    ...whereFlags
  },
  Effect.fn("mneme.remember")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    yield* printOutcome(yield* store.add({ ...(yield* target(input)), text: input.text }))
  }, withMemory)
).pipe(Command.withDescription("Add an entry (nothing changes if memory already holds it)"))

// ---------------------------------------------------------------------------------------------------------------------
// A match found elsewhere

/** Which file of memory: the team's or the agent's own, and a topic (`undefined` for MEMORY.md). */
interface Where {
  readonly team: boolean
  readonly topic: string | undefined
}

/** How to name the file `to` instead of `from`, in flags: `with --team`, `with --topic tea`, `without --team`. */
const flagsFor = (to: Where, from: Where): string => {
  const add: Array<string> = []
  const drop: Array<string> = []
  if (to.team !== from.team) (to.team ? add : drop).push("--team")
  if (to.topic === undefined && from.topic !== undefined) drop.push("--topic")
  if (to.topic !== undefined && to.topic !== from.topic) add.push(`--topic ${to.topic}`)
  return [add.length > 0 ? `with ${add.join(" ")}` : "", drop.length > 0 ? `without ${drop.join(" and ")}` : ""]
    .filter((part) => part !== "")
    .join(" and ")
}

/** NoMatch where a match names nothing in the file it was looked for in, with the other files where it would. */
class NoMatchHere extends NoMatch {
  elsewhere: ReadonlyArray<{ readonly file: string; readonly flags: string }> = []
  override get message() {
    const [first, ...more] = this.elsewhere
    if (first === undefined) return super.message
    return more.length === 0
      ? `${super.message}, but ${first.file} does: run it again ${first.flags}`
      : `${super.message}, but these do: ${this.elsewhere.map((place) => `${place.file} (${place.flags})`).join(", ")}`
  }
}

/** What `edit` and `forget` were given: the match and the flags that say which file. */
interface MatchInput {
  readonly match: string
  readonly team: boolean
  readonly topic: Option.Option<string>
}

/** The most other files a NoMatch names. */
const elsewhereMax = 4

/**
 * A change by `match` that found no entry, as NoMatch naming the other files of the agent's own and team memory
 * where the match would name one (the team's for `forget` in the agent's own, say); the error as it was otherwise.
 */
const orElsewhere =
  (input: MatchInput) =>
  <A, E, R>(change: Effect.Effect<A, E, R>) =>
    change.pipe(
      Effect.catchIf(
        (error): error is E & NoMatch => error instanceof NoMatch,
        (error) => elsewhere(input, error)
      )
    )

/** NoMatch for `input` with the other files where its match names an entry, or `error` as it is. */
const elsewhere = (input: MatchInput, error: NoMatch) =>
  Effect.gen(function* () {
    if (error.candidates.length > 0) return yield* error
    const global = yield* mneme
    const store = yield* MemoryStore.MemoryStore
    const given: Where = {
      team: input.team,
      topic: Option.getOrUndefined(Option.map(input.topic, (name) => Topic.clean(name) ?? name))
    }
    const places: Array<{ readonly file: string; readonly flags: string }> = []
    for (const scope of [MemoryScope.own(global.agent), MemoryScope.team]) {
      const stored = yield* store.load(scope)
      for (const file of stored.files) {
        const here: Where = { team: scope.kind === "team", topic: file.topic }
        if (here.team === given.team && here.topic === given.topic) continue
        const found = Match.find(file.parsed.entries, input.match)
        if (Result.isSuccess(found) || found.failure.length > 0) {
          places.push({ file: file.file, flags: flagsFor(here, given) })
        }
      }
    }
    if (places.length === 0) return yield* error
    const found = new NoMatchHere({ file: error.file, match: error.match, candidates: error.candidates })
    found.elsewhere = places.slice(0, elsewhereMax)
    return yield* found
  }).pipe(Effect.catchTag("StorageError", () => Effect.fail(error)))

export const edit = Command.make(
  "edit",
  {
    match: textArgument("match").pipe(Argument.withDescription("The entry's text, or a part only it contains")),
    text: textArgument("text").pipe(Argument.withDescription("The entry's new text")),
    ...whereFlags
  },
  Effect.fn("mneme.edit")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    const outcome = yield* store
      .replace({ ...(yield* target(input)), match: input.match, text: input.text })
      .pipe(orElsewhere(input))
    yield* printOutcome(outcome)
  }, withMemory)
).pipe(Command.withDescription("Replace the one entry that matches with a new text, in its place"))

export const forget = Command.make(
  "forget",
  {
    match: textArgument("match").pipe(Argument.withDescription("The entry's text, or a part only it contains")),
    ...whereFlags,
    purge: switchFlag("purge", "Also erase its text from the journal's history and the review state (no undo)")
  },
  Effect.fn("mneme.forget")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    if (input.purge) {
      const where = yield* target(input)
      return yield* printPurge(yield* store.purge({ ...where, match: input.match }).pipe(orElsewhere(input)))
    }
    yield* printOutcome(yield* store.remove({ ...(yield* target(input)), match: input.match }).pipe(orElsewhere(input)))
  }, withMemory)
).pipe(
  Command.withDescription(
    "Remove the one entry that matches; with --purge, also erase its text from the journal and the review state"
  )
)

/** Prints what a purge did: its message, or the outcome as JSON. */
const printPurge = Effect.fnUntraced(function* (outcome: MemoryStore.PurgeOutcome) {
  const out = yield* output
  if (out.json) return yield* printJson(outcome)
  yield* print([outcome.entries > 0 ? outcome.message : out.paint.dim(outcome.message)])
})

export const purge = Command.make(
  "purge",
  {
    conversation: textFlag("conversation").pipe(
      Flag.withDescription("The conversation whose entries to purge: those whose sources all lie in it"),
      Flag.withMetavar("ID")
    )
  },
  Effect.fn("mneme.purge")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    yield* printPurge(yield* store.purge({ conversation: input.conversation, actor: "cli" }))
  }, withMemory)
).pipe(
  Command.withDescription(
    "Remove every entry (every agent's and the team's) whose sources all lie in a conversation, " +
      "and erase their text from the journal and the review state; no undo brings it back"
  )
)

// ---------------------------------------------------------------------------------------------------------------------
// recall

export const recall = Command.make(
  "recall",
  {
    query: textArgument("words").pipe(
      Argument.withDescription("Words to search for, no quotes needed: the entries that matter most to them first"),
      Argument.variadic()
    ),
    topic: textFlag("topic").pipe(
      Flag.withDescription("Only the entries of this topic (it must exist)"),
      Flag.withMetavar("T"),
      Flag.optional
    ),
    team: switchFlag("team", "Only team memory, not the agent's own")
  },
  Effect.fn("mneme.recall")(function* (input) {
    const global = yield* mneme
    const out = yield* output
    const { timeZone } = yield* MemoryConfig.MemoryConfig
    const { entries } = yield* MemoryRecall.recall({
      agentId: global.agent,
      query: input.query.join(" "),
      topic: Option.getOrUndefined(input.topic),
      teamOnly: input.team,
      today: yield* MemoryRecall.today(timeZone)
    })
    if (out.json) {
      return yield* printJson({
        agent: global.agent,
        entries: entries.map((entry) => ({
          scope: entry.scope,
          topic: entry.topic ?? null,
          text: entry.text,
          added: entry.added ?? null,
          by: entry.by ?? null,
          source: entry.source ?? null,
          score: entry.score === 0 ? null : Math.round(entry.score * 100) / 100
        }))
      })
    }
    const p = out.paint
    if (entries.length === 0) return yield* print([p.dim("no entry matches")])
    yield* print(
      Txt.table(
        entries.map((entry) => [
          entry.scope,
          entry.topic ?? "-",
          entry.text + (entry.source === undefined ? "" : p.dim(`  [source: ${entry.source}]`))
        ]),
        ""
      )
    )
  }, withMemoryToRead)
).pipe(
  Command.withDescription(
    "Search the agent's own and team memory for words, the most related entries first (only team memory with " +
      "--team), or read one topic"
  )
)
