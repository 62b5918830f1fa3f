/**
 * The format benchmarks: reading and writing a full MEMORY.md and a full topic, and parse time on hostile inputs
 * from 1k to 1M characters, whose log-log slope shows the parse grows linearly.
 */
import { Entry, MemoryFile } from "@mneme/core"
import { fact, logLogSlope, time, type Figure, type Suite } from "./Bench.ts"

/** Lines from `make(i)` until the text reaches `size` characters. */
const fill = (head: string, size: number, make: (i: number) => string): string => {
  let text = head
  for (let i = 0; text.length < size; i++) text += make(i) + "\n"
  return text
}

const links = Array.from({ length: 12 }, (_, i) => `- [[topic-${i}]]`).join("\n")
const memory =
  fill("# Memory\n\nNotes kept by hand stay as they are.\n\n", 4000 - links.length - 10, fact) +
  "\n## Index\n" +
  links +
  "\n"
const topic = fill("# travel\n\n", 16000, (i) => (i % 25 === 24 ? `\n## Part ${i}\n` : fact(i)))

/** Parse, format and insert one entry, render: what one add does to a file's text. */
const roundTrip = (content: string, kind: "memory" | "topic") => () => {
  const parsed = MemoryFile.parse(content)
  return MemoryFile.render(MemoryFile.insertEntry(parsed, Entry.format("A new fact", [["added", "2026-11-07"]]), kind))
}

/** Hostile shapes, each as a function of the wanted size in characters. */
const repeat = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length))
const hostile: Record<string, (size: number) => string> = {
  "unclosed [key: brackets": (size) => "- " + repeat("[key:", size),
  "unclosed [key: lines": (size) => repeat("- [key:\n", size),
  "space run in an entry": (size) => "- x" + " ".repeat(size) + "y [a: b]",
  "closed brackets": (size) => "- x" + repeat(" [a: b]", size),
  "one long bracket": (size) => "- x [" + repeat("a: b;", size) + "]",
  "closing brackets": (size) => "- " + repeat("x]", size),
  "bullet run": (size) => repeat("- ", size) + "x",
  "index heading run": (size) => "## Index" + " ".repeat(size) + "#x",
  "unclosed links": (size) => "## Index\n" + repeat("- [[", size)
}
const sizes = [1_000, 10_000, 100_000, 1_000_000]

const round = (value: number) => Number(value.toPrecision(3))

export const suite: Suite = async () => {
  const figures: Array<Figure> = []
  for (const [name, content, kind] of [
    ["full MEMORY.md", memory, "memory"],
    ["full topic", topic, "topic"]
  ] as const) {
    const timing = await time(roundTrip(content, kind))
    figures.push({
      suite: "format",
      name: `parse + format + insert + render, ${name}`,
      value: timing.opsPerSec,
      unit: "ops/s",
      note: `${content.length} characters, ${MemoryFile.parse(content).entries.length} entries`
    })
  }
  for (const [name, make] of Object.entries(hostile)) {
    const points: Array<readonly [number, number]> = []
    for (const size of sizes) {
      const input = make(size)
      const timing = await time(() => MemoryFile.parse(input), { minMs: 200, minRuns: 7 })
      points.push([input.length, timing.medianMs])
    }
    const slope = logLogSlope(points)
    const last = points[points.length - 1]?.[1] ?? 0
    figures.push(
      { suite: "format", name: `parse 1M: ${name}`, value: last, unit: "ms" },
      {
        suite: "format",
        name: `parse slope: ${name}`,
        value: slope,
        unit: "log-log",
        note: `ms at 1k/10k/100k/1M: ${points.map(([, ms]) => round(ms)).join(" / ")}; 1k–100k slope ${round(logLogSlope(points.slice(0, 3)))}`
      }
    )
  }
  return figures
}
