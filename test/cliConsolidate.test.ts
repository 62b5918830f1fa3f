/**
 * `mneme consolidate [--dry-run]` by hand: the model (recorded answers) merges, removes and moves entries of a full
 * MEMORY.md; the dry run writes nothing, the real one journals every line it takes out as `consolidate`, and `undo`
 * reverts it as one change. The built command runs as a child process, in a folder of its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, files, mneme, scratch } from "./cliKit.ts"

const memoryText = [
  "# Memory",
  "",
  "- The user likes tea",
  "- The user likes green tea a lot",
  "- The user's flight to Oslo is on 2026-01-20",
  "- The user's bike is a red Canyon road bike with 28 mm tyres",
  "",
  "## Index",
  ""
].join("\n")

const answers = (dir: string) => {
  const file = join(dir, "answers.jsonl")
  const changes = [
    { op: "edit", entry: 2, text: "The user likes tea, green tea most" },
    { op: "remove", entry: 1 },
    { op: "remove", entry: 3 },
    { op: "move", entry: 4, topic: "bike" }
  ]
  writeFileSync(file, JSON.stringify({ answer: JSON.stringify({ changes }) }) + "\n")
  return `replay:${file}`
}

/** A memory folder whose agent "default" has the MEMORY.md above. */
const folder = () => {
  const { dir, memory } = scratch()
  mkdirSync(join(memory, "agents/default"), { recursive: true })
  writeFileSync(join(memory, "agents/default/MEMORY.md"), memoryText)
  return { dir, memory, model: answers(dir) }
}

describe("mneme consolidate", () => {
  it("--dry-run prints what it would change and writes nothing", () => {
    const { memory, model } = folder()
    const before = files(memory)
    const run = mneme(["consolidate", "--dry-run", "--model", model, "--memory", memory])
    assert.strictEqual(run.code, 0, run.stderr)
    const lines = run.stdout.trimEnd().split("\n")
    const sizes = /^would consolidate agents\/default\/MEMORY\.md: (\d+) \/ 4,000 → (\d+) \/ 4,000$/.exec(lines[0]!)
    assert.isNotNull(sizes, lines[0])
    assert.strictEqual(Number(sizes![1]), [...memoryText].length)
    assert.isBelow(Number(sizes![2]), Number(sizes![1]))
    assert.deepStrictEqual(lines.slice(1), [
      '  - removed "The user likes tea"',
      `  - removed "The user's flight to Oslo is on 2026-01-20"`,
      '  ~ "The user likes green tea a lot" is now "The user likes tea, green tea most"',
      `  > moved "The user's bike is a red Canyon road bike with 28 mm tyres" to the topic bike`,
      "nothing was written (--dry-run)"
    ])
    assert.deepStrictEqual(files(memory), before)
  })

  it("consolidates, journals what it took out as one change, and undo reverts it whole", () => {
    const { memory, model } = folder()
    const run = mneme(["consolidate", "--model", model, "--memory", memory, "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const result = JSON.parse(run.stdout)
    assert.strictEqual(result._tag, "Consolidated")
    assert.deepStrictEqual(
      result.moved.map((entry: { topic: string }) => entry.topic),
      ["bike"]
    )
    const now = readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8")
    assert.include(now, "- The user likes tea, green tea most")
    assert.include(now, "- [[bike]]")
    assert.notInclude(now, "Oslo")
    assert.include(readFileSync(join(memory, "agents/default/bike.md"), "utf8"), "red Canyon road bike")
    const journal = readFileSync(join(memory, "journal.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
    assert.isTrue(journal.every((line) => line.op === "consolidate" && line.actor === "cli"))
    const journaled = JSON.stringify(journal)
    for (const text of ["The user likes tea", "flight to Oslo", "The user likes green tea a lot", "red Canyon"]) {
      assert.include(journaled, text)
    }

    const undone = mneme(["undo", "--memory", memory])
    assert.strictEqual(undone.code, 0, undone.stderr)
    assert.include(undone.stdout, "the consolidation of agents/default/MEMORY.md")
    const back = readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8")
    for (const line of memoryText.split("\n").filter((line) => line.startsWith("- "))) assert.include(back, line)
    assert.notInclude(back, "[[bike]]")
  })

  it("without a model it is a usage error naming both ways", () => {
    const { memory } = folder()
    assertFailure(mneme(["consolidate", "--memory", memory]), 2, "no model configured")
  })
})
