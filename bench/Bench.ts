/**
 * The benchmark harness: time a function until enough samples are taken, the figure every suite reports (with the
 * same run's baseline and the original host's figure where there is one), a plain loop to time as a baseline, and the
 * entry line the suites fill memory files with.
 */
import { Entry } from "@mneme/core"
import { performance } from "node:perf_hooks"

/** One measured figure. */
export interface Figure {
  readonly suite: string
  readonly name: string
  readonly value: number
  /** Per second (`ops/s`, `entries/s`: higher is better), a time (`ms`, `µs`: lower is better), or `log-log`. */
  readonly unit: string
  readonly note?: string
  /**
   * A plain baseline timed in the same run on the same input, in the same unit (a loop over the same characters,
   * `JSON.parse` of the same answer): what this machine does right now, so a figure from a busy one can still be read.
   */
  readonly baseline?: { readonly name: string; readonly value: number }
  /**
   * The original host's figure for the same measure, in the same unit (issue 11's table: one run on a quiet machine
   * of this kind; the original's code is not here to run), and the speed ratio over it mneme must reach.
   */
  readonly original?: { readonly value: number; readonly goal: number }
}

/** What the command line gives the suites. */
export interface Options {
  /** A LoCoMo conversation file (`--locomo FILE`), which the recall suite measures on. */
  readonly locomo?: string | undefined
}

/** A suite: returns its figures. */
export type Suite = (options: Options) => Promise<ReadonlyArray<Figure>>

/** Whether a larger value of `unit` is better (a rate) rather than worse (a time). */
export const isRate = (unit: string): boolean => unit.endsWith("/s")

/** How many times faster `value` is than `other`, both in `unit`. */
export const speedup = (value: number, other: number, unit: string): number =>
  isRate(unit) ? value / other : other / value

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

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"

/** Calls `fn` `count` times, waiting for each call that returns a promise. */
const calls = async (fn: () => unknown, count: number): Promise<void> => {
  for (let i = 0; i < count; i++) {
    const result = fn()
    if (isThenable(result)) await result
  }
}

/**
 * Times `fn`: a warm-up of `warmMs` (50 ms by default, and at least 3 calls), so the figures are of compiled code;
 * then samples until `minMs` have passed and at least `minRuns` samples are taken. A fast `fn` is called many times a sample (about
 * 0.25 ms of calls), so the clock's own cost is no part of the figure; each sample is the time per call.
 */
export const time = async (
  fn: () => unknown,
  options: {
    readonly minMs?: number
    readonly minRuns?: number
    readonly maxRuns?: number
    readonly warmMs?: number
  } = {}
): Promise<Timing> => {
  const minMs = options.minMs ?? 300
  const warmMs = options.warmMs ?? 50
  const minRuns = options.minRuns ?? 5
  const maxRuns = options.maxRuns ?? 100_000
  let warm = 0
  const warming = performance.now()
  while (warm < Math.min(3, minRuns) || performance.now() - warming < warmMs) {
    await calls(fn, 1)
    warm++
  }
  const batch = Math.max(1, Math.floor(0.25 / ((performance.now() - warming) / warm)))
  const samples: Array<number> = []
  const started = performance.now()
  while (samples.length < maxRuns && (samples.length < minRuns || performance.now() - started < minMs)) {
    const t0 = performance.now()
    await calls(fn, batch)
    samples.push((performance.now() - t0) / batch)
  }
  return { ...summarize(samples), runs: samples.length * batch }
}

/**
 * `text` as one flat string, as reading a file gives it. Text built by `+` or `repeat` is a tree of pieces that every
 * character read must walk, which would time the engine's string shapes instead of the code.
 */
export const flat = (text: string): string => Buffer.from(text, "utf8").toString("utf8")

/** Where plain loops leave what they read, so the reads are kept. */
let sink = 0

/** A baseline: reads every character of each text, and nothing else. */
export const plainLoop = (...texts: ReadonlyArray<string>): number => {
  let sum = 0
  for (const text of texts) for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i)
  sink ^= sum
  return sink
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
