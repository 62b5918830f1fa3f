/**
 * The answer benchmarks: parsing a clean 8-change answer, and parsing + vetting it (ops/s, against `JSON.parse` of the
 * same answer and the original host's figures), parsing + vetting one with an over-long and a secret entry; and
 * parsing hostile answers of 1k to 1M characters (ms per call, with the fitted log-log slope: about 1 means linear,
 * no blow-up).
 */
import { Answer, MemoryConfig } from "@mneme/core"
import { Effect } from "effect"
import { type Figure, flat, logLogSlope, type Suite, time } from "./Bench.ts"

/** An answer as a model gives it: eight ordinary changes of every kind, all of which apply. */
const clean = flat(
  JSON.stringify({
    changes: [
      { op: "add", text: "The user likes green tea in the morning [source: part 1 #10]", topic: "drinks" },
      { op: "add", text: "The user's daughter starts school in Lyon in September" },
      { op: "add", text: "The user prefers answers with a short summary first" },
      { op: "add", text: "The team ships the billing service on Thursdays", team: true },
      { op: "edit", entry: 2, text: "- The user lives in Lyon, France" },
      { op: "edit", entry: "3", text: "The user works on the billing service" },
      { op: "remove", entry: 1 },
      { op: "remove", entry: "4" }
    ]
  })
)

/** The same, with an over-long entry and a secret among the adds. */
const mixed = flat(
  JSON.stringify({
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
)

/** The original host's figures (issue 11), in answers per second. */
const original = { parse: 318_000, vet: 22_400 }

/** Hostile answers of about `size` characters. */
const shapes: Record<string, (size: number) => string> = {
  "many { with no }": (size) => "{".repeat(size),
  "many { then one }": (size) => "{".repeat(size - 1) + "}",
  "deeply nested lists": (size) => `{"changes":[${"[".repeat(size / 2)}${"]".repeat(size / 2)}]}`,
  "one huge add text": (size) => `{"changes":[{"op":"add","text":"${"a".repeat(size)}"}]}`,
  "many removes": (size) =>
    `{"changes":[${'{"op":"remove","entry":"1"},'.repeat(size / 28)}{"op":"remove","entry":1}]}`,
  "many removes, the last malformed": (size) =>
    `{"changes":[${'{"op":"remove","entry":"1"},'.repeat(size / 28)}{"op":"remove","entry":0}]}`,
  "digits in an entry": (size) => `{"changes":[{"op":"remove","entry":"${"9".repeat(size)}"}]}`,
  "prose with braces": (size) => "I think {maybe} ".repeat(size / 16)
}

const sizes = [1_000, 10_000, 100_000, 1_000_000]

export const suite: Suite = async () => {
  const settings = MemoryConfig.defaults
  const review = (answer: string) =>
    Effect.runSync(Answer.parse(answer).pipe(Effect.flatMap((changes) => Answer.vet(changes, 4, settings))))
  const [cleanly, mixedly] = [review(clean), review(mixed)]
  if (cleanly.apply.length !== 8 || mixedly.apply.length !== 6 || mixedly.leftOut.length !== 1) {
    return Promise.reject(new Error(`the answers vetted unexpectedly: ${JSON.stringify([cleanly, mixedly])}`))
  }
  const baseline = { name: "JSON.parse", value: (await time(() => JSON.parse(clean), { minMs: 500 })).opsPerSec }
  const parse = await time(() => Effect.runSync(Answer.parse(clean)), { minMs: 1_000 })
  const both = await time(() => review(clean), { minMs: 1_000 })
  const withProblems = await time(() => review(mixed), { minMs: 1_000 })
  const figures: Array<Figure> = [
    {
      suite: "answer",
      name: "parse, a clean 8-change answer",
      value: parse.opsPerSec,
      unit: "ops/s",
      note: `${clean.length} characters`,
      baseline,
      original: { value: original.parse, goal: 1 }
    },
    {
      suite: "answer",
      name: "parse + vet, a clean 8-change answer",
      value: both.opsPerSec,
      unit: "ops/s",
      note: "vet checks each add and edit for secrets",
      baseline,
      original: { value: original.vet, goal: 1 }
    },
    {
      suite: "answer",
      name: "parse + vet, 8 changes with an over-long and a secret entry",
      value: withProblems.opsPerSec,
      unit: "ops/s",
      note: `${mixed.length} characters`,
      baseline: { name: "JSON.parse", value: (await time(() => JSON.parse(mixed), { minMs: 500 })).opsPerSec }
    }
  ]
  for (const [shape, make] of Object.entries(shapes)) {
    const points: Array<readonly [number, number]> = []
    for (const size of sizes) {
      const answer = flat(make(size))
      const timing = await time(() => Effect.runSync(Effect.result(Answer.parse(answer))), { minMs: 200, minRuns: 3 })
      points.push([answer.length, timing.medianMs])
    }
    const [, ms] = points[points.length - 1] ?? [0, 0]
    const slope = logLogSlope(points)
    figures.push({
      suite: "answer",
      name: `parse 1M: ${shape}`,
      value: ms,
      unit: "ms",
      note: `log-log slope ${slope.toFixed(2)}${slope <= 1.2 ? " (linear, ≤ 1.2)" : " (OVER 1.2)"}`
    })
  }
  return figures
}
