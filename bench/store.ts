/**
 * The store benchmarks, on a full scope (a nearly full MEMORY.md linking 40 full topics): add, replace and remove on
 * MEMORY.md and on a full topic (each a whole change: the writer taken, the scope read, the change planned, the file
 * written atomically and flushed, the journal appended), loading the unchanged scope, and a batch of 8 changes through
 * `apply`. Each figure carries a baseline timed in the same run: for a change, the bare writes it needs done with
 * Node's own calls (the file to a temporary file, flushed and renamed over it, and one journal line appended); for a
 * load, a stat of each file of the scope (what seeing that nothing changed costs at least).
 */
import { NodeServices } from "@effect/platform-node"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { NodePlatform } from "@mneme/node"
import { FileRoot, MemoryStore } from "@mneme/review"
import { Effect, Layer, Logger, ManagedRuntime } from "effect"
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fact, type Figure, summarize, type Suite, time } from "./Bench.ts"

/** Entry lines from `make(i)` after `head` until the text is within `room` characters of `size`. */
const fill = (head: string, size: number, room: number, make: (i: number) => string): string => {
  let text = head
  for (let i = 0; text.length + (make(i).length + 1) <= size - room; i++) text += make(i) + "\n"
  return text
}

/** Changes made before any is timed, and changes timed, of each kind. */
const warmUp = 150
const rounds = 100
const topics = Array.from({ length: 40 }, (_, i) => `topic-${String(i).padStart(2, "0")}`)
const scope = MemoryScope.own("full")

/** A root holding the full scope of the agent "full", and a nearly full team MEMORY.md. */
const fullRoot = (): string => {
  const root = mkdtempSync(join(tmpdir(), "mneme-bench-"))
  const write = (file: string, content: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true })
    writeFileSync(join(root, file), content)
  }
  const index = "\n## Index\n" + topics.map((topic) => `- [[${topic}]]`).join("\n") + "\n"
  /** Room left in each file: more than the longest lines the benchmark adds to it at once. */
  const room = 200
  const memory = fill("# Memory\n\nNotes kept by hand stay as they are.\n\n", 4_000 - index.length, room, fact)
  write("agents/full/MEMORY.md", memory + index)
  for (const topic of topics) write(`agents/full/${topic}.md`, fill(`# ${topic}\n\n`, 16_000, 120, fact))
  write("team/MEMORY.md", memory + "\n## Index\n")
  return root
}

/** The bare writes of a change to `files` with Node's own calls: each atomically and flushed, one journal line. */
const bareWrites = (root: string, files: ReadonlyArray<string>, line: string) => {
  for (const file of files) {
    const path = join(root, file)
    const content = readFileSync(path)
    const temporary = `${path}.bench.tmp`
    const fd = openSync(temporary, "wx")
    writeSync(fd, content)
    fsyncSync(fd)
    closeSync(fd)
    renameSync(temporary, path)
  }
  appendFileSync(join(root, "journal.jsonl"), line + "\n")
}

/** A stat of each file of the scope's folder, and the listing. */
const statScope = (root: string) => {
  const folder = join(root, "agents/full")
  for (const name of readdirSync(folder)) statSync(join(folder, name))
}

/** What a note says of a goal of at most `goal` ms (`where`, if it says): the goal, and whether the run missed it. */
const goalNote = (value: number, goal: number, where = "") =>
  `goal ≤ ${goal} ms${where}${value <= goal ? "" : ", NOT MET"}`

const figure = (
  name: string,
  samples: ReadonlyArray<number>,
  baseline: ReadonlyArray<number>,
  note: string,
  goal?: number
) => {
  const measured = summarize(samples)
  const bare = summarize(baseline)
  const held = goal === undefined ? "" : `; ${goalNote(measured.medianMs, goal, " on a full scope")}`
  return [
    {
      suite: "store",
      name: `${name}, median`,
      value: measured.medianMs,
      unit: "ms",
      note: `${note}${held}; ${measured.runs} runs`,
      baseline: { name: "bare atomic writes + journal line", value: bare.medianMs }
    }
  ] satisfies ReadonlyArray<Figure>
}

export const suite: Suite = async () => {
  const root = fullRoot()
  const runtime = ManagedRuntime.make(
    MemoryStore.layer.pipe(
      Layer.provide(FileRoot.layer({ root })),
      Layer.provide(MemoryConfig.layer({ timeZone: "UTC" })),
      Layer.provide(Layer.merge(NodeServices.layer, NodePlatform.layer)),
      Layer.provide(Logger.layer([]))
    )
  )
  const store = await runtime.runPromise(MemoryStore.MemoryStore)
  const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect)
  const timed = async (samples: Array<number>, effect: Effect.Effect<unknown, unknown>) => {
    const t0 = performance.now()
    await run(effect)
    samples.push(performance.now() - t0)
  }
  const timedSync = (samples: Array<number>, body: () => void) => {
    const t0 = performance.now()
    body()
    samples.push(performance.now() - t0)
  }
  const journalLine = JSON.stringify({ version: 2, id: "x", time: 0, op: "add", scope: "agents/full", file: "f" })
  const figures: Array<Figure> = []
  try {
    const loaded = await run(store.load(scope))
    /** One add, replace and remove of a new entry in `topic`, each timed into `samples` when given. */
    const cycle = async (
      i: number,
      topic: string | undefined,
      samples?: Record<"add" | "replace" | "remove", Array<number>>
    ) => {
      const text = `A new fact number ${i}, added and taken away again by the benchmark`
      const other = `A new fact number ${i}, replaced and taken away again by the benchmark`
      await timed(samples?.add ?? [], store.add({ scope, topic, text, actor: "bench" }))
      await timed(samples?.replace ?? [], store.replace({ scope, topic, match: text, text: other, actor: "bench" }))
      await timed(samples?.remove ?? [], store.remove({ scope, topic, match: other, exact: true, actor: "bench" }))
    }
    // A warm-up on both files, so the figures are of compiled code.
    for (let i = 0; i < warmUp; i++) await cycle(i, i % 2 === 0 ? undefined : "topic-07")
    for (const [name, topic] of [
      ["nearly full MEMORY.md", undefined],
      ["full topic", "topic-07"]
    ] as const) {
      const file = loaded.files.find((f) => f.topic === topic)!
      const samples = { add: [] as Array<number>, replace: [] as Array<number>, remove: [] as Array<number> }
      const bare: Array<number> = []
      for (let i = 0; i < rounds; i++) {
        await cycle(i, topic, samples)
        timedSync(bare, () => bareWrites(root, [file.file], journalLine))
      }
      const note = `${file.size} characters, ${file.parsed.entries.length} entries, ${loaded.files.length} files in scope`
      figures.push(
        ...figure(`add, ${name}`, samples.add, bare, note, 5),
        ...figure(`replace, ${name}`, samples.replace, bare, note),
        ...figure(`remove, ${name}`, samples.remove, bare, note)
      )
    }

    /** Entries the batch removes and its reverse puts back, each the only one of its text in its scope. */
    const kept = {
      topic: "Bench entry of topic-30, taken out and put back",
      team: "Bench entry of the team, taken out and put back"
    }
    await run(
      store.apply([
        { op: "add", scope, topic: "topic-30", text: kept.topic, actor: "bench" },
        { op: "add", scope: MemoryScope.team, text: kept.team, actor: "bench" }
      ])
    )
    const changes = (i: number): ReadonlyArray<MemoryStore.Change> => [
      { op: "add", scope, text: `Batch fact ${i} one`, actor: "bench" },
      { op: "add", scope, topic: "topic-03", text: `Batch fact ${i} two`, actor: "bench" },
      { op: "add", scope, topic: "topic-11", text: `Batch fact ${i} three`, actor: "bench" },
      { op: "add", scope: MemoryScope.team, text: `Batch fact ${i} four`, actor: "bench" },
      { op: "replace", scope, match: fact(1), exact: true, text: `Batch fact ${i} five`, actor: "bench" },
      {
        op: "replace",
        scope,
        topic: "topic-20",
        match: fact(2),
        exact: true,
        text: `Batch fact ${i} six`,
        actor: "bench"
      },
      { op: "remove", scope, topic: "topic-30", match: kept.topic, exact: true, actor: "bench" },
      { op: "remove", scope: MemoryScope.team, match: kept.team, exact: true, actor: "bench" }
    ]
    const reverse = (i: number): ReadonlyArray<MemoryStore.Change> => [
      { op: "remove", scope, match: `Batch fact ${i} one`, exact: true, actor: "bench" },
      { op: "remove", scope, topic: "topic-03", match: `Batch fact ${i} two`, exact: true, actor: "bench" },
      { op: "remove", scope, topic: "topic-11", match: `Batch fact ${i} three`, exact: true, actor: "bench" },
      { op: "remove", scope: MemoryScope.team, match: `Batch fact ${i} four`, exact: true, actor: "bench" },
      { op: "replace", scope, match: `Batch fact ${i} five`, exact: true, text: fact(1), actor: "bench" },
      {
        op: "replace",
        scope,
        topic: "topic-20",
        match: `Batch fact ${i} six`,
        exact: true,
        text: fact(2),
        actor: "bench"
      },
      { op: "add", scope, topic: "topic-30", text: kept.topic, actor: "bench" },
      { op: "add", scope: MemoryScope.team, text: kept.team, actor: "bench" }
    ]
    const batch: Array<number> = []
    const bareBatch: Array<number> = []
    const touched = ["MEMORY.md", "topic-03.md", "topic-11.md", "topic-20.md", "topic-30.md"].map(
      (name) => `agents/full/${name}`
    )
    // The first batches (a warm-up) are not counted.
    for (let i = -warmUp / 4; i < rounds; i++) {
      const t0 = performance.now()
      const results = await run(store.apply(changes(i)))
      if (i >= 0) batch.push(performance.now() - t0)
      const back = await run(store.apply(reverse(i)))
      const failed = [...results, ...back].filter((result) => result._tag === "Failure" || !result.success.changed)
      if (failed.length > 0) return Promise.reject(new Error(`a batch change did not land: ${JSON.stringify(failed)}`))
      if (i >= 0) timedSync(bareBatch, () => bareWrites(root, [...touched, "team/MEMORY.md"], journalLine))
    }
    figures.push(
      ...figure(
        "apply, a batch of 8 changes over 6 files of two full scopes",
        batch,
        bareBatch,
        "4 adds, 2 replaces, 2 removes"
      )
    )

    const load = await time(() => run(store.load(scope)), { minRuns: 20 })
    const stats = await time(() => statScope(root), { minRuns: 20 })
    const characters = loaded.files.reduce((sum, file) => sum + file.size, 0)
    figures.push({
      suite: "store",
      name: "load a full scope (40 topics), unchanged, median",
      value: load.medianMs,
      unit: "ms",
      note: `${loaded.files.length} files, ${characters} characters; ${goalNote(load.medianMs, 3)}; ${load.runs} runs`,
      baseline: { name: "a stat of each file", value: stats.medianMs }
    })
    const view = await time(() => run(store.view("full")), { minRuns: 20 })
    figures.push({
      suite: "store",
      name: "view of an agent with a full scope, median",
      value: view.medianMs,
      unit: "ms",
      baseline: { name: "a stat of each file", value: stats.medianMs }
    })
    return figures
  } finally {
    await runtime.dispose()
    rmSync(root, { recursive: true, force: true })
  }
}
