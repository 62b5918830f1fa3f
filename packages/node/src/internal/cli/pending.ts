/**
 * `mneme pending`, `mneme approve N…`, `mneme reject N…`: the entries a review holds for a person (issue 28,
 * `MemoryConfig.approval`), the agent's own then the team's, numbered; an approved entry is written through the memory
 * store (vetted again: sizes, duplicates, secrets; journaled as the CLI's), a rejected one dropped (journaled too).
 * Pending entries are kept beside the memory, in a memory folder or in Postgres.
 */
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { MemoryPending, MemoryStore } from "@mneme/review"
import { Console, Effect, Layer } from "effect"
import { Argument, Command } from "effect/cli"
import * as Txt from "../text.ts"
import * as MemoryLocation from "./memoryLocation.ts"
import {
  Exit,
  ExitCode,
  limits,
  memoryLocation,
  memoryMustExist,
  mneme,
  output,
  print,
  printJson,
  UsageError
} from "./common.ts"

/** One pending entry as the commands number it. */
interface Numbered {
  readonly number: number
  readonly scope: MemoryScope.MemoryScope
  readonly entry: MemoryPending.Held
}

/** Runs `effect` over the store and the pending entries of the memory `--memory` names (a folder, or Postgres). */
const withPending = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const location = yield* memoryLocation
    yield* memoryMustExist(location)
    const root = MemoryLocation.rootLayer(location)
    const services = MemoryStore.layer.pipe(
      Layer.provideMerge(root),
      Layer.provideMerge(MemoryConfig.layer(yield* limits))
    )
    return yield* Effect.provide(effect, services)
  })

/** The agent's own pending entries, then the team's, numbered from 1. */
const numbered = Effect.gen(function* () {
  const global = yield* mneme
  const pending = yield* MemoryPending.MemoryPending
  const scopes = [MemoryScope.own(global.agent), MemoryScope.team]
  const lists = yield* Effect.forEach(scopes, (scope) =>
    Effect.map(pending.list(scope), (entries) => entries.map((entry) => ({ scope, entry })))
  )
  return lists.flat().map((item, i): Numbered => ({ number: i + 1, ...item }))
})

const asJson = ({ number, scope, entry }: Numbered) => ({
  number,
  scope: MemoryScope.side(scope),
  text: entry.text,
  topic: entry.topic ?? null,
  source: entry.source,
  by: entry.by ?? null,
  why: entry.why,
  at: new Date(entry.at).toISOString()
})

export const pending = Command.make(
  "pending",
  {},
  Effect.fn("mneme.pending")(function* () {
    const out = yield* output
    const list = yield* numbered
    if (out.json) return yield* printJson({ pending: list.map(asJson) })
    const p = out.paint
    if (list.length === 0) return yield* print([p.dim("nothing waits for a person")])
    yield* print([
      ...list.flatMap(({ number, scope, entry }) => [
        `${number}. ${JSON.stringify(entry.text)}`,
        p.dim(
          `   ${MemoryScope.side(scope)}${entry.topic === undefined ? "" : `, topic ${entry.topic}`}, from ${entry.source}: ${entry.why}`
        )
      ]),
      p.dim(`approve with mneme approve N…, drop with mneme reject N…`)
    ])
  }, withPending)
).pipe(
  Command.withDescription(
    "List the entries a review holds for a person (the agent's own, then the team's), numbered, with why each waits"
  )
)

const numbersArgument = Argument.Int("N").pipe(
  Argument.withDescription("The numbers mneme pending gives the entries"),
  Argument.variadic({ min: 1 })
)

/** The entries the numbers name, or a usage error naming those that name none (nothing is changed then). */
const chosen = Effect.fnUntraced(function* (numbers: ReadonlyArray<number>) {
  const list = yield* numbered
  const unknown = numbers.filter((n) => !list.some((item) => item.number === n))
  if (unknown.length > 0) {
    return yield* new UsageError({
      reason: `no pending entry ${unknown.join(", ")}: mneme pending lists ${Txt.plural(list.length, "entry", "entries")}; nothing was changed`
    })
  }
  return list.filter((item) => numbers.includes(item.number))
})

/** Prints what was decided; an entry still pending makes the run fail (exit 1) once all are printed. */
const report = Effect.fnUntraced(function* (
  decided: ReadonlyArray<{ readonly item: Numbered; readonly result: MemoryPending.Decided }>
) {
  const out = yield* output
  if (out.json) {
    yield* printJson({
      decided: decided.map(({ item, result }) => ({ ...asJson(item), done: result.done, message: result.message }))
    })
  } else yield* print(decided.map(({ item, result }) => `${item.number}. ${result.message}`))
  const left = decided.filter(({ result }) => !result.done)
  if (left.length === 0) return
  yield* Console.error(
    `mneme: ${Txt.plural(left.length, "entry stays", "entries stay")} pending: ${left[0]!.result.message}`
  )
  return yield* new Exit({ code: ExitCode.failed })
})

/** Decides the chosen entries scope by scope, in the order they are numbered. */
const decide = Effect.fnUntraced(function* (
  numbers: ReadonlyArray<number>,
  each: (
    scope: MemoryScope.MemoryScope,
    entries: ReadonlyArray<MemoryPending.Held>
  ) => Effect.Effect<ReadonlyArray<MemoryPending.Decided>, unknown>
) {
  const items = yield* chosen(numbers)
  const decided: Array<{ readonly item: Numbered; readonly result: MemoryPending.Decided }> = []
  for (const side of ["own", "team"] as const) {
    const ofScope = items.filter((item) => MemoryScope.side(item.scope) === side)
    if (ofScope.length === 0) continue
    const results = yield* each(
      ofScope[0]!.scope,
      ofScope.map((item) => item.entry)
    )
    ofScope.forEach((item, i) => decided.push({ item, result: results[i]! }))
  }
  yield* report(decided)
})

export const approve = Command.make(
  "approve",
  { numbers: numbersArgument },
  Effect.fn("mneme.approve")(function* (input) {
    const store = yield* MemoryStore.MemoryStore
    const held = yield* MemoryPending.MemoryPending
    yield* decide(input.numbers, (scope, entries) => MemoryPending.approve(store, held, scope, entries, "cli"))
  }, withPending)
).pipe(
  Command.withDescription(
    "Write the pending entries numbered N… to memory, vetted again (sizes, duplicates, secrets) and journaled"
  )
)

export const reject = Command.make(
  "reject",
  { numbers: numbersArgument },
  Effect.fn("mneme.reject")(function* (input) {
    const held = yield* MemoryPending.MemoryPending
    yield* decide(input.numbers, (scope, entries) => MemoryPending.reject(held, scope, entries, "cli"))
  }, withPending)
).pipe(Command.withDescription("Drop the pending entries numbered N…, writing nothing to memory"))
