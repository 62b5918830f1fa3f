/**
 * The CLI over memory in Postgres (issue 16), run as a person runs it: the built command as a child process with
 * `--memory postgres://…?schema=…` on the machine's Postgres (127.0.0.1:5432, trust auth, database `test`), a schema
 * of its own for each root, dropped afterwards. `remember`, `show`, `forget` and `review` there; `export` to a folder
 * and `import` into a new schema and a new folder give the same memory, journal and review state; a target that
 * holds memory is refused and left as it was; a URL that is wrong or a database that cannot be reached is one line
 * that never shows the password; and what cannot work on Postgres says so. These tests fail, never skip, without
 * Postgres.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, mneme, mnemeIn, review, type Run, scratch } from "./cliKit.ts"
import { ok as toolOk, stdio } from "./mcpKit.ts"
import { freshRoot, psql } from "./postgresKit.ts"

/** A run that succeeded with nothing on stderr; its stdout. */
const ok = (run: Run): string => {
  assert.strictEqual(run.code, 0, run.stderr)
  assert.strictEqual(run.stderr, "")
  return run.stdout
}

/** `mneme show --json` for `agent`, without the root's name (which differs from root to root). */
const shown = (memory: string, agent = "default") => {
  const { memory: _root, ...rest } = JSON.parse(ok(mneme(["show", "--json", "--agent", agent, "--memory", memory])))
  return rest as Record<string, unknown>
}

/** Every entry `show --json` lists, as `scope topic: text`. */
const entries = (document: Record<string, unknown>) =>
  (
    document.scopes as ReadonlyArray<{
      readonly scope: string
      readonly files: ReadonlyArray<{
        readonly topic: string | null
        readonly entries: ReadonlyArray<{ text: string }>
      }>
    }>
  ).flatMap((scope) =>
    scope.files.flatMap((file) => file.entries.map((entry) => `${scope.scope} ${file.topic ?? "-"}: ${entry.text}`))
  )

/** Everything of a root that a copy keeps: two agents' `show`, the whole journal, and the agents. */
const everything = (memory: string) => {
  const { memory: _root, ...agents } = JSON.parse(ok(mneme(["agents", "--json", "--memory", memory])))
  return {
    own: shown(memory),
    ada: shown(memory, "Ada Lovelace"),
    journal: JSON.parse(ok(mneme(["journal", "--all", "--limit", "1000", "--json", "--memory", memory]))),
    agents
  }
}

describe("mneme --memory postgres://…", () => {
  it("remembers, shows and forgets in a schema of the database, as in a folder", { timeout: 240_000 }, () => {
    const { url, schema } = freshRoot()
    ok(mneme(["remember", "The user likes green tea", "--memory", url]))
    ok(mneme(["remember", "Oolong in the afternoon", "--topic", "tea", "--memory", url]))
    ok(mneme(["remember", "The team ships on Fridays", "--team", "--memory", url]))
    assert.deepStrictEqual(entries(shown(url)), [
      "own -: The user likes green tea",
      "own tea: Oolong in the afternoon",
      "team -: The team ships on Fridays"
    ])
    const human = ok(mneme(["show", "--memory", url]))
    assert.include(human, `Memory in postgres://postgres@127.0.0.1:5432/test (schema ${schema}) for agent "default"`)

    const forgot = ok(mneme(["forget", "green tea", "--memory", url]))
    assert.match(forgot, /^removed from agents\/default\/MEMORY\.md/)
    assert.deepStrictEqual(entries(shown(url)), [
      "own tea: Oolong in the afternoon",
      "team -: The team ships on Fridays"
    ])
    // The rows are in the schema the URL names, and postgresql:// names the same root.
    assert.strictEqual(psql(`SELECT count(*) FROM "${schema}".memory_files WHERE scope = 'team'`).trim(), "1")
    const same = `postgresql://postgres@127.0.0.1:5432/test?schema=${schema}`
    assert.deepStrictEqual(entries(shown(same)), entries(shown(url)))
    const ops = JSON.parse(ok(mneme(["journal", "--all", "--json", "--memory", same]))).journal.map(
      (line: { readonly op: string; readonly file: string }) => `${line.op} ${line.file}`
    )
    assert.deepStrictEqual(ops, [
      "add agents/default/MEMORY.md",
      "add agents/default/tea.md",
      "add agents/default/MEMORY.md",
      "add team/MEMORY.md",
      "remove agents/default/MEMORY.md"
    ])
  })

  it("reviews a transcript into the database, with its cursor kept there", () => {
    const { url } = freshRoot()
    const run = review(url, "--json")
    assert.strictEqual(run.code, 0, run.stderr)
    const summary = JSON.parse(run.stdout)
    assert.isTrue(summary.ok)
    assert.isAbove(summary.added.length, 0)
    assert.deepStrictEqual(
      entries(shown(url)).filter((entry) => entry.startsWith("own -: ")).length,
      summary.added.filter((added: { readonly scope: string }) => added.scope === "own").length
    )
    assert.isNotNull(shown(url).lastReview)
  })

  it("recorded answers go on from where the conversation's last run stopped, per schema (issue 22 item 20)", () => {
    const { dir } = scratch()
    writeFileSync(join(dir, "chat.jsonl"), JSON.stringify({ seq: 1, who: "user", text: "I drink oolong tea." }) + "\n")
    writeFileSync(
      join(dir, "answers.jsonl"),
      JSON.stringify({ error: "the server is down" }) +
        "\n" +
        JSON.stringify({ answer: JSON.stringify({ changes: [{ op: "add", text: "The user drinks oolong tea" }] }) }) +
        "\n"
    )
    const run = (memory: string) =>
      mnemeIn(dir, ["review", "chat.jsonl", "--model", "replay:answers.jsonl", "--memory", memory])
    const { url } = freshRoot()
    assertFailure(run(url), 1, "the server is down")
    const next = run(url)
    assert.strictEqual(next.code, 0, next.stderr)
    assert.include(next.stdout, "+  own  The user drinks oolong tea")
    assert.include(entries(shown(url)), "own -: The user drinks oolong tea")
    // Another schema has its own position: it starts from the file's first answer.
    assertFailure(run(freshRoot().url), 1, "the server is down")
  })
})

describe("mneme export DIR and mneme import DIR", () => {
  it(
    "move memory from Postgres to a folder and back, into Postgres and into a folder, keeping it all",
    { timeout: 240_000 },
    () => {
      const { url: first } = freshRoot()
      const { url: second } = freshRoot("postgresql")
      const { dir } = scratch()
      const exported = join(dir, "exported")
      const imported = join(dir, "imported")
      assert.strictEqual(review(first).code, 0)
      ok(mneme(["remember", "Oolong in the afternoon", "--topic", "tea", "--memory", first]))
      ok(mneme(["remember", "The team ships on Fridays", "--team", "--memory", first]))
      ok(mneme(["remember", "Wrote the first program", "--agent", "Ada Lovelace", "--memory", first]))
      ok(mneme(["remember", "Likes 🎨 and ünïcode", "--agent", "Ada Lovelace", "--topic", "art", "--memory", first]))
      ok(mneme(["forget", "Fridays", "--team", "--memory", first]))
      ok(mneme(["undo", "--team", "--memory", first]))
      const before = everything(first)
      assert.isAbove(before.journal.journal.length, 6)

      const out = ok(mneme(["export", exported, "--memory", first]))
      assert.match(out, /^Exported the memory in postgres:\/\/postgres@127\.0\.0\.1:5432\/test \(schema \w+\) to /)
      assert.include(out, `: 2 agents, 5 files, ${before.journal.journal.length} journal lines and the review state\n`)
      // The files backend's layout: the agents' folders (a hashed one records its id), team, the journal, the state.
      for (const file of [
        "agents/default/MEMORY.md",
        "agents/default/tea.md",
        "team/MEMORY.md",
        "journal.jsonl",
        "reviewed.json"
      ]) {
        assert.isTrue(existsSync(join(exported, file)), file)
      }
      const state = JSON.parse(readFileSync(join(exported, "reviewed.json"), "utf8"))
      assert.strictEqual(Object.keys(state.cursors).length, 1)
      assert.strictEqual(Object.keys(state.lastReviews).length, 1)
      const lines = readFileSync(join(exported, "journal.jsonl"), "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line))
      assert.deepStrictEqual(lines, before.journal.journal)

      const into = JSON.parse(ok(mneme(["import", exported, "--memory", second, "--json"])))
      assert.deepStrictEqual(
        { agents: into.agents, files: into.files, journalLines: into.journalLines, leftOut: into.leftOut },
        { agents: 2, files: 5, journalLines: before.journal.journal.length, leftOut: [] }
      )
      assert.notInclude(into.to, "?schema")
      ok(mneme(["import", exported, "--memory", imported]))
      assert.deepStrictEqual(everything(second), before)
      assert.deepStrictEqual(everything(imported), before)
      assert.deepStrictEqual(everything(exported), before)
      // The review state came along: the same review again has nothing new to read.
      for (const root of [second, imported]) {
        const again = JSON.parse(review(root, "--json").stdout)
        assert.strictEqual(again.modelCalls, 0)
      }
    }
  )

  it(
    "import refuses a target that holds memory, and export a folder that is not empty, changing nothing",
    { timeout: 240_000 },
    () => {
      const { url: source } = freshRoot()
      const { url: target } = freshRoot()
      const { dir } = scratch()
      const exported = join(dir, "exported")
      ok(mneme(["remember", "The user likes green tea", "--memory", source]))
      ok(mneme(["export", exported, "--memory", source]))
      ok(mneme(["remember", "The team ships on Fridays", "--team", "--memory", target]))
      const before = everything(target)

      const refused = mneme(["import", exported, "--memory", target])
      assertFailure(
        refused,
        1,
        `mneme: postgres://postgres@127.0.0.1:5432/test (schema ${target.slice(target.indexOf("=") + 1)}) already ` +
          "holds memory (1 team file, a journal): nothing was written to it. Import into a root that holds no memory " +
          "(a new folder, or a new schema with ?schema=NAME)"
      )
      assert.deepStrictEqual(everything(target), before)
      const json = mneme(["import", exported, "--memory", target, "--json"])
      assert.strictEqual(json.code, 1)
      assert.strictEqual(JSON.parse(json.stdout).error.tag, "HoldsMemory")

      // Into the folder it came from: it holds memory too.
      assertFailure(mneme(["import", exported, "--memory", exported]), 1, "already holds memory (1 agent, a journal")

      const full = join(dir, "full")
      mkdirSync(full)
      writeFileSync(join(full, "notes.txt"), "mine\n")
      assertFailure(
        mneme(["export", full, "--memory", source]),
        1,
        `mneme: ${full} is not empty: nothing was exported. Export to a folder that does not exist yet, or is empty`
      )
      assert.deepStrictEqual(readFileSync(join(full, "notes.txt"), "utf8"), "mine\n")
      assert.isFalse(existsSync(join(full, "agents")))

      assertFailure(mneme(["import", join(dir, "nowhere"), "--memory", target]), 1, "there is no memory folder there")
      assertFailure(
        mneme(["import", source, "--memory", target]),
        2,
        "import reads a memory folder, and DIR is a Postgres URL"
      )
      assert.deepStrictEqual(everything(target), before)
    }
  )
})

describe("mneme import DIR of a folder made by hand", () => {
  it(
    "keeps a long journal whole and in order, and says which folder of unknown origin it left out",
    { timeout: 240_000 },
    () => {
      const { url } = freshRoot()
      const { dir } = scratch()
      const folder = join(dir, "memory")
      mkdirSync(join(folder, "agents/default"), { recursive: true })
      mkdirSync(join(folder, "agents/stray-0123456789ab"), { recursive: true })
      writeFileSync(join(folder, "agents/default/MEMORY.md"), "# Memory\n\n- The user likes green tea\n\n## Index\n")
      writeFileSync(join(folder, "agents/stray-0123456789ab/MEMORY.md"), "# Memory\n\n- Whose is this\n")
      // More lines than one commit appends, each its own id and time.
      const lines = Array.from({ length: 2500 }, (_, i) => ({
        version: 2,
        id: `line-${i}`,
        time: 1_700_000_000_000 + i,
        op: "add",
        scope: "agents/default",
        file: "agents/default/MEMORY.md",
        actor: "cli",
        after: `- entry ${i}`
      }))
      writeFileSync(join(folder, "journal.jsonl"), lines.map((line) => JSON.stringify(line) + "\n").join(""))

      const run = mneme(["import", folder, "--memory", url])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(
        run.stderr,
        "mneme: left out agents/stray-0123456789ab: the folder does not record its agent's id\n"
      )
      assert.include(run.stdout, ": 1 agent, 1 file, 2,500 journal lines and the review state\n")
      const journal = JSON.parse(ok(mneme(["journal", "--all", "--limit", "3000", "--json", "--memory", url]))).journal
      assert.deepStrictEqual(journal, lines)
      assert.deepStrictEqual(entries(shown(url)), ["own -: The user likes green tea"])
    }
  )
})

describe("a Postgres --memory that cannot be used", () => {
  const password = "hunter2-secret"

  it("a database that cannot be reached is one line naming it without its password (exit 1)", () => {
    for (const args of [["show"], ["remember", "The user likes tea"], ["export", join(scratch().dir, "out")]]) {
      const run = mneme([...args, "--memory", `postgres://postgres:${password}@127.0.0.1:1/test?schema=kept`])
      assertFailure(
        run,
        1,
        "mneme: the memory root postgres://postgres@127.0.0.1:1/test (schema kept) cannot be used: ",
        "ECONNREFUSED"
      )
      assert.notInclude(run.stderr + run.stdout, password)
    }
    const json = mneme(["show", "--json", "--memory", `postgres://postgres:${password}@127.0.0.1:1/test`])
    assert.strictEqual(json.code, 1)
    assert.strictEqual(JSON.parse(json.stdout).error.tag, "StorageError")
    assert.notInclude(json.stdout + json.stderr, password)
  })

  it("a URL that is not one, or names no database or a bad schema, is a usage error without the password (exit 2)", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`postgres://postgres:${password}@[::1/test`, "--memory is not a Postgres URL mneme can read: write it as "],
      [`postgresql://postgres:${password}@127.0.0.1:5432`, "--memory needs the database's name"],
      [
        `postgres://postgres:${password}@127.0.0.1:5432/test?schema=Bad-Name`,
        '--memory: "Bad-Name" is not a schema name'
      ]
    ]
    for (const [url, message] of cases) {
      const run = mneme(["show", "--memory", url])
      assertFailure(run, 2, `mneme: ${message}`)
      assert.notInclude(run.stderr, password)
    }
  })
})

describe("what works on a folder only", () => {
  it("review --dry-run says to export the memory to a folder first (exit 2), and writes nothing", () => {
    const { url, schema } = freshRoot()
    assertFailure(
      review(url, "--dry-run"),
      2,
      "--dry-run works on a copy of a memory folder, and --memory names a Postgres database",
      "mneme export DIR"
    )
    assert.strictEqual(psql(`SELECT count(*) FROM pg_namespace WHERE nspname = '${schema}'`).trim(), "0")
  })

  it("mneme mcp needs --logs DIR for its conversation logs, and serves the database's memory with it", async () => {
    const { url } = freshRoot()
    assertFailure(mneme(["mcp", "--memory", url]), 2, "mneme mcp needs --logs DIR")
    const { dir, memory } = scratch()
    assertFailure(mneme(["mcp", "--memory", memory, "--logs", dir]), 2, "--logs is for --memory postgres://")

    const logs = join(dir, "logs")
    const server = await stdio(url, ["--logs", logs])
    await toolOk(server.client, "remember", { text: "The user moved to Lisbon" })
    const kept = await toolOk(server.client, "review_turn", {
      conversation: "chat-1",
      lines: [{ who: "user", text: "I moved to Lisbon last month." }]
    })
    assert.isDefined(kept)
    assert.strictEqual(await server.close(), 0)
    assert.include(server.stderr(), "in postgres://postgres@127.0.0.1:5432/test (schema ")
    assert.deepStrictEqual(entries(shown(url)), ["own -: The user moved to Lisbon"])
    assert.isTrue(existsSync(join(logs, "conversations/chat-1.jsonl")))
  })
})
