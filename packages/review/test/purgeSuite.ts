/**
 * Forgetting that erases, over any backend of the storage port: `purgeSuite(backend)` purges entries by a match and by
 * a conversation, then looks through everything the backend stores (every file under the root, every row of the
 * schema) for the purged texts, and finds none; the purge is journaled without text, and no undo brings it back.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { MemoryRoot, MemoryStore, Purge } from "@mneme/review"
import { Effect, Layer, type Scope } from "effect"

/** A backend of the storage port, as the suite uses it. */
export interface Backend {
  readonly name: string
  /** A new, empty memory root, taken away when the test's scope closes, and everything it stores as one text. */
  readonly fresh: Effect.Effect<
    {
      readonly layer: Layer.Layer<MemoryRoot.MemoryRoot, unknown>
      readonly everything: Effect.Effect<string, unknown>
    },
    unknown,
    Scope.Scope
  >
}

type Store = MemoryStore.MemoryStore["Service"]
type Port = MemoryRoot.MemoryRoot["Service"]

const own = MemoryScope.own("ada")
const team = MemoryScope.team
const person = { actor: "person" } as const

/** Runs `body` with a store and the port over `root` (a new instance each time), in UTC. */
const at = <A, E, E2>(
  root: Layer.Layer<MemoryRoot.MemoryRoot, E2>,
  body: (store: Store, port: Port) => Effect.Effect<A, E>
) =>
  Effect.flatMap(Effect.all([MemoryStore.MemoryStore, MemoryRoot.MemoryRoot]), ([store, port]) =>
    body(store, port)
  ).pipe(
    Effect.provide(
      MemoryStore.layer.pipe(Layer.provideMerge(root), Layer.provide(MemoryConfig.layer({ timeZone: "UTC" })))
    )
  )

/** The texts of every entry a scope holds. */
const entries = (store: Store, scope: MemoryScope.MemoryScope) =>
  Effect.map(store.load(scope), (view) => view.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text)))

export const purgeSuite = (backend: Backend) =>
  describe(`forgetting that erases (${backend.name})`, () => {
    it.effect(
      "a purge by match erases the entry, its earlier version and a review's reason; the purge is kept without text",
      () =>
        Effect.gen(function* () {
          const { layer, everything } = yield* backend.fresh
          yield* at(layer, (store, port) =>
            Effect.gen(function* () {
              yield* store.add({ scope: own, text: "Marco drinks jasmine tea", ...person })
              yield* store.replace({ scope: own, match: "jasmine", text: "Marco drinks jasmine tea daily", ...person })
              yield* store.add({ scope: own, text: "Ada writes Rust", ...person })
              yield* port.updateState((state) => ({
                ...state,
                lastReviews: { ada: { at: 1, ok: false, reason: "MemoryFull: Marco drinks jasmine tea daily" } }
              }))
              const before = yield* everything
              assert.include(before, "Marco drinks jasmine tea daily")

              const outcome = yield* store.purge({ scope: own, match: "jasmine", ...person })
              assert.strictEqual(outcome.entries, 1)
              assert.strictEqual(outcome.erased, 2)
              assert.deepStrictEqual(yield* entries(store, own), ["Ada writes Rust"])
              const stored = yield* everything
              assert.notInclude(stored, "jasmine")
              assert.include(stored, "Ada writes Rust")

              const lines = yield* store.journal()
              const purge = lines.at(-1)!
              assert.strictEqual(purge.op, "purge")
              assert.strictEqual(purge.actor, "person")
              assert.strictEqual(purge.entries, 1)
              assert.isUndefined(purge.before)
              assert.isUndefined(purge.after)
              assert.deepStrictEqual(
                lines.map((line) => line.purged === true),
                [true, true, false, false]
              )
              assert.strictEqual((yield* port.readState).lastReviews["ada"]?.reason, Purge.erasedText)

              const undone = yield* Effect.flip(store.undo({ scope: own, ...person }))
              assert.strictEqual(undone._tag, "NotUndoable")
              assert.include(undone.message, "a purge erased its text for good")
              const byId = yield* Effect.flip(store.undo({ scope: own, id: lines[0]!.id!, ...person }))
              assert.strictEqual(byId._tag, "NotUndoable")
              assert.include(byId.message, "nothing can bring it back")
              assert.deepStrictEqual(yield* entries(store, own), ["Ada writes Rust"])
              assert.notInclude(yield* everything, "jasmine")
            })
          )
        })
    )

    it.effect("a purge of a conversation takes every entry whose sources all lie in it, in every scope", () =>
      Effect.gen(function* () {
        const { layer, everything } = yield* backend.fresh
        yield* at(layer, (store) =>
          Effect.gen(function* () {
            const source = (value: string) => [["source", value]] as const
            yield* store.add({ scope: own, text: "Marco is a backend developer", meta: source("chat-1 #3"), ...person })
            yield* store.add({ scope: own, text: "Marco likes Go", meta: source("chat-1 #4, chat-2 #1"), ...person })
            yield* store.add({ scope: own, text: "Ada reviews on Fridays", meta: source("chat-2 #5"), ...person })
            yield* store.add({ scope: own, text: "Ada keeps notes", ...person })
            yield* store.add({
              scope: team,
              topic: "deploys",
              text: "Deploys freeze on quartz days",
              meta: source("chat-1 #9"),
              ...person
            })
            yield* store.add({ scope: team, text: "The team ships weekly", meta: source("chat-10 #1"), ...person })

            const outcome = yield* store.purge({ conversation: "chat-1", ...person })
            assert.strictEqual(outcome.entries, 2)
            assert.deepStrictEqual(yield* entries(store, own), [
              "Marco likes Go",
              "Ada reviews on Fridays",
              "Ada keeps notes"
            ])
            assert.deepStrictEqual(yield* entries(store, team), ["The team ships weekly"])
            const stored = yield* everything
            assert.notInclude(stored, "backend developer")
            assert.notInclude(stored, "quartz")
            assert.include(stored, "Marco likes Go")
            const purges = (yield* store.journal()).filter((line) => line.op === "purge")
            assert.deepStrictEqual(
              purges.map((line) => line.entries),
              [1, 1]
            )
          })
        )
      })
    )

    it.effect("a purge whose match names no entry fails with NoMatch and changes nothing", () =>
      Effect.gen(function* () {
        const { layer } = yield* backend.fresh
        yield* at(layer, (store) =>
          Effect.gen(function* () {
            yield* store.add({ scope: own, text: "Ada writes Rust", ...person })
            const error = yield* Effect.flip(store.purge({ scope: own, match: "jasmine", ...person }))
            assert.strictEqual(error._tag, "NoMatch")
            assert.include(error.message, "jasmine")
            assert.deepStrictEqual(yield* entries(store, own), ["Ada writes Rust"])
            assert.deepStrictEqual(
              (yield* store.journal()).map((line) => [line.op, line.after]),
              [["add", (yield* store.journal())[0]!.after]]
            )
            assert.isUndefined((yield* store.journal())[0]!.purged)
          })
        )
      })
    )
  })
