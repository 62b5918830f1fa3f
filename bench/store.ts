/**
 * The store benchmarks: add, replace and remove on a nearly full MEMORY.md and on a full topic (each a whole
 * operation: lock, re-read, check, atomic flushed write, journal line), and loading a full scope of 40 topics.
 */
import { NodeServices } from "@effect/platform-node"
import { MemoryConfig } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect, FileSystem, Path } from "effect"
import { performance } from "node:perf_hooks"
import { fact, summarize, time, type Figure, type Suite } from "./Bench.ts"

/** Entry lines from `make(i)` after `head` until the text is within `room` characters of `size`. */
const fill = (head: string, size: number, room: number, make: (i: number) => string): string => {
  let text = head
  for (let i = 0; text.length + (make(i).length + 1) <= size - room; i++) text += make(i) + "\n"
  return text
}

const rounds = 60

const program = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "mneme-bench-" })
  const settings = MemoryConfig.make({ timeZone: "UTC" })
  const store = yield* MemoryStore.MemoryStore.use(Effect.succeed).pipe(Effect.provide(MemoryStore.layer({ root })))
  const run = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.runPromise(effect.pipe(Effect.provideService(MemoryConfig.MemoryConfig, settings)))

  const write = (file: string, content: string) =>
    Effect.gen(function* () {
      yield* fs.makeDirectory(path.dirname(path.join(root, file)), { recursive: true })
      yield* fs.writeFileString(path.join(root, file), content)
    })
  const topics = Array.from({ length: 40 }, (_, i) => `topic-${String(i).padStart(2, "0")}`)
  const index = "\n## Index\n" + topics.map((topic) => `- [[${topic}]]`).join("\n") + "\n"
  /** Room left in each file: more than the longest line the benchmark adds. */
  const room = 120
  const memory = fill("# Memory\n\nNotes kept by hand stay as they are.\n\n", 4000 - index.length, room, fact)
  yield* write("agents/full/MEMORY.md", memory + index)
  for (const topic of topics) {
    yield* write(`agents/full/${topic}.md`, fill(`# ${topic}\n\n`, 16000, room, fact))
  }
  yield* write("team/MEMORY.md", memory + "\n## Index\n")

  const scope = { kind: "agent", agentId: "full" } as const
  const sizes = yield* store.load(scope)
  const figures: Array<Figure> = []
  const report = (name: string, samples: ReadonlyArray<number>, note: string) => {
    const { medianMs, opsPerSec, runs } = summarize(samples)
    figures.push(
      { suite: "store", name: `${name}`, value: opsPerSec, unit: "ops/s", note: `${note}; ${runs} runs` },
      { suite: "store", name: `${name}, median`, value: medianMs, unit: "ms" }
    )
  }
  const timed = async <A>(samples: Array<number>, effect: Effect.Effect<A, unknown>) => {
    const t0 = performance.now()
    await run(effect)
    samples.push(performance.now() - t0)
  }

  for (const [name, topic] of [
    ["nearly full MEMORY.md", undefined],
    ["full topic", "topic-07"]
  ] as const) {
    const file = sizes.files.find((f) => f.topic === topic)
    const adds: Array<number> = []
    const replaces: Array<number> = []
    const removes: Array<number> = []
    const note = `${file?.size ?? 0} characters, ${file?.parsed.entries.length ?? 0} entries, 41 files in scope`
    yield* Effect.promise(async () => {
      for (let i = 0; i < rounds; i++) {
        const text = `A new fact number ${i}, added and taken away again by the benchmark`
        const other = `A new fact number ${i}, replaced and taken away again by the benchmark`
        await timed(adds, store.add({ scope, topic, text, actor: "bench" }))
        await timed(replaces, store.replace({ scope, topic, match: text, text: other, actor: "bench" }))
        await timed(removes, store.remove({ scope, topic, match: other, actor: "bench" }))
      }
    })
    report(`add, ${name}`, adds, note)
    report(`replace, ${name}`, replaces, note)
    report(`remove, ${name}`, removes, note)
  }

  const load = yield* Effect.promise(() => time(() => run(store.load(scope)), { minRuns: 20 }))
  const characters = sizes.files.reduce((sum, file) => sum + file.size, 0)
  figures.push(
    {
      suite: "store",
      name: "load a full scope (40 topics)",
      value: load.opsPerSec,
      unit: "ops/s",
      note: `${sizes.files.length} files, ${characters} characters; ${load.runs} runs`
    },
    { suite: "store", name: "load a full scope (40 topics), median", value: load.medianMs, unit: "ms" }
  )
  const view = yield* Effect.promise(() => time(() => run(store.view("full")), { minRuns: 20 }))
  figures.push({ suite: "store", name: "view of an agent with a full scope, median", value: view.medianMs, unit: "ms" })
  return figures
})

export const suite: Suite = () => Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
