/**
 * `mneme forget --purge` and `mneme purge --conversation` (issue 27 item 3): the entries go, and so does their text,
 * from every file under the memory folder; the journal keeps that a purge happened, with no text, and `undo` says it
 * cannot bring the text back. Over a memory folder, and over Postgres (127.0.0.1:5432, database `test`), where every row
 * of the root's schema is read back with psql.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, files, mneme, mnemeIn, ownMemory, type Run, scratch } from "./cliKit.ts"
import { freshRoot, psql } from "./postgresKit.ts"

/** A run that succeeded with nothing on stderr; its stdout. */
const ok = (run: Run): string => {
  assert.strictEqual(run.code, 0, run.stderr)
  assert.strictEqual(run.stderr, "")
  return run.stdout
}

/** Every file under `dir` as one text. */
const everything = (dir: string) => Object.values(files(dir)).join("\n")

/** The journal's lines, parsed. */
const journalOf = (memory: string) =>
  files(memory)
    ["journal.jsonl"]!.trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe("forgetting that erases (issue 27 item 3)", () => {
  it("forget --purge removes the entry and erases its text, and its earlier version, from every file", () => {
    const { dir, memory } = scratch()
    const run = (...args: ReadonlyArray<string>) => mnemeIn(dir, args)
    ok(run("remember", "The user likes jasmine tea"))
    ok(run("edit", "jasmine", "The user likes jasmine tea daily"))
    ok(run("remember", "The user walks to work"))
    assert.include(everything(memory), "jasmine")

    const out = ok(run("forget", "--purge", "jasmine"))
    assert.match(out, /^purged 1 entry from agents\/default\/MEMORY\.md: .*\(2 lines erased\).*cannot be undone\n$/)
    assert.notInclude(everything(memory), "jasmine")
    assert.include(ownMemory(memory), "The user walks to work")
    const purge = journalOf(memory).at(-1)!
    assert.deepStrictEqual([purge["op"], purge["actor"], purge["entries"]], ["purge", "cli", 1])
    assert.notProperty(purge, "before")

    assertFailure(run("undo"), 1, "a purge erased its text for good")
    assert.notInclude(everything(memory), "jasmine")
    assert.include(ok(run("journal")), "1 entry purged")
  })

  it("purge --conversation removes the entries whose sources all lie in it, in the agent's and the team's memory", () => {
    const { dir, memory } = scratch()
    const run = (...args: ReadonlyArray<string>) => mnemeIn(dir, args)
    mkdirSync(join(memory, "agents/default"), { recursive: true })
    mkdirSync(join(memory, "team"), { recursive: true })
    writeFileSync(
      join(memory, "agents/default/MEMORY.md"),
      "# Memory\n\n- Marco is a backend developer [source: chat-1 #1]\n- Marco likes Go [source: chat-1 #4, chat-2 #2]\n"
    )
    writeFileSync(join(memory, "team/MEMORY.md"), "# Memory\n\n- Deploys freeze on quartz days [source: chat-1 #9]\n")

    const out = ok(run("purge", "--conversation", "chat-1"))
    assert.match(out, /^purged 2 entries from /)
    const stored = everything(memory)
    assert.notInclude(stored, "backend developer")
    assert.notInclude(stored, "quartz")
    assert.include(ownMemory(memory), "Marco likes Go")
    assert.deepStrictEqual(
      journalOf(memory).map((line) => [line["op"], line["scope"], line["entries"]]),
      [
        ["purge", "team", 1],
        ["purge", "agents/default", 1]
      ]
    )
    assert.include(ok(run("purge", "--conversation", "chat-1")), "purged nothing")
  })

  it("forget --purge of a match that names nothing fails and changes nothing", () => {
    const { dir, memory } = scratch()
    const run = (...args: ReadonlyArray<string>) => mnemeIn(dir, args)
    ok(run("remember", "The user walks to work"))
    const before = files(memory)
    assertFailure(run("forget", "--purge", "jasmine"), 1, "jasmine")
    assert.deepStrictEqual(files(memory), before)
  })
})

/** Every row of every table of `schema`, as text. */
const rowsOf = (schema: string) =>
  psql(`SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}'`)
    .trim()
    .split("\n")
    .map((table) => psql(`SELECT t::text FROM "${schema}"."${table}" t`))
    .join("\n")

describe("forgetting that erases over Postgres (issue 27 item 3)", () => {
  it("forget --purge leaves the text in no row of the schema, and undo says it cannot bring it back", () => {
    const { schema, url } = freshRoot()
    const run = (...args: ReadonlyArray<string>) => mneme([...args, "--memory", url])
    ok(run("remember", "The user likes jasmine tea"))
    ok(run("edit", "jasmine", "The user likes jasmine tea daily"))
    ok(run("remember", "The user walks to work"))
    assert.include(rowsOf(schema), "jasmine")

    assert.match(ok(run("forget", "--purge", "jasmine")), /^purged 1 entry from agents\/default\/MEMORY\.md: /)
    const rows = rowsOf(schema)
    assert.notInclude(rows, "jasmine")
    assert.include(rows, "The user walks to work")
    assert.strictEqual(psql(`SELECT op, actor, entries FROM "${schema}".journal WHERE op = 'purge'`), "purge|cli|1\n")
    assertFailure(run("undo"), 1, "a purge erased its text for good")
    assert.notInclude(rowsOf(schema), "jasmine")
  })
})
