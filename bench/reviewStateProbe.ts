/**
 * One process of the review-state suite (`reviewState.ts`), started as a CLI review would be: it opens a memory root
 * (`files DIR` or `postgres SCHEMA` of the test database) and does one of:
 *
 * - `review KEY AGENT`: the review state's lookups and changes of one review of the conversation `KEY` (its cursor,
 *   failure record and the agent's last review, the commit recording it, checked against the cursor read, and the
 *   failure record cleared);
 * - `whole`: one read of the whole state (what every lookup did before they were made by key);
 * - `idle`: nothing, for the memory of a process that has only opened the root.
 *
 * It prints `{"ms": …, "maxRssMb": …}`: the time of those steps, and the process's peak resident memory.
 */
import { NodeServices } from "@effect/platform-node"
import { NodePlatform } from "@mneme/node"
import { FileRoot, MemoryRoot, ReviewState } from "@mneme/review"
import { PostgresRoot } from "@mneme/sql"
import { Clock, Effect, Layer } from "effect"
import { rootOptions } from "../packages/sql/test/fixtures/postgres.ts"

const [backend = "", location = "", mode = "", key = "", agent = ""] = process.argv.slice(2)

const root: Layer.Layer<MemoryRoot.MemoryRoot, unknown> =
  backend === "files"
    ? FileRoot.layer({ root: location }).pipe(Layer.provide(NodePlatform.layer), Layer.provide(NodeServices.layer))
    : PostgresRoot.layer(rootOptions(location))

/** The review state's steps of one review of `key` by `agent`. */
const review = Effect.gen(function* () {
  const state = yield* ReviewState.ReviewState
  const port = yield* MemoryRoot.MemoryRoot
  const cursor = yield* state.cursor(key)
  yield* state.failure(key)
  yield* state.lastReview(agent)
  const at = yield* Clock.currentTimeMillis
  yield* port.transaction(
    Effect.andThen(
      state.expectCursor(key, cursor),
      state.recordReview(key, (cursor ?? 0) + 5, agent, { at, ok: true, reason: null })
    )
  )
  yield* state.setFailure(key, undefined)
})

const steps =
  mode === "review"
    ? review
    : mode === "whole"
      ? Effect.asVoid(MemoryRoot.MemoryRoot.use((port) => port.readState))
      : Effect.void

const program = Effect.gen(function* () {
  const start = performance.now()
  yield* steps
  const ms = performance.now() - start
  console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024 }))
})

Effect.runPromise(program.pipe(Effect.provide(ReviewState.layer.pipe(Layer.provideMerge(root))))).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
