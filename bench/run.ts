/**
 * `pnpm bench [suite…] [--out file.json] [--locomo FILE]`: runs every suite (or those named), prints the figures as a
 * table (each with the same run's baseline, and the original host's figure and the ratio over it where issue 11 gives
 * one), and writes them as JSON to the file (bench/results/latest.json by default). The recall suite measures on the
 * LoCoMo conversation file `--locomo` names (without one, only its hostile inputs).
 *
 * `pnpm bench --compare a.json b.json`: how each figure of run b compares with run a, as it was measured and as a
 * share of each run's own baseline (which takes out how busy each machine was).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
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
    `bench: ${problem}\nusage: pnpm bench [suite…] [--out file.json] [--locomo FILE] | pnpm bench --compare a.json b.json`
  )
  process.exitCode = 2
}

const run = async (chosen: ReadonlyArray<string>, out: string, options: Options) => {
  const unknown = chosen.filter((name) => !(name in suites))
  if (unknown.length > 0)
    return usage(`no such suite: ${unknown.join(", ")} (suites: ${Object.keys(suites).join(", ")})`)
  const figures: Array<Figure> = []
  for (const [name, load] of Object.entries(suites)) {
    if (chosen.length > 0 && !chosen.includes(name)) continue
    process.stderr.write(`bench: ${name}\n`)
    const suite = await load()
    figures.push(...(await suite(options)))
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

const compare = (before: string, after: string) => {
  const a = readRun(before)
  const b = readRun(after)
  const key = (f: Figure) => `${f.suite}\u0000${f.name}`
  const earlier = new Map(a.figures.map((f) => [key(f), f]))
  console.log(`a: ${before}${a.at ? ` (${a.at})` : ""}\nb: ${after}${b.at ? ` (${b.at})` : ""}`)
  console.table(
    b.figures.flatMap((f) => {
      const old = earlier.get(key(f))
      if (old === undefined || old.unit !== f.unit) return []
      const [costA, costB] = [costOver(old), costOver(f)]
      const rated = isRate(f.unit) || f.unit === "ms" || f.unit === "µs"
      return [
        {
          suite: f.suite,
          name: f.name,
          a: round(old.value),
          b: round(f.value),
          unit: f.unit,
          "b vs a": rated ? ratio(speedup(f.value, old.value, f.unit)) : "",
          "b vs a, each over its baseline": costA !== undefined && costB !== undefined ? ratio(costA / costB) : ""
        }
      ]
    })
  )
}

const args = process.argv.slice(2)
const at = args.indexOf("--compare")
if (at >= 0) {
  const [before, after] = args.slice(at + 1)
  if (before === undefined || after === undefined) usage("--compare needs two files")
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
