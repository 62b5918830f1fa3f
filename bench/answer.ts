/**
 * The answer benchmarks: parsing + vetting an 8-change answer (ops/s), and parsing hostile answers of 10k, 100k and
 * 1M characters (ms per call, with the fitted log-log slope: about 1 means linear, no blow-up).
 */
import { Answer, MemoryConfig } from "@mneme/core"
import { Effect } from "effect"
import { type Figure, logLogSlope, type Suite, time } from "./Bench.ts"

const eight = JSON.stringify({
  changes: [
    { op: "add", text: "The user likes green tea in the morning [source: part 1 #10]", topic: "drinks" },
    { op: "add", text: "x".repeat(348) },
    { op: "add", text: "The root password is hunter2" },
    { op: "add", text: "The team ships on Thursdays", team: true },
    { op: "edit", entry: 2, text: "- Lives in Lyon, France" },
    { op: "edit", entry: "3", text: "Works on the billing service" },
    { op: "remove", entry: 1 },
    { op: "remove", entry: "4" }
  ]
})

/** Hostile answers of about `size` characters. */
const shapes: Record<string, (size: number) => string> = {
  "many { with no }": (size) => "{".repeat(size),
  "many { then one }": (size) => "{".repeat(size - 1) + "}",
  "deeply nested lists": (size) => `{"changes":[${"[".repeat(size / 2)}${"]".repeat(size / 2)}]}`,
  "one huge add text": (size) => `{"changes":[{"op":"add","text":"${"a".repeat(size)}"}]}`,
  "many removes": (size) =>
    `{"changes":[${'{"op":"remove","entry":"1"},'.repeat(size / 28)}{"op":"remove","entry":1}]}`,
  "digits in an entry": (size) => `{"changes":[{"op":"remove","entry":"${"9".repeat(size)}"}]}`,
  "prose with braces": (size) => "I think {maybe} ".repeat(size / 16)
}

const sizes = [1_000, 10_000, 100_000, 1_000_000]

export const suite: Suite = async () => {
  const settings = MemoryConfig.defaults
  const review = Effect.runSync(Answer.parse(eight).pipe(Effect.flatMap((changes) => Answer.vet(changes, 4, settings))))
  if (review.apply.length !== 6 || review.leftOut.length !== 1 || review.secretsDropped !== 1) {
    throw new Error(`the 8-change answer vetted unexpectedly: ${JSON.stringify(review)}`)
  }
  const both = await time(
    () => Effect.runSync(Answer.parse(eight).pipe(Effect.flatMap((changes) => Answer.vet(changes, 4, settings)))),
    { minMs: 1_000 }
  )
  const figures: Array<Figure> = [
    { suite: "answer", name: "parse + vet, 8 changes", value: both.opsPerSec, unit: "ops/s" }
  ]
  for (const [shape, make] of Object.entries(shapes)) {
    const points: Array<readonly [number, number]> = []
    for (const size of sizes) {
      const answer = make(size)
      const timing = await time(() => Effect.runSync(Effect.result(Answer.parse(answer))), { minMs: 200, minRuns: 3 })
      points.push([answer.length, timing.medianMs])
    }
    const [, ms] = points[points.length - 1] ?? [0, 0]
    const slope = logLogSlope(points).toFixed(2)
    figures.push({ suite: "answer", name: `parse 1M: ${shape}`, value: ms, unit: "ms", note: `log-log slope ${slope}` })
  }
  return figures
}
