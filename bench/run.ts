/**
 * `pnpm bench`: runs every suite (or those named on the command line), prints the figures as a table and as JSON,
 * and writes the JSON to bench/results/latest.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import type { Figure, Suite } from "./Bench.ts"
import * as answer from "./answer.ts"
import * as format from "./format.ts"
import * as review from "./review.ts"
import * as secret from "./secret.ts"
import * as selection from "./selection.ts"
import * as store from "./store.ts"

const suites: Record<string, Suite> = {
  secret: secret.suite,
  format: format.suite,
  selection: selection.suite,
  answer: answer.suite,
  store: store.suite,
  review: review.suite
}

const chosen = process.argv.slice(2)
const figures: Array<Figure> = []
for (const [name, suite] of Object.entries(suites)) {
  if (chosen.length > 0 && !chosen.includes(name)) continue
  process.stderr.write(`bench: ${name}\n`)
  figures.push(...(await suite()))
}

const round = (value: number) => (Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(4)))
console.table(
  figures.map((f) => ({ suite: f.suite, name: f.name, value: round(f.value), unit: f.unit, note: f.note ?? "" }))
)
const json = JSON.stringify({ node: process.version, at: new Date().toISOString(), figures }, null, 2)
console.log(json)
mkdirSync(new URL("./results/", import.meta.url), { recursive: true })
writeFileSync(new URL("./results/latest.json", import.meta.url), json + "\n")
