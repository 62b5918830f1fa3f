/**
 * A writer of the files backend stopped at any step, as a kill would stop it (every call of its file system fails from
 * that step on, so nothing it does after reaches the disk), and then a new store over the same folder, as the next
 * process: the lock it leaves is whole or none, and the journal names exactly the changes the files hold, so `undo`
 * works.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, Scope as Scopes } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect, FileSystem, Option, Path, Schema, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { tempRoot } from "./fixtures/kit.ts"
import { type Before, type Step, steppedServices, stopAt } from "./fixtures/steps.ts"
import { storeLayer } from "./fixtures/store.ts"

type Store = MemoryStore.MemoryStore["Service"]

const own = Scopes.own("ada")
const noon = Date.UTC(2026, 10, 6, 12)
const settings: Partial<MemoryConfig.Settings> = { timeZone: "UTC" }

/** The stopped writer, process 4242 (alive only while it runs). */
const stoppedAt = <A, E>(
  root: string,
  before: Before,
  body: (store: Store) => Effect.Effect<A, E>,
  steps?: Array<Step>
) =>
  MemoryStore.MemoryStore.use(body).pipe(
    Effect.provide(storeLayer(root, { settings })),
    Effect.provide(steppedServices(before, steps))
  )

/** The next process, 4343, which sees 4242 gone. */
const next = <A, E>(root: string, body: (store: Store) => Effect.Effect<A, E>) =>
  MemoryStore.MemoryStore.use(body).pipe(
    Effect.provide(storeLayer(root, { settings, platform: { processId: 4343, alive: [4343] } }))
  )

const LockContent = Schema.fromJsonString(
  Schema.Struct({ pid: Schema.Number, host: Schema.String, token: Schema.String })
)

/** A test on the real file system, with the test clock at noon UTC on 2026-11-06. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  it.effect(name, () => TestClock.setTime(noon).pipe(Effect.andThen(body), Effect.provide(NodeServices.layer)))

/** The steps of a change run to its end over a root holding what `seed` wrote. */
const stepsOf = (
  seed: (root: string) => Effect.Effect<unknown, unknown, FileSystem.FileSystem | Path.Path>,
  change: (store: Store) => Effect.Effect<unknown, unknown>
) =>
  Effect.gen(function* () {
    const root = yield* tempRoot
    yield* seed(root)
    const steps: Array<Step> = []
    yield* stoppedAt(root, () => Effect.void, change, steps)
    return steps
  })

describe("the lock", () => {
  test("a writer stopped at any step leaves no lock or a whole one, and the next process takes it over", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const seed = (root: string) => next(root, (store) => store.add({ scope: own, text: "before", actor: "t" }))
      const change = (store: Store) => store.add({ scope: own, text: "stopped", actor: "t" })
      const steps = yield* stepsOf(seed, change)
      assert.isTrue(steps.some((step) => step.call === "link" && step.path.endsWith("/.lock")))
      for (let at = 1; at <= steps.length; at++) {
        const root = yield* tempRoot
        yield* seed(root)
        yield* Effect.exit(stoppedAt(root, stopAt(at), change))
        const lock = yield* Effect.option(fs.readFileString(`${root}/.lock`))
        if (Option.isSome(lock)) {
          const owner = Schema.decodeUnknownOption(LockContent)(lock.value)
          assert.isTrue(
            Option.isSome(owner),
            `step ${at} (${steps[at - 1]!.call}) left the lock ${JSON.stringify(lock.value)}`
          )
        }
        yield* next(root, (store) => store.add({ scope: own, text: "after", actor: "t" }))
        assert.deepStrictEqual(
          (yield* fs.readDirectory(root)).filter((name) => name.startsWith(".lock")),
          [],
          `step ${at}`
        )
      }
    }))
})
