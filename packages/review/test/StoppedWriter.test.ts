/**
 * A writer of the files backend stopped at any step, as a kill would stop it (every call of its file system fails from
 * that step on, so nothing it does after reaches the disk), and then a new store over the same folder, as the next
 * process: the lock it leaves is whole or none, and the journal names exactly the changes the files hold, so `undo`
 * works.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect, FileSystem, Option, Path, Schema, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { tempRoot } from "./fixtures/kit.ts"
import { type Before, type Step, steppedServices, stopAt } from "./fixtures/steps.ts"
import { storeLayer } from "./fixtures/store.ts"

type Store = MemoryStore.MemoryStore["Service"]

const own = MemoryScope.own("ada")
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

/** The files a change of Ada's memory may touch. */
const files = ["agents/ada/MEMORY.md", "agents/ada/pets.md"] as const

/** What each of `files` holds (`undefined` when it is not there). */
const contents = (root: string) =>
  Effect.forEach(files, (file) =>
    Effect.map(FileSystem.FileSystem, (fs) => fs).pipe(
      Effect.flatMap((fs) => Effect.option(fs.readFileString(`${root}/${file}`))),
      Effect.map(Option.getOrUndefined)
    )
  )

/** The lines of a file's text, in order of their text. */
const lineSet = (text: string | undefined) => text?.split("\n").toSorted()

const changes: ReadonlyArray<readonly [string, (store: Store) => Effect.Effect<unknown, unknown>]> = [
  ["an add to MEMORY.md", (store) => store.add({ scope: own, text: "stopped", actor: "t" })],
  [
    "an add to a new topic (the topic and its link in MEMORY.md)",
    (store) => store.add({ scope: own, topic: "pets", text: "a cat", actor: "t" })
  ],
  ["a remove", (store) => store.remove({ scope: own, match: "before", actor: "t" })]
]

describe("the journal", () => {
  for (const [name, change] of changes) {
    test(`${name} stopped at any step: the next process's journal names what the files hold, and undo works`, () =>
      Effect.gen(function* () {
        const seed = (root: string) =>
          next(root, (store) =>
            Effect.andThen(
              store.add({ scope: own, text: "before", actor: "t" }),
              store.add({ scope: own, text: "kept", actor: "t" })
            )
          )
        const steps = yield* stepsOf(seed, change)
        for (let at = 1; at <= steps.length; at++) {
          const where = `stopped at step ${at} (${steps[at - 1]!.call} ${steps[at - 1]!.path})`
          const root = yield* tempRoot
          yield* seed(root)
          const seeded = (yield* next(root, (store) => store.journal())).length
          const before = yield* contents(root)
          yield* Effect.exit(stoppedAt(root, stopAt(at), change))
          const after = yield* contents(root)
          // Read as the next process sees it (the stopped writer's lock still there), then after its first write.
          const shown = (yield* next(root, (store) => store.journal())).slice(seeded)
          files.forEach((file, i) => {
            const changed = before[i] !== after[i]
            const journaled = shown.some((line) => line.file === file)
            assert.strictEqual(journaled, changed, `${where}: ${file} changed ${changed}, journaled ${journaled}`)
          })
          const undone = yield* next(root, (store) => store.undo({ scope: own, actor: "t" }))
          assert.isTrue(undone.length === 1 && undone[0]!.changed, where)
          const journal = yield* next(root, (store) => store.journal())
          assert.deepStrictEqual(
            journal
              .slice(seeded)
              .filter((line) => line.op !== "undo")
              .map((line) => line.file),
            shown.map((line) => line.file),
            where
          )
          // Undone, the change leaves the files with the lines they had (an entry given back may come back elsewhere).
          if (shown.length > 0) assert.deepStrictEqual((yield* contents(root)).map(lineSet), before.map(lineSet), where)
        }
      }))
  }
})
