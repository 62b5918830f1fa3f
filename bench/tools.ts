/**
 * The benchmarks of memory in use (issue 12), on the review suite's full memory (2 × 4,000 characters of MEMORY.md,
 * 2 × 40 topics of 16,000 characters): the agent's `recall` tool call over every entry, end to end (both scopes loaded
 * through the store, searched, the result encoded for the model) and its search alone (`Recall.search`), held to 5 ms;
 * and the memory section (`MemoryPrompt.section`, both scopes loaded and rendered) and its rendering alone
 * (`MemorySection.render`), held to 2 ms. The goals are in each figure's note.
 */
import { NodeServices } from "@effect/platform-node"
import { MemoryConfig, MemoryScope, MemorySection, Recall } from "@mneme/core"
import { NodePlatform } from "@mneme/node"
import { Memory, MemoryPrompt, MemoryStore, MemoryTools, ReviewModel } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect, Layer, Logger, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Figure, type Suite, time } from "./Bench.ts"
import { writeFullMemory } from "./review.ts"

/** A query sharing words with many entries of the full memory, as an agent would ask. */
const query = "Which green tea does the user drink in the morning before travel to Kyoto?"

/** A figure in ms, with its goal in the note and whether the run met it. */
const figure = (name: string, value: number, goal: number, note: string): Figure => ({
  suite: "tools",
  name,
  value,
  unit: "ms",
  note: `${note}; goal ≤ ${goal} ms${value <= goal ? "" : ", NOT MET"}`
})

export const suite: Suite = async () => {
  const root = mkdtempSync(join(tmpdir(), "mneme-bench-"))
  writeFullMemory(root)
  const runtime = ManagedRuntime.make(
    Memory.layer({ root }).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          Testing.transcriptMemory,
          ReviewModel.layer(() => Effect.succeed({ text: `{"changes":[]}` })),
          NodeServices.layer,
          NodePlatform.layer
        )
      ),
      Layer.provideMerge(Logger.layer([]))
    )
  )
  try {
    const turn = await runtime.runPromise(
      Effect.gen(function* () {
        const host = yield* Testing.TranscriptMemory
        yield* host.addAgent({ id: "a1", name: "Ada", mayWriteTeam: true })
        return yield* MemoryTools.startTurn("a1")
      })
    )
    const scopes = await runtime.runPromise(
      Effect.flatMap(MemoryStore.MemoryStore, (store) =>
        Effect.all([store.load(MemoryScope.own("a1")), store.load(MemoryScope.team)])
      )
    )
    const candidates = scopes.flatMap((stored) =>
      stored.files.flatMap((file) =>
        file.parsed.entries.map((entry) => ({
          scope: MemoryScope.side(stored.scope),
          topic: file.topic,
          text: entry.text,
          meta: entry.meta
        }))
      )
    )
    const limits = { resultsMax: MemoryConfig.defaults.recallResultsMax, budget: MemoryConfig.defaults.recallBudget }
    // The indexes of the files, built once, as recall keeps them while the files are unchanged.
    const indexes = {
      indexes: scopes.flatMap((stored) =>
        stored.files.map((file) =>
          Recall.index(
            file.parsed.entries.map((entry) => ({
              scope: MemoryScope.side(stored.scope),
              topic: file.topic,
              text: entry.text,
              meta: entry.meta
            }))
          )
        )
      )
    }
    const found = Recall.search(indexes, query, limits)

    const call = Effect.map(MemoryTools.call(turn, "recall", { query }), (result) => {
      if (result.isError) throw new Error(`recall failed: ${JSON.stringify(result.result)}`)
      return result
    })
    const recalling = await time(() => runtime.runPromise(call), { minMs: 2_000, minRuns: 10 })
    const searching = await time(() => Recall.search(indexes, query, limits), { minMs: 1_000, minRuns: 10 })

    const section = Effect.flatMap(MemoryPrompt.MemoryPrompt, (prompt) => prompt.section("a1"))
    const text = await runtime.runPromise(section)
    const sectioning = await time(() => runtime.runPromise(section), { minMs: 2_000, minRuns: 10 })
    const memories = scopes.map((stored) => {
      const memory = stored.files.find((file) => file.topic === undefined)!
      return {
        file: memory.file,
        size: memory.size,
        parsed: memory.parsed,
        topics: new Map(
          stored.files.flatMap((file) =>
            file.topic === undefined
              ? []
              : [[file.topic, { entries: file.parsed.entries.length, size: file.size }] as const]
          )
        )
      }
    })
    const input = { own: memories[0]!, team: memories[1]!, mayWriteTeam: true }
    const rendering = await time(() => MemorySection.render(input, MemoryConfig.defaults), { minMs: 1_000 })

    const entries = `${candidates.length.toLocaleString("en-US")} entries`
    return [
      figure(
        "recall tool call, full memory, end to end",
        recalling.medianMs,
        5,
        `${entries}; ${found.entries.length} given${found.more ? ", more match" : ""}; ${recalling.runs} calls`
      ),
      figure("of which: the search (Recall.search)", searching.medianMs, 5, `${entries}, loaded and indexed once`),
      figure(
        "MemoryPrompt.section, full memory, end to end",
        sectioning.medianMs,
        2,
        `${text.length.toLocaleString("en-US")} characters; ${sectioning.runs} calls`
      ),
      figure("of which: rendering (MemorySection.render)", rendering.medianMs, 2, "both MEMORY.md files, loaded once")
    ]
  } finally {
    await runtime.dispose()
    rmSync(root, { recursive: true, force: true })
  }
}
