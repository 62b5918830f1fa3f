/**
 * `mneme pending`, `approve` and `reject` (issue 28): the entries a review holds for a person, the agent's own then
 * the team's, numbered; an approved entry is written to MEMORY.md through the store (vetted again, journaled) and
 * leaves the list, one the store refuses stays; a rejected one leaves the list and nothing is written; a number that
 * names no entry changes nothing. Each hold, approval and rejection is journaled. From end to end: `mneme review` holds
 * what reads as an instruction and what another speaker said, and a person approves one. (Over Postgres:
 * cliPostgresPending.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fact, order, reviewHolding } from "./pendingKit.ts"
import { assertFailure, mneme, scratch } from "./cliKit.ts"

const teamFact = "The team deploys on Fridays"

/** A memory folder where two entries of agent ada and one of the team wait. */
const waiting = (entries: { own?: ReadonlyArray<string>; team?: ReadonlyArray<string> } = {}) => {
  const { memory } = scratch()
  const write = (dir: string, texts: ReadonlyArray<string>) => {
    mkdirSync(join(memory, dir), { recursive: true })
    const held = texts.map((text, i) => ({
      text,
      source: `chat #${i + 1}`,
      by: "ada",
      why:
        i === 0 ? "it reads as an instruction to the agent" : "it comes from lines that are not the user's own words",
      at: 1_764_800_000_000 + i
    }))
    writeFileSync(join(memory, dir, "pending.json"), JSON.stringify({ version: 1, entries: held }))
  }
  write("agents/ada", entries.own ?? [order, fact])
  write("team", entries.team ?? [teamFact])
  return memory
}

const pendingOf = (memory: string, dir: string) => {
  const file = join(memory, dir, "pending.json")
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as { entries: Array<{ text: string }> }).entries.map((e) => e.text)
    : []
}

const memoryOf = (memory: string, dir: string) => {
  const file = join(memory, dir, "MEMORY.md")
  return existsSync(file) ? readFileSync(file, "utf8") : ""
}

const at = (memory: string, ...args: ReadonlyArray<string>) => mneme([...args, "--memory", memory, "--agent", "ada"])

describe("mneme pending", () => {
  it("lists the agent's own entries, then the team's, numbered, with where each comes from and why it waits", () => {
    const memory = waiting()
    const run = at(memory, "pending")
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(
      run.stdout,
      `1. ${JSON.stringify(order)}\n   own, from chat #1: it reads as an instruction to the agent\n`
    )
    assert.include(run.stdout, `2. ${JSON.stringify(fact)}\n`)
    assert.include(run.stdout, `3. ${JSON.stringify(teamFact)}\n   team, from chat #1:`)
    const json = JSON.parse(at(memory, "pending", "--json").stdout) as {
      pending: Array<{ number: number; scope: string; text: string; source: string; why: string; at: string }>
    }
    assert.deepStrictEqual(
      json.pending.map((entry) => [entry.number, entry.scope, entry.text]),
      [
        [1, "own", order],
        [2, "own", fact],
        [3, "team", teamFact]
      ]
    )
    assert.strictEqual(json.pending[0]!.at, "2025-12-03T22:13:20.000Z")
  })

  it("says when nothing waits", () => {
    const { memory } = scratch()
    mkdirSync(memory)
    const run = at(memory, "pending")
    assert.strictEqual(run.code, 0, run.stderr)
    assert.strictEqual(run.stdout, "nothing waits for a person\n")
  })
})

describe("mneme approve", () => {
  it("writes the entries named to memory, journaled with their source, and takes them off the list", () => {
    const memory = waiting()
    const run = at(memory, "approve", "2", "3")
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(memoryOf(memory, "agents/ada"), `- ${fact}`)
    assert.include(memoryOf(memory, "agents/ada"), "source: chat #2")
    assert.include(memoryOf(memory, "team"), `- ${teamFact}`)
    assert.include(memoryOf(memory, "team"), "by: ada")
    assert.deepStrictEqual(pendingOf(memory, "agents/ada"), [order])
    assert.isFalse(existsSync(join(memory, "team/pending.json")))
    const journal = readFileSync(join(memory, "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { op: string; actor: string; after?: string })
    assert.deepStrictEqual(
      journal.map((line) => [line.op, line.actor]),
      [
        ["add", "cli"],
        ["approve", "cli"],
        ["add", "cli"],
        ["approve", "cli"]
      ]
    )
  })

  it("vets the entry again: one memory cannot keep stays pending, the run fails, the others are written", () => {
    const tooLong = `The user keeps a long list: ${"tea, ".repeat(80)}`
    const memory = waiting({ own: [fact, tooLong], team: [] })
    const run = at(memory, "approve", "1", "2")
    assert.strictEqual(run.code, 1)
    assert.include(run.stdout, "2. still pending: ")
    assert.match(run.stderr, /^mneme: 1 entry stays pending: still pending: /u)
    assert.include(memoryOf(memory, "agents/ada"), `- ${fact}`)
    assert.notInclude(memoryOf(memory, "agents/ada"), "tea, tea")
    assert.deepStrictEqual(pendingOf(memory, "agents/ada"), [tooLong])
  })

  it("changes nothing when a number names no entry", () => {
    const memory = waiting()
    const run = at(memory, "approve", "2", "7")
    assertFailure(run, 2, "no pending entry 7", "nothing was changed")
    assert.strictEqual(memoryOf(memory, "agents/ada"), "")
    assert.deepStrictEqual(pendingOf(memory, "agents/ada"), [order, fact])
  })
})

describe("mneme reject", () => {
  it("drops the entries named, writing nothing to memory", () => {
    const memory = waiting()
    const run = at(memory, "reject", "1", "--json")
    assert.strictEqual(run.code, 0, run.stderr)
    const json = JSON.parse(run.stdout) as { decided: Array<{ number: number; text: string; done: boolean }> }
    assert.deepStrictEqual(
      json.decided.map((entry) => [entry.number, entry.text, entry.done]),
      [[1, order, true]]
    )
    assert.deepStrictEqual(pendingOf(memory, "agents/ada"), [fact])
    assert.strictEqual(memoryOf(memory, "agents/ada"), "")
    // The rejection is journaled, and nothing else.
    const journal = readFileSync(join(memory, "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { op: string; file: string; actor: string; before?: string })
    assert.deepStrictEqual(
      journal.map((line) => [line.op, line.file, line.actor, line.before]),
      [["reject", "agents/ada/pending.json", "cli", order]]
    )
  })
})

describe("mneme review, then pending and approve", () => {
  it("holds an instruction and another speaker's fact, writes the user's, and a person approves one", () => {
    const { memory } = scratch()
    const run = reviewHolding(memory)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(memoryOf(memory, "agents/ada"), "- The user prefers answers in Spanish")
    assert.deepStrictEqual(pendingOf(memory, "agents/ada"), [order, fact])
    const listed = at(memory, "pending")
    assert.include(listed.stdout, `2. ${JSON.stringify(fact)}`)
    assert.include(listed.stdout, "it comes from lines that are not the user's own words")
    assert.strictEqual(at(memory, "approve", "2").code, 0)
    assert.include(memoryOf(memory, "agents/ada"), `- ${fact}`)
    assert.notInclude(memoryOf(memory, "agents/ada"), "files.example")
    assert.deepStrictEqual(pendingOf(memory, "agents/ada"), [order])
  })
})

describe("pending entries are never read through a link", () => {
  it("a link in pending.json's place fails, naming the file, and shows nothing of where it leads", () => {
    const memory = waiting()
    const { dir } = scratch()
    const outside = join(dir, "elsewhere.json")
    writeFileSync(outside, readFileSync(join(memory, "agents/ada/pending.json")))
    rmSync(join(memory, "agents/ada/pending.json"))
    symlinkSync(outside, join(memory, "agents/ada/pending.json"))
    const run = at(memory, "pending")
    assertFailure(run, 1, "agents/ada/pending.json")
    assert.notInclude(run.stdout + run.stderr, "files.example")
    assertFailure(at(memory, "reject", "1"), 1, "agents/ada/pending.json")
    assert.include(readFileSync(outside, "utf8"), "files.example")
  })
})
