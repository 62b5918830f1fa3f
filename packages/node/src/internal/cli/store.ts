/** `mneme remember`, `forget` and `recall`: add, remove and search entries of the agent's or the team's memory. */
import { Text, Topic } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import * as Txt from "../text.ts"
import { mneme, output, print, printJson, withMemory, whereFlags, target, textArgument, topicFlag } from "./common.ts"

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

export const forget = Command.make(
  "forget",
  {
    match: textArgument("match").pipe(Argument.withDescription("The entry's text, or a part only it contains")),
    ...whereFlags
  },
  Effect.fn("mneme.forget")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    yield* printOutcome(yield* store.remove({ ...(yield* target(input)), match: input.match }))
  }, withMemory)
).pipe(Command.withDescription("Remove the one entry that matches"))

export const recall = Command.make(
  "recall",
  {
    query: textArgument("query").pipe(Argument.withDescription("Words every entry shown must hold"), Argument.optional),
    topic: topicFlag
  },
  Effect.fn("mneme.recall")(function* (input) {
    const global = yield* mneme
    const out = yield* output
    const store = yield* MemoryStore.MemoryStore
    const view = yield* store.view(global.agent)
    const topic = Option.map(input.topic, (name) => Topic.clean(name) ?? name)
    const words = Option.match(input.query, { onNone: () => [], onSome: (query) => Text.sameKey(query).split(" ") })
    const entries = view.entries.filter(
      (entry) =>
        Option.match(topic, { onNone: () => true, onSome: (name) => entry.topic === name }) &&
        words.every((word) => Text.sameKey(entry.text).includes(word))
    )
    if (out.json) {
      return yield* printJson({
        agent: global.agent,
        entries: entries.map((entry) => ({
          scope: entry.scope,
          topic: entry.topic ?? null,
          text: entry.text,
          added: entry.added ?? null,
          by: entry.by ?? null,
          source: entry.source ?? null
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
  }, withMemory)
).pipe(Command.withDescription("Search every entry for words, or read one topic"))
