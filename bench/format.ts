/**
 * The format benchmarks: reading and writing a full MEMORY.md and a full topic (parse, format an entry, insert it,
 * render), the metadata split of a 16k bullet of brackets, each against a plain loop over the same characters and the
 * original host's figure; and parse, clean and split times on hostile inputs from 1k to 1M characters, each timed once
 * it runs in its steady state, whose log-log slope shows they grow linearly (≤ 1.2, or no steeper than the same run's
 * split + join of the same inputs: see `floor`).
 */
import { Entry, MemoryFile, Topic } from "@mneme/core"
import { fact, flat, logLogSlope, plainLoop, time, type Figure, type Suite } from "./Bench.ts"

/** Lines from `make(i)` until the text reaches `size` characters. */
const fill = (head: string, size: number, make: (i: number) => string): string => {
  let text = head
  for (let i = 0; text.length < size; i++) text += make(i) + "\n"
  return text
}

const links = Array.from({ length: 12 }, (_, i) => `- [[topic-${i}]]`).join("\n")
const memory = flat(
  fill("# Memory\n\nNotes kept by hand stay as they are.\n\n", 4000 - links.length - 10, fact) +
    "\n## Index\n" +
    links +
    "\n"
)
const topic = flat(fill("# travel\n\n", 16000, (i) => (i % 25 === 24 ? `\n## Part ${i}\n` : fact(i))))

/** Parse, format and insert one entry, render: what one add does to a file's text. The parse cleans the index's topic
 * names as the store's backends do, with a `Topic.cleaner` they keep while they live. */
const roundTrip = (content: string, kind: "memory" | "topic") => {
  const names = Topic.cleaner()
  return () => {
    const parsed = MemoryFile.parse(content, names)
    return MemoryFile.render(
      MemoryFile.insertEntry(parsed, Entry.format("A new fact", [["added", "2026-11-07"]]), kind)
    )
  }
}

/** The original host's figures (issue 11): round trips per second, and the split in milliseconds. */
const original = { memory: 32_900, topic: 5_800, split: 0.139 }

/** Hostile shapes, each as a function of the wanted size in characters. */
const repeat = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length))
const hostileFiles: Record<string, (size: number) => string> = {
  "unclosed [key: brackets": (size) => "- " + repeat("[key:", size),
  "unclosed [key: lines": (size) => repeat("- [key:\n", size),
  "space run in an entry": (size) => "- x" + " ".repeat(size) + "y [a: b]",
  "space run before the text": (size) => "- " + " ".repeat(size) + "x",
  "closed brackets": (size) => "- x" + repeat(" [a: b]", size),
  "one long bracket": (size) => "- x [" + repeat("a: b;", size) + "]",
  "closing brackets": (size) => "- " + repeat("x]", size),
  "bullet run": (size) => repeat("- ", size) + "x",
  "heading marks": (size) => "#".repeat(size),
  "index heading run": (size) => "## Index" + " ".repeat(size) + "#x",
  "unclosed links": (size) => "## Index\n" + repeat("- [[", size)
}
const hostileTexts: Record<string, (size: number) => string> = {
  "unclosed [key:": (size) => repeat("[key:", size),
  "space run": (size) => " ".repeat(size) + "x",
  brackets: (size) => repeat("[a: b]", size),
  "one long bracket": (size) => "[" + repeat("a: b;", size) + "]",
  "closing brackets": (size) => repeat("x]", size),
  bullets: (size) => repeat("- ", size) + "x"
}
const sizes = [1_000, 10_000, 100_000, 1_000_000]

/**
 * Calls made on each hostile input before it is timed. A call on 1M characters holds tens of megabytes until it
 * returns (125k lines and their entries, 200k metadata pairs): more than V8's young generation keeps, so they move to
 * the old generation, which the first calls at that size must grow. Over its first ten to twenty calls such a call
 * takes up to twice what it takes from then on, and `time`'s warm-up (50 ms, at least 3 calls) ends long before. That
 * is a cost of the process reaching the size once, not of each call; inputs up to 100k are past it within `time`'s
 * warm-up, so without these calls the slope would set their steady state against the first calls at 1M.
 */
const settleCalls = 20

const round = (value: number) => Number(value.toPrecision(3))

/**
 * The floor a slope is read against: the same input split into pieces at every line end and `;` and joined again, as
 * any parse into lines or metadata pairs must at least do, timed the same way in the same run. On this kind of machine
 * even that grows faster than linearly from 100k to 1M characters (a call that holds 125k strings outgrows V8's young
 * generation: split alone measured 0.22 -> 5.4 ms, split + join 0.38 -> 23 ms), so a slope a little over 1.2 that the
 * floor shares is the platform's, not quadratic work; a quadratic parse is at 2.
 */
const floor = (text: string) => text.split(/[\n;]/).join("\n")

/** A slope's verdict: linear (≤ 1.2), no steeper than the same run's floor, or over. */
const verdict = (slope: number, floorSlope: number) =>
  slope <= 1.2
    ? "linear (≤ 1.2)"
    : slope <= floorSlope + 0.05
      ? `over 1.2 as the platform's own split + join of the same inputs is (${floorSlope.toFixed(2)}): linear`
      : "OVER 1.2"

export const suite: Suite = async () => {
  const figures: Array<Figure> = []
  for (const [name, content, kind] of [
    ["full MEMORY.md", memory, "memory"],
    ["full topic", topic, "topic"]
  ] as const) {
    const timing = await time(roundTrip(content, kind), { minMs: 1_000 })
    const baseline = await time(() => plainLoop(content), { minMs: 300 })
    figures.push({
      suite: "format",
      name: `parse + format + insert + render, ${name}`,
      value: timing.opsPerSec,
      unit: "ops/s",
      note: `${content.length} characters, ${MemoryFile.parse(content).entries.length} entries`,
      baseline: { name: "plain loop", value: baseline.opsPerSec },
      original: { value: original[kind], goal: 1 }
    })
  }
  const brackets = flat("x" + " [a: b]".repeat(Math.ceil(16_000 / 7)))
  const split = await time(() => Entry.split(brackets), { minMs: 1_000 })
  const splitBaseline = await time(() => plainLoop(brackets), { minMs: 300 })
  figures.push({
    suite: "format",
    name: "metadata split, a 16k bullet of ` [a: b]` repeated",
    value: split.medianMs * 1000,
    unit: "µs",
    note: `${brackets.length} characters`,
    baseline: { name: "plain loop", value: splitBaseline.medianMs * 1000 },
    original: { value: original.split * 1000, goal: 1 }
  })
  const slopes = async (
    label: string,
    shapes: Record<string, (size: number) => string>,
    run: (text: string) => unknown
  ) => {
    /** The median time of `call` on `input` in its steady state. */
    const steady = async (input: string, call: (text: string) => unknown) => {
      for (let i = 0; i < settleCalls; i++) call(input)
      // 15 samples at least: at 1M one sample is one call, and a call there varies by a third from one to the next.
      return (await time(() => call(input), { minMs: 200, minRuns: 15 })).medianMs
    }
    for (const [name, make] of Object.entries(shapes)) {
      const points: Array<readonly [number, number]> = []
      const floorPoints: Array<readonly [number, number]> = []
      for (const size of sizes) {
        const input = flat(make(size))
        points.push([input.length, await steady(input, run)])
        floorPoints.push([input.length, await steady(input, floor)])
      }
      const slope = logLogSlope(points)
      const floorSlope = logLogSlope(floorPoints)
      const last = points[points.length - 1]?.[1] ?? 0
      figures.push(
        {
          suite: "format",
          name: `${label} 1M: ${name}`,
          value: last,
          unit: "ms",
          note: last < 1_000 ? "under 1 s" : "OVER 1 s"
        },
        {
          suite: "format",
          name: `${label} slope: ${name}`,
          value: slope,
          unit: "log-log",
          baseline: { name: "split + join of the same inputs", value: floorSlope },
          note: `${verdict(slope, floorSlope)}; ms at 1k/10k/100k/1M: ${points.map(([, ms]) => round(ms)).join(" / ")}`
        }
      )
    }
  }
  await slopes("parse + render", hostileFiles, (text) => MemoryFile.render(MemoryFile.parse(text).lines))
  await slopes("clean + split", hostileTexts, (text) => [Entry.clean(text), Entry.split(text)])
  return figures
}
