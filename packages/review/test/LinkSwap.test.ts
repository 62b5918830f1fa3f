/**
 * A link swapped in at any step of a write: before each call of the file system a change makes, in turn, an agent's
 * folder `agents/x` is moved away and a symbolic link to a folder outside the root put in its place. Whatever the
 * step, nothing outside the root changes, and a change that does not land fails with `OutsideRoot` naming the folder
 * and where the link leads, its journal line taken back and the memory it had kept.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope, type StorageError } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect, Exit, FileSystem, Path, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { renameSync, symlinkSync } from "node:fs"
import { listing, tempRoot } from "./fixtures/kit.ts"
import { type Before, type Step, steppedServices } from "./fixtures/steps.ts"
import { storeLayer } from "./fixtures/store.ts"

type Store = MemoryStore.MemoryStore["Service"]

const x = MemoryScope.own("x")
const noon = Date.UTC(2026, 10, 6, 12)
const settings: Partial<MemoryConfig.Settings> = { timeZone: "UTC" }

const store = <A, E>(root: string, body: (store: Store) => Effect.Effect<A, E>, before?: Before, steps?: Array<Step>) =>
  MemoryStore.MemoryStore.use(body).pipe(
    Effect.provide(storeLayer(root, { settings })),
    Effect.provide(before === undefined ? NodeServices.layer : steppedServices(before, steps))
  )

/** A test on the real file system, with the test clock at noon UTC on 2026-11-06. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  it.effect(name, () => TestClock.setTime(noon).pipe(Effect.andThen(body), Effect.provide(NodeServices.layer)))

/** Every file under `folder` with its text. */
const snapshot = (folder: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* listing(folder)
    return yield* Effect.forEach(names, (name) =>
      Effect.map(
        Effect.flatMap(fs.stat(`${folder}/${name}`), (info) =>
          info.type === "File" ? fs.readFileString(`${folder}/${name}`) : Effect.succeed("(folder)")
        ),
        (text) => `${name}: ${text}`
      )
    )
  })

const changes: ReadonlyArray<readonly [string, (store: Store) => Effect.Effect<unknown, unknown>]> = [
  ["an add to MEMORY.md", (store) => store.add({ scope: x, text: "swapped", actor: "t" })],
  ["an add to a new topic", (store) => store.add({ scope: x, topic: "pets", text: "a cat", actor: "t" })],
  ["a remove that deletes a topic", (store) => store.remove({ scope: x, topic: "art", match: "paints", actor: "t" })]
]

describe("a link swapped in for a folder at any step of a write", () => {
  for (const [name, change] of changes) {
    test(`${name}: nothing outside the root changes, and a refused write says why`, () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        /** A root with Ada's memory in `agents/x`, and a folder outside it that looks the same. */
        const setUp = Effect.gen(function* () {
          const base = yield* tempRoot
          const root = `${base}/root`
          yield* store(root, (store) =>
            Effect.andThen(
              store.add({ scope: x, text: "kept", actor: "t" }),
              store.add({ scope: x, topic: "art", text: "the user paints", actor: "t" })
            )
          )
          yield* fs.makeDirectory(`${base}/outside/x`, { recursive: true })
          for (const file of ["MEMORY.md", "art.md", "pets.md"]) {
            yield* fs.writeFileString(`${base}/outside/x/${file}`, `outside ${file}\n`)
          }
          return { base, root, outside: `${base}/outside` }
        })
        const clean = yield* setUp
        const steps: Array<Step> = []
        yield* store(clean.root, change, () => Effect.void, steps)
        assert.isAbove(steps.length, 10)
        for (let at = 1; at <= steps.length; at++) {
          const { base, root, outside } = yield* setUp
          const where = `swapped before step ${at} (${steps[at - 1]!.call} ${steps[at - 1]!.path})`
          const outsideBefore = yield* snapshot(outside)
          const kept = yield* snapshot(`${root}/agents/x`)
          const journalBefore = yield* fs.readFileString(`${root}/journal.jsonl`)
          const swap: Before = ({ step }) =>
            step === at
              ? Effect.sync(() => {
                  renameSync(`${root}/agents/x`, `${base}/moved-x`)
                  symlinkSync(`${outside}/x`, `${root}/agents/x`)
                })
              : Effect.void
          const exit = yield* Effect.exit(store(root, change, swap))
          assert.deepStrictEqual(yield* snapshot(outside), outsideBefore, where)
          if (Exit.isFailure(exit)) {
            const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error as StorageError
            assert.strictEqual(error?._tag, "StorageError", where)
            assert.strictEqual(error.reason._tag, "OutsideRoot", where)
            assert.strictEqual(
              error.message,
              `agents/x leads through a link to ${outside}/x, outside the memory root; nothing there is read or written`,
              where
            )
            // No file is lost where the memory was moved: each is there, as it was or as the change had put it there
            // before the link came (a file being removed then is there as it was set aside, `.<name>.<…>.removed`; a
            // temporary file may be there too).
            const memory = (yield* snapshot(`${base}/moved-x`))
              .map((line) => line.replace(/^\.([^.]+\.md)\.[^:]*\.removed:/, "$1:"))
              .filter((line) => !line.startsWith("."))
              .sort()
            const names = (lines: ReadonlyArray<string>) => lines.map((line) => line.slice(0, line.indexOf(":")))
            for (const name of names(kept)) assert.include(names(memory), name, where)
            assert.strictEqual(yield* fs.readFileString(`${root}/journal.jsonl`), journalBefore, where)
          }
        }
      }))
  }
})
