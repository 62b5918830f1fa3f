/**
 * The shapes benchmark: reading a transcript in each of the shapes `mneme review` recognises
 * (`FileTranscript.parse`: recognising the shape, then each row with its Schema, the chat text speaker pattern
 * included) on hostile inputs from 1k to 1M characters, each timed once it runs in its steady state, whose log-log slope
 * shows the reading grows linearly (≤ 1.2, or no steeper than the floor: the same run's plain split of the same input
 * into rows and `JSON.parse` of each, which any reader of these shapes does at least, and which V8 itself does in more
 * than linear time on deeply nested JSON). The inputs are rows no shape fits (which are read as far as it takes to say so), a speaker's name
 * that never ends, one chat row of a huge text or of thousands of parts, deep JSON, and many rows.
 */
import { FileTranscript } from "@mneme/node"
import { flat, logLogSlope, time, type Figure, type Suite } from "./Bench.ts"

/** `unit` repeated to about `size` characters. */
const repeat = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length))

/** A chat message row. */
const chatRow = (content: unknown) => JSON.stringify({ role: "user", content })

/** Hostile transcripts, each as a function of the wanted size in characters. */
const hostile: Record<string, (size: number) => string> = {
  "one row, no colon (fits no shape)": (size) => "a".repeat(size),
  "a name that never ends (fits no shape)": (size) => repeat("Ada ", size) + ": hi",
  "names with colons, row after row": (size) => repeat("A:\n", size),
  "one chat text line": (size) => "Ada: " + repeat("tea ", size),
  "an unclosed JSON object": (size) => '{"role": "user", "content": "' + repeat("a\\", size),
  "deep JSON array": (size) => "[".repeat(size),
  "one chat row of a huge text": (size) => chatRow(repeat("tea and toast ", size)),
  "one chat row of many parts": (size) =>
    chatRow(Array.from({ length: size / 30 }, () => ({ type: "text", text: "x" }))),
  "one Claude Code record of many tool calls": (size) =>
    JSON.stringify({
      type: "assistant",
      uuid: "u",
      message: {
        role: "assistant",
        content: Array.from({ length: size / 60 }, (_, i) => ({
          type: "tool_use",
          id: `t${i}`,
          name: "Read",
          input: {}
        }))
      }
    }),
  "many chat rows": (size) => repeat(chatRow("hello there") + "\n", size)
}

const sizes = [1_000, 10_000, 100_000, 1_000_000]

/** Calls made on each input before it is timed (see the format benchmark: a call at 1M first grows the heap). */
const settleCalls = 10

const round = (value: number) => Number(value.toPrecision(3))

/** The floor a slope is read against: the input split into rows, and each row given to `JSON.parse`. */
const floor = (text: string) =>
  text.split(/\r\n|\r|\n/).map((row) => {
    try {
      return JSON.parse(row) as unknown
    } catch {
      return undefined
    }
  })

/** A slope's verdict: linear (≤ 1.2), no steeper than the same run's floor, or over. */
const verdict = (slope: number, floorSlope: number) =>
  slope <= 1.2
    ? "linear (≤ 1.2)"
    : slope <= floorSlope + 0.05
      ? `over 1.2 as the platform's own split + JSON.parse of the same inputs is (${floorSlope.toFixed(2)}): linear`
      : "OVER 1.2"

/** Reads a transcript, as the CLI reads one, to its lines or its failure. */
const read = (text: string) => FileTranscript.parse("bench.jsonl", text)

export const suite: Suite = async () => {
  const figures: Array<Figure> = []
  const steady = async (input: string, call: (text: string) => unknown) => {
    for (let i = 0; i < settleCalls; i++) call(input)
    return (await time(() => call(input), { minMs: 200, minRuns: 15 })).medianMs
  }
  for (const [name, make] of Object.entries(hostile)) {
    const points: Array<readonly [number, number]> = []
    const floorPoints: Array<readonly [number, number]> = []
    for (const size of sizes) {
      const input = flat(make(size))
      points.push([input.length, await steady(input, read)])
      floorPoints.push([input.length, await steady(input, floor)])
    }
    const slope = logLogSlope(points)
    const floorSlope = logLogSlope(floorPoints)
    const last = points.at(-1)?.[1] ?? 0
    figures.push(
      {
        suite: "shapes",
        name: `read 1M: ${name}`,
        value: last,
        unit: "ms",
        note: last < 1_000 ? "under 1 s" : "OVER 1 s"
      },
      {
        suite: "shapes",
        name: `read slope: ${name}`,
        value: slope,
        unit: "log-log",
        baseline: { name: "split + JSON.parse of the same inputs", value: floorSlope },
        note: `${verdict(slope, floorSlope)}; ms at 1k/10k/100k/1M: ${points.map(([, ms]) => round(ms)).join(" / ")}`
      }
    )
  }
  return figures
}
