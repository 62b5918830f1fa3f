/**
 * The entries a review holds for a person (issue 28) over memory in Postgres, as a person runs the CLI: `mneme review
 * --memory postgres://…` holds what reads as an instruction and what another speaker said, in the schema's `pending`
 * table; `mneme pending`, `approve` and `reject` list and decide them there; `mneme journal` shows each hold, approval
 * and rejection; `mneme undo` takes back the entry an approval wrote; `mneme import` and `export` move them between a
 * folder and Postgres as they are. These tests fail, never skip, without Postgres.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, mneme, type Run, scratch } from "./cliKit.ts"
import { fact, order, reviewHolding, spanish } from "./pendingKit.ts"
import { freshRoot, psql } from "./postgresKit.ts"

/** A run that succeeded; its stdout. */
const ok = (run: Run): string => {
  assert.strictEqual(run.code, 0, run.stderr)
  return run.stdout
}

const at = (url: string, ...args: ReadonlyArray<string>) => mneme([...args, "--memory", url, "--agent", "ada"])

/** The own entries `show --json` lists. */
const ownEntries = (url: string): ReadonlyArray<string> => {
  const shown = JSON.parse(ok(at(url, "show", "--json"))) as {
    scopes: ReadonlyArray<{ scope: string; files: ReadonlyArray<{ entries: ReadonlyArray<{ text: string }> }> }>
  }
  return shown.scopes
    .filter((scope) => scope.scope === "own")
    .flatMap((scope) => scope.files.flatMap((file) => file.entries.map((entry) => entry.text)))
}

/** The pending entries `pending --json` lists, every field. */
const pendingJson = (url: string): unknown => JSON.parse(ok(at(url, "pending", "--json")))

/** The ops of the journal's lines. */
const journalOps = (url: string): ReadonlyArray<string> =>
  (JSON.parse(ok(at(url, "journal", "--json"))) as { journal: ReadonlyArray<{ op: string }> }).journal.map(
    (line) => line.op
  )

const pendingTexts = (url: string): ReadonlyArray<string> =>
  (JSON.parse(ok(at(url, "pending", "--json"))) as { pending: ReadonlyArray<{ text: string }> }).pending.map(
    (entry) => entry.text
  )

/** Reviews the kit's chat into `url`. */
const reviewed = (url: string) => ok(reviewHolding(url))

describe("mneme pending, approve and reject --memory postgres://…", () => {
  it(
    "a review holds in Postgres what a person then lists, approves and rejects, each journaled",
    { timeout: 240_000 },
    () => {
      const { url, schema } = freshRoot()
      reviewed(url)
      assert.deepStrictEqual(ownEntries(url), [spanish])
      assert.deepStrictEqual(pendingTexts(url), [order, fact])
      assert.strictEqual(psql(`SELECT count(*) FROM "${schema}".pending`).trim(), "2")
      const listed = ok(at(url, "pending"))
      assert.include(listed, `1. ${JSON.stringify(order)}\n   own, from `)
      assert.include(listed, "it reads as an instruction to the agent")
      assert.include(listed, `2. ${JSON.stringify(fact)}`)
      assert.include(listed, "it comes from lines that are not the user's own words")

      const approved = ok(at(url, "approve", "2"))
      assert.match(approved, /^2\. /u)
      assert.deepStrictEqual(ownEntries(url), [spanish, fact])
      assert.deepStrictEqual(pendingTexts(url), [order])

      const rejected = JSON.parse(ok(at(url, "reject", "1", "--json"))) as {
        decided: ReadonlyArray<{ number: number; text: string; done: boolean }>
      }
      assert.deepStrictEqual(
        rejected.decided.map((entry) => [entry.number, entry.text, entry.done]),
        [[1, order, true]]
      )
      assert.deepStrictEqual(pendingTexts(url), [])
      assert.strictEqual(ok(at(url, "pending")), "nothing waits for a person\n")
      assert.notInclude(JSON.stringify(ownEntries(url)), "files.example")

      const journal = JSON.parse(ok(at(url, "journal", "--json"))) as {
        journal: ReadonlyArray<{ op: string; file: string; actor: string; before?: string; after?: string }>
      }
      assert.deepStrictEqual(
        journal.journal.map((line) => [line.op, line.file, line.actor]),
        [
          ["hold", "agents/ada/pending.json", "review"],
          ["hold", "agents/ada/pending.json", "review"],
          ["add", "agents/ada/MEMORY.md", "review"],
          ["add", "agents/ada/MEMORY.md", "cli"],
          ["approve", "agents/ada/pending.json", "cli"],
          ["reject", "agents/ada/pending.json", "cli"]
        ]
      )
      assert.deepStrictEqual(
        journal.journal.filter((line) => line.op !== "add").map((line) => line.after ?? line.before),
        [order, fact, fact, order]
      )
      const shown = ok(at(url, "journal"))
      assert.include(shown, "hold     agents/ada/pending.json")
      assert.include(shown, "approve  agents/ada/pending.json")
      assert.include(shown, "reject   agents/ada/pending.json")

      // An undo takes back the entry the approval wrote; the approval stays in the journal.
      const undone = ok(at(url, "undo"))
      assert.include(undone, fact)
      assert.deepStrictEqual(ownEntries(url), [spanish])
      assert.deepStrictEqual(pendingTexts(url), [])
    }
  )

  it("a number that names no entry changes nothing", { timeout: 120_000 }, () => {
    const { url, schema } = freshRoot()
    reviewed(url)
    assertFailure(at(url, "approve", "1", "7"), 2, "no pending entry 7", "nothing was changed")
    assert.deepStrictEqual(pendingTexts(url), [order, fact])
    assert.deepStrictEqual(ownEntries(url), [spanish])
    assert.strictEqual(psql(`SELECT count(*) FROM "${schema}".journal WHERE op <> 'hold'`).trim(), "1")
  })

  it(
    "import and export move the entries waiting for a person as they are, folder to Postgres and back, journaled once",
    { timeout: 240_000 },
    () => {
      const { dir } = scratch()
      const folder = join(dir, "memory")
      reviewed(folder)
      const waiting = pendingJson(folder)
      assert.deepStrictEqual(pendingTexts(folder), [order, fact])
      const ops = journalOps(folder)
      assert.deepStrictEqual(ops.filter((op) => op === "hold").length, 2)

      const { url, schema } = freshRoot()
      const into = JSON.parse(ok(mneme(["import", folder, "--memory", url, "--json"]))) as { pending: number }
      assert.strictEqual(into.pending, 2)
      assert.deepStrictEqual(pendingJson(url), waiting)
      assert.strictEqual(psql(`SELECT count(*) FROM "${schema}".pending`).trim(), "2")
      assert.deepStrictEqual(journalOps(url), ops)

      const back = join(dir, "back")
      const out = ok(mneme(["export", back, "--memory", url]))
      assert.include(out, "journal lines, 2 entries waiting for a person and the review state\n")
      assert.deepStrictEqual(pendingJson(back), waiting)
      assert.strictEqual(
        readFileSync(join(back, "agents/ada/pending.json"), "utf8"),
        readFileSync(join(folder, "agents/ada/pending.json"), "utf8")
      )
      assert.deepStrictEqual(journalOps(back), ops)

      // A person decides them in either target as in the source.
      for (const target of [url, back]) {
        assert.match(ok(at(target, "approve", "2")), /^2\. /u)
        assert.deepStrictEqual(ownEntries(target), [spanish, fact])
        assert.deepStrictEqual(pendingTexts(target), [order])
        assert.deepStrictEqual(journalOps(target), [...ops, "add", "approve"])
      }
    }
  )

  it(
    "a target that holds only entries waiting for a person holds memory: nothing is copied",
    { timeout: 120_000 },
    () => {
      const { dir } = scratch()
      const folder = join(dir, "memory")
      reviewed(folder)
      const target = join(dir, "target")
      mkdirSync(join(target, "team"), { recursive: true })
      writeFileSync(join(target, "team", "pending.json"), readFileSync(join(folder, "agents/ada/pending.json")))
      assertFailure(
        mneme(["import", folder, "--memory", target]),
        1,
        "already holds memory (2 entries waiting for a person)"
      )
      assert.deepStrictEqual(journalOps(target), [])
    }
  )
})
