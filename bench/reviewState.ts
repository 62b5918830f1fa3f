/**
 * The review state at 100k conversations (issue 22 item 9): a review looks its conversation's entries up by key, so
 * one review's state lookups and changes cost about the same with 1k conversations as with 100k, in time and in
 * memory. For each backend (a folder's `reviewed.json`, a Postgres schema of the test database) and each size, a root
 * is filled with that many conversations (a cursor and a last review each, a failure record for one in ten), and a
 * fresh process, as a CLI review is, does one review's state steps (`reviewStateProbe.ts`): the figure is their time
 * (the median of a few processes), with one read of the whole state in the same root as its baseline (what each lookup
 * cost before), and the process's peak memory, with that of a process that only opened the root as its baseline.
 */
import { NodeServices } from "@effect/platform-node"
import { MemoryRoot } from "@mneme/review"
import { PostgresRoot } from "@mneme/sql"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { rootOptions, withClient } from "../packages/sql/test/fixtures/postgres.ts"
import type { Figure, Suite } from "./Bench.ts"

const sizes = [1_000, 100_000]
const runs = 3
const probe = join(import.meta.dirname, "reviewStateProbe.ts")

/** What a probe process printed. */
interface Probed {
  readonly ms: number
  readonly maxRssMb: number
}

const probed = (args: ReadonlyArray<string>): Probed =>
  JSON.parse(
    execFileSync(process.execPath, ["--conditions=@mneme/source", probe, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"]
    })
  )

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The review state of `size` conversations, in the files' format. */
const stateOf = (size: number) => {
  const cursors: Record<string, number> = {}
  const lastReviews: Record<string, MemoryRoot.LastReview> = {}
  const failures: Record<string, unknown> = {}
  for (let i = 0; i < size; i++) {
    cursors[`chat:c${i}`] = 3 * i
    lastReviews[`agent-${i}`] = { at: 1_790_000_000_000 + i, ok: true, reason: null }
    if (i % 10 === 0)
      failures[`chat:c${i}`] = { cursor: 3 * i, newestUserSeq: 3 * i + 2, times: [1], stopWarned: false }
  }
  return { version: 2, cursors, failures, lastReviews }
}

/** A Postgres root of `size` conversations in a new schema; gives the schema. */
const fillPostgres = (size: number) =>
  Effect.gen(function* () {
    const schema = `mneme_bench_${randomUUID().replaceAll("-", "")}`
    yield* Layer.build(PostgresRoot.layer(rootOptions(schema))).pipe(Effect.scoped)
    yield* withClient((sql) =>
      sql.unsafe(`INSERT INTO ${schema}.review_state (part, key, value)
        SELECT 'cursors', 'chat:c' || i, to_jsonb(3 * i) FROM generate_series(0, ${size - 1}) i
        UNION ALL SELECT 'lastReviews', 'agent-' || i,
          jsonb_build_object('at', 1790000000000 + i, 'ok', true, 'reason', null) FROM generate_series(0, ${size - 1}) i
        UNION ALL SELECT 'failures', 'chat:c' || i, jsonb_build_object('cursor', 3 * i, 'newestUserSeq', 3 * i + 2,
          'times', jsonb_build_array(1), 'stopWarned', false) FROM generate_series(0, ${size - 1}, 10) i`)
    )
    return schema
  })

const dropSchema = (schema: string) =>
  Effect.runPromise(Effect.ignore(withClient((sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))))

/** The figures of one backend at one size, its root at `location`. */
const measure = (backend: string, location: string, size: number): ReadonlyArray<Figure> => {
  const key = `chat:c${Math.floor(size / 2)}`
  const agent = `agent-${Math.floor(size / 2)}`
  const reviews = Array.from({ length: runs }, () => probed([backend, location, "review", key, agent]))
  const whole = probed([backend, location, "whole"])
  const idle = probed([backend, location, "idle"])
  const suite = "state"
  const at = `${size / 1000}k conversations`
  return [
    {
      suite,
      name: `${backend}: one review's state lookups and changes, ${at}`,
      value: median(reviews.map((r) => r.ms)),
      unit: "ms",
      baseline: { name: "one read of the whole state", value: whole.ms }
    },
    {
      suite,
      name: `${backend}: peak memory of that review's process, ${at}`,
      value: median(reviews.map((r) => r.maxRssMb)),
      unit: "MB",
      baseline: { name: "a process that only opened the root", value: idle.maxRssMb }
    }
  ]
}

export const suite: Suite = async () => {
  const figures: Array<Figure> = []
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), "mneme-bench-state-"))
    try {
      writeFileSync(join(dir, "reviewed.json"), JSON.stringify(stateOf(size)))
      figures.push(...measure("files", dir, size))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const schema = await Effect.runPromise(fillPostgres(size).pipe(Effect.provide(NodeServices.layer)))
    try {
      figures.push(...measure("postgres", schema, size))
    } finally {
      await dropSchema(schema)
    }
  }
  return figures
}
