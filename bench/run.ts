/**
 * `pnpm bench [suite…] [--out file.json] [--locomo FILE]`: runs every suite (or those named), prints the figures as a
 * table (each with the same run's baseline, and the original host's figure and the ratio over it where issue 11 gives
 * one), and writes them as JSON to the file (bench/results/latest.json by default). The recall suite measures on the
 * LoCoMo conversation file `--locomo` names (without one, only its hostile inputs). Where more than one suite runs, each
 * runs in a process of its own: a figure would otherwise depend on what ran before it in the same process (the JIT's
 * and the heap's state), and a suite's rows could be a quarter off what they are when it runs alone.
 *
 * `pnpm bench --compare a.json b.json`: how each figure of run b compares with run a, as it was measured and as a
 * share of each run's own baseline (which takes out how busy each machine was). On a shared machine one run's figure
 * can be a third off the next's, so runs can be compared in pairs: `--compare a1.json,a2.json,a3.json
 * b1.json,b2.json,b3.json` (a1 then b1 run one after the other, then a2 and b2, …) gives for each figure the median of
 * each side and the median of the pairs' ratios, and counts the figures more than 10% behind by that median.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { type Figure, isRate, type Options, speedup, type Suite } from "./Bench.ts"
/** Each suite, imported only when it runs (so one suite's broken import stops no other). */
const suites: Record<string, () => Promise<Suite>> = {
  secret: async () => (await import("./secret.ts")).suite,
  format: async () => (await import("./format.ts")).suite,
  selection: async () => (await import("./selection.ts")).suite,
  answer: async () => (await import("./answer.ts")).suite,
  store: async () => (await import("./store.ts")).suite,
  review: async () => (await import("./review.ts")).suite,
  transcript: async () => (await import("./transcript.ts")).suite,
  shapes: async () => (await import("./transcriptFormat.ts")).suite,
  tools: async () => (await import("./tools.ts")).suite,
  cluster: async () => (await import("./cluster.ts")).suite,
  state: async () => (await import("./reviewState.ts")).suite,
  recall: async () => (await import("./recall.ts")).suite,
  cli: async () => (await import("./cli.ts")).suite,
  trust: async () => (await import("./trust.ts")).suite
}

const round = (value: number) => (Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(4)))
const ratio = (value: number) => `${Number(value.toPrecision(3))}×`

/** How many times the baseline's cost one call of the figure costs (1 when it costs as much as the baseline). */
const costOver = (figure: Figure) =>
  figure.baseline === undefined ? undefined : 1 / speedup(figure.value, figure.baseline.value, figure.unit)

/** A run's figures as written by this script. */
const readRun = (file: string): { readonly at?: string; readonly figures: ReadonlyArray<Figure> } =>
  JSON.parse(readFileSync(file, "utf8"))

/** Says what is wrong with the command line, and fails the command. */
const usage = (problem: string) => {
  console.error(
    `bench: ${problem}\nusage: pnpm bench [suite…] [--out file.json] [--locomo FILE] | pnpm bench --compare a.json[,a2.json…] b.json[,b2.json…]`
  )
  process.exitCode = 2
}

const run = async (chosen: ReadonlyArray<string>, out: string, options: Options) => {
  const unknown = chosen.filter((name) => !(name in suites))
  if (unknown.length > 0)
    return usage(`no such suite: ${unknown.join(", ")} (suites: ${Object.keys(suites).join(", ")})`)
  const names = Object.keys(suites).filter((name) => chosen.length === 0 || chosen.includes(name))
  const figures: Array<Figure> = []
  if (names.length === 1) {
    process.stderr.write(`bench: ${names[0]}\n`)
    figures.push(...(await (await suites[names[0]!]!())(options)))
  } else {
    const scratch = mkdtempSync(join(tmpdir(), "mneme-bench-"))
    for (const name of names) figures.push(...alone(name, join(scratch, `${name}.json`), options))
    rmSync(scratch, { recursive: true, force: true })
  }
  console.table(
    figures.map((f) => {
      const cost = costOver(f)
      const over = f.original === undefined ? undefined : speedup(f.value, f.original.value, f.unit)
      return {
        suite: f.suite,
        name: f.name,
        value: round(f.value),
        unit: f.unit,
        baseline: f.baseline === undefined ? "" : `${round(f.baseline.value)} ${f.baseline.name}`,
        "cost/baseline": cost === undefined ? "" : ratio(cost),
        original: f.original === undefined ? "" : round(f.original.value),
        "vs original":
          over === undefined
            ? ""
            : `${ratio(over)} (goal ≥ ${f.original?.goal}${over >= (f.original?.goal ?? 1) ? "" : ", NOT MET"})`,
        note: f.note ?? ""
      }
    })
  )
  const json = JSON.stringify({ node: process.version, at: new Date().toISOString(), figures }, null, 2)
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, json + "\n")
  process.stderr.write(`bench: wrote ${out}\n`)
}

/**
 * Runs one suite in a child process of its own (this script with the suite's name) and reads back its figures; a suite
 * that fails is reported, fails the command, and stops no other.
 */
const alone = (name: string, out: string, options: Options): ReadonlyArray<Figure> => {
  const child = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      name,
      "--out",
      out,
      ...(options.locomo === undefined ? [] : ["--locomo", options.locomo])
    ],
    { stdio: ["ignore", "ignore", "inherit"] }
  )
  if (child.status === 0) return readRun(out).figures
  process.stderr.write(`bench: ${name} failed (${child.error?.message ?? `exit ${child.status ?? child.signal}`})\n`)
  process.exitCode = 1
  return []
}

/** The median of `values` (the mean of the middle two when there is an even number). */
const median = (values: ReadonlyArray<number>): number => {
  const sorted = values.toSorted((x, y) => x - y)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Runs a (each a list of files, `,`-separated) against runs b, paired in order. */
const compare = (before: string, after: string) => {
  const [as, bs] = [before.split(","), after.split(",")]
  if (as.length !== bs.length) return usage("--compare needs as many runs on each side, paired in order")
  const [a, b] = [as.map(readRun), bs.map(readRun)]
  const key = (f: Figure) => `${f.suite}\u0000${f.name}`
  const byKey = (run: { readonly figures: ReadonlyArray<Figure> }) => new Map(run.figures.map((f) => [key(f), f]))
  const [earlier, later] = [a.map(byKey), b.map(byKey)]
  for (const [side, files, runs] of [
    ["a", as, a],
    ["b", bs, b]
  ] as const) {
    files.forEach((file, i) =>
      console.log(`${side}${files.length > 1 ? i + 1 : ""}: ${file}${runs[i]?.at ? ` (${runs[i]?.at})` : ""}`)
    )
  }
  let behind = 0
  let compared = 0
  const rows = b[0]!.figures.flatMap((f) => {
    const pairs = earlier.flatMap((olds, i) => {
      const [old, now] = [olds.get(key(f)), later[i]!.get(key(f))]
      return old === undefined || now === undefined || old.unit !== f.unit ? [] : [[old, now] as const]
    })
    if (pairs.length === 0) return []
    const rated = isRate(f.unit) || f.unit === "ms" || f.unit === "µs"
    const speed = median(pairs.map(([old, now]) => speedup(now.value, old.value, f.unit)))
    const costs = pairs.flatMap(([old, now]) => {
      const [costA, costB] = [costOver(old), costOver(now)]
      return costA === undefined || costB === undefined ? [] : [costA / costB]
    })
    if (rated) {
      compared++
      if (speed < 0.9) behind++
    }
    return [
      {
        suite: f.suite,
        name: f.name,
        a: round(median(pairs.map(([old]) => old.value))),
        b: round(median(pairs.map(([, now]) => now.value))),
        unit: f.unit,
        "b vs a": rated ? `${ratio(speed)}${speed < 0.9 ? " BEHIND" : ""}` : "",
        "b vs a, each over its baseline": costs.length === 0 ? "" : ratio(median(costs))
      }
    ]
  })
  console.table(rows)
  console.log(
    `${compared} timed figures compared${as.length > 1 ? ` (median of ${as.length} pairs)` : ""}; ${behind} more than 10% behind`
  )
}

const args = process.argv.slice(2)
const at = args.indexOf("--compare")
if (at >= 0) {
  const [before, after] = args.slice(at + 1)
  if (before === undefined || after === undefined) usage("--compare needs two files (or two lists of files)")
  else compare(before, after)
} else {
  /** The value of `--flag`, where the command line gives it, and where it stands. */
  const flag = (name: string) => {
    const at = args.indexOf(name)
    return { at, value: at >= 0 ? args[at + 1] : undefined }
  }
  const out = flag("--out")
  const locomo = flag("--locomo")
  const taken = new Set([out, locomo].flatMap(({ at }) => (at < 0 ? [] : [at, at + 1])))
  const chosen = args.filter((_, i) => !taken.has(i))
  if (out.at >= 0 && out.value === undefined) usage("--out needs a file name")
  else if (locomo.at >= 0 && locomo.value === undefined) usage("--locomo needs a LoCoMo conversation file")
  else
    await run(
      chosen,
      out.value === undefined ? new URL("./results/latest.json", import.meta.url).pathname : resolve(out.value),
      { locomo: locomo.value === undefined ? undefined : resolve(locomo.value) }
    )
}
