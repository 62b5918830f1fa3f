/**
 * The benchmark harness: time a function until enough samples are taken, the figure every suite reports, and the
 * entry line the suites fill memory files with.
 */
import { Entry } from "@mneme/core"
import { performance } from "node:perf_hooks"

/** One measured figure. */
export interface Figure {
  readonly suite: string
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly note?: string
}

/** A suite: returns its figures. */
export type Suite = () => Promise<ReadonlyArray<Figure>>

/** Timings of one function: the median and mean of its runs, in milliseconds, and the runs per second. */
export interface Timing {
  readonly medianMs: number
  readonly meanMs: number
  readonly opsPerSec: number
  readonly runs: number
}

/** The median and mean of timed samples, in milliseconds, and the runs per second. */
export const summarize = (samples: ReadonlyArray<number>): Timing => {
  const sorted = [...samples].sort((a, b) => a - b)
  const total = sorted.reduce((sum, s) => sum + s, 0)
  const medianMs = sorted[Math.floor(sorted.length / 2)] ?? 0
  return { medianMs, meanMs: total / sorted.length, opsPerSec: 1000 / (total / sorted.length), runs: sorted.length }
}

/** Runs `fn` (after a warm-up) until `minMs` have passed and at least `minRuns` runs are done. */
export const time = async (
  fn: () => unknown,
  options: { readonly minMs?: number; readonly minRuns?: number; readonly maxRuns?: number } = {}
): Promise<Timing> => {
  const minMs = options.minMs ?? 300
  const minRuns = options.minRuns ?? 5
  const maxRuns = options.maxRuns ?? 100_000
  for (let i = 0; i < Math.min(3, minRuns); i++) await fn()
  const samples: Array<number> = []
  const started = performance.now()
  while (samples.length < maxRuns && (samples.length < minRuns || performance.now() - started < minMs)) {
    const t0 = performance.now()
    await fn()
    samples.push(performance.now() - t0)
  }
  return summarize(samples)
}

/** A typical entry line, numbered so no two are the same, with its source and date. */
export const fact = (i: number): string =>
  Entry.format(`The user's fact number ${i} is about tea, trains and the weekly planning meeting`, [
    ["source", `part 2 #${100 + i}`],
    ["added", "2026-11-06"]
  ])

/** The slope of log(y) against log(x), fitted by least squares: 1 means linear growth. */
export const logLogSlope = (points: ReadonlyArray<readonly [x: number, y: number]>): number => {
  const xs = points.map(([x]) => Math.log(x))
  const ys = points.map(([, y]) => Math.log(Math.max(y, 1e-6)))
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length
  const my = ys.reduce((a, b) => a + b, 0) / ys.length
  let num = 0
  let den = 0
  xs.forEach((x, i) => {
    num += (x - mx) * ((ys[i] ?? 0) - my)
    den += (x - mx) ** 2
  })
  return num / den
}
