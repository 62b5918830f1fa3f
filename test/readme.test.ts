/**
 * The README says what is true: each row of its commands table is run as written where a test can run it (through
 * the toolchain, as a person who followed the README would), or checked against what it stands for where it cannot
 * (`pnpm test` would run this test), its example of recorded answers is read by the replay model, and the MCP
 * configuration it gives is what an MCP client launches, placeholders filled in.
 */
import { assert, describe, it } from "@effect/vitest"
import { Answer } from "@mneme/core"
import { ReplayModel } from "@mneme/node"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Result } from "effect"
import { files, launcher, mnemeIn, repo, scratch, stubServer } from "./cliKit.ts"

const readme = readFileSync(join(repo, "README.md"), "utf8")

/** The rows of the table after "Other commands": each command as written (without its backticks) and what it does. */
const commandsTable = (): Array<{ readonly command: string; readonly does: string }> => {
  const lines = readme.slice(readme.indexOf("Other commands")).split("\n")
  const first = lines.findIndex((line) => line.startsWith("|"))
  const end = lines.findIndex((line, i) => i > first && !line.startsWith("|"))
  return lines.slice(first + 2, end).map((line) => {
    const [command = "", does = ""] = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim())
    return { command: command.replace(/^`|`$/g, ""), does }
  })
}

/** Runs a shell command from the README in the checkout, after `source scripts/toolchain.sh`, as the README says. */
const shell = (command: string, options: { readonly cwd?: string; readonly path?: string } = {}) => {
  const result = spawnSync("bash", ["-c", `source "${repo}scripts/toolchain.sh" >/dev/null && ${command}`], {
    cwd: options.cwd ?? repo,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...(options.path === undefined ? {} : { PATH: options.path }) },
    timeout: 240_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** The suites `bench/run.ts` knows, as its usage error lists them. */
const benchSuites = () => {
  const run = shell("pnpm bench no-such-suite")
  assert.strictEqual(run.code, 2, run.stderr)
  const listed = /suites: ([a-z, ]+)\)/.exec(run.stderr)
  assert.isNotNull(listed, run.stderr)
  return listed![1]!.split(", ")
}

/** How each row of the table is proven: every row needs one, and every one a row. */
const checks: Record<string, (does: string) => void> = {
  "pnpm test": (does) => {
    // `pnpm test` runs this very test, so its script is checked against the row instead: each part it names.
    assert.strictEqual(does, "type-check, lint, format check, every test")
    const scripts = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).scripts as Record<string, string>
    assert.deepStrictEqual(scripts.test!.split(" && "), [
      "pnpm typecheck",
      "pnpm lint",
      "pnpm format:check",
      "vitest run"
    ])
    assert.include(scripts.typecheck!, "typecheck")
    assert.match(scripts.lint!, /^oxlint --deny-warnings packages test/)
    assert.match(scripts["format:check"]!, /^prettier --check \.$/)
    const vitest = readFileSync(join(repo, "vitest.config.ts"), "utf8")
    assert.include(vitest, 'include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"]')
    const typecheck = readFileSync(join(repo, "scripts/typecheck.sh"), "utf8")
    for (const name of readdirSync(join(repo, "packages"))) assert.include(typecheck, `packages/${name}`, name)
  },
  "pnpm bench [suite…]": (does) => {
    const named = [...does.matchAll(/`([a-z]+)`/g)].map((match) => match[1]!)
    assert.deepStrictEqual(named, benchSuites())
    // The quickest suite, as the row says: a table on stdout, and JSON in the file --out names.
    const { dir } = scratch()
    const out = join(dir, "bench.json")
    const run = shell(`pnpm bench answer --out ${out}`)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, "┌")
    assert.include(run.stdout, "answer")
    const figures = JSON.parse(readFileSync(out, "utf8")).figures as ReadonlyArray<{ readonly suite: string }>
    assert.isAbove(figures.length, 0)
    assert.isTrue(figures.every((figure) => figure.suite === "answer"))
    assert.include(does, "`bench/results/latest.json`")
    assert.include(readFileSync(join(repo, "bench/run.ts"), "utf8"), '"./results/latest.json"')
    // Two suites: each in a process of its own, their figures in one table and one file.
    assert.include(does, "each suite in a process of its own, as one table")
    const both = shell(`pnpm bench tools answer --out ${out}`)
    assert.strictEqual(both.code, 0, both.stderr)
    assert.include(both.stdout, "'tools'")
    const suites = (JSON.parse(readFileSync(out, "utf8")).figures as ReadonlyArray<{ readonly suite: string }>).map(
      (figure) => figure.suite
    )
    assert.deepStrictEqual([...new Set(suites)], ["answer", "tools"])
  },
  "pnpm bench --compare A B": (does) => {
    assert.include(does, "`a1.json,a2.json b1.json,b2.json`")
    assert.include(does, "median of each pair's ratio")
    // Three pairs of runs: the figure in ms is 25% slower in two of them and 10% faster in one, so its median is
    // behind; the rate is level in each.
    const { dir } = scratch()
    const runOf = (name: string, ms: number, rate: number) => {
      const file = join(dir, `${name}.json`)
      const figures = [
        { suite: "s", name: "a time", value: ms, unit: "ms" },
        { suite: "s", name: "a rate", value: rate, unit: "ops/s" }
      ]
      writeFileSync(file, JSON.stringify({ at: "2026-12-04T00:00:00.000Z", figures }))
      return file
    }
    const before = [runOf("a1", 10, 100), runOf("a2", 10, 200), runOf("a3", 10, 300)].join(",")
    const after = [runOf("b1", 12.5, 100), runOf("b2", 9, 200), runOf("b3", 12.5, 300)].join(",")
    const run = shell(`pnpm bench --compare ${before} ${after}`)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.match(run.stdout, /'a time'.*'0\.8× BEHIND'/)
    assert.match(run.stdout, /'a rate'.*'1×'/)
    assert.include(run.stdout, "2 timed figures compared (median of 3 pairs); 1 more than 10% behind")
    const uneven = shell(`pnpm bench --compare ${before} ${runOf("b4", 10, 100)}`)
    assert.strictEqual(uneven.code, 2)
    assert.include(uneven.stderr, "--compare needs as many runs on each side, paired in order")
  },
  "pnpm build": (does) => {
    assert.strictEqual(does, "`dist/` of every package")
    const run = shell("pnpm build")
    assert.strictEqual(run.code, 0, run.stderr)
    assert.notInclude(run.stderr, "ERR_PNPM")
    for (const name of readdirSync(join(repo, "packages"))) {
      assert.isTrue(existsSync(join(repo, "packages", name, "dist/index.js")), `packages/${name}/dist/index.js`)
    }
  },
  "packages/node/bin/mneme …": (does) => {
    assert.include(does, "runs from any folder on the toolchain's Node 22")
    // From a folder of its own, with an old `node` first on PATH: the launcher runs on the toolchain's Node.
    const { dir } = scratch()
    mkdirSync(join(dir, "old-node"))
    writeFileSync(join(dir, "old-node/node"), '#!/bin/sh\necho "v20.0.0"\nexit 1\n')
    chmodSync(join(dir, "old-node/node"), 0o755)
    const path = `${join(dir, "old-node")}:${process.env.PATH ?? ""}`
    const version = spawnSync(launcher, ["--version"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: path }
    })
    assert.strictEqual(version.status, 0, version.stderr)
    assert.strictEqual(version.stdout.trim(), "mneme v0.1.0")
    const remembered = mnemeIn(dir, ["remember", "Dana drinks oolong tea", "--memory", "here"])
    assert.strictEqual(remembered.code, 0, remembered.stderr)
    assert.isTrue(existsSync(join(dir, "here/agents/default/MEMORY.md")))
  },
  "mneme export DIR": (does) => {
    assert.include(does, "(a folder or `postgres://…`) written as a new memory folder at DIR")
    // From a folder (Postgres is test/cliPostgres.test.ts's): a new folder holding the same memory, not a full one.
    const { dir } = scratch()
    assert.strictEqual(mnemeIn(dir, ["remember", "Dana drinks oolong tea"]).code, 0)
    const exported = mnemeIn(dir, ["export", "copy"])
    assert.strictEqual(exported.code, 0, exported.stderr)
    assert.match(exported.stdout, /^Exported the memory in \.\/memory to copy: 1 agent, 1 file, 1 journal line and /)
    assert.deepStrictEqual(files(join(dir, "copy")), files(join(dir, "memory")))
    assert.strictEqual(mnemeIn(dir, ["export", "copy"]).code, 1)
  },
  "mneme import DIR": (does) => {
    assert.include(does, "written into `--memory` (a folder or `postgres://…`), which holds no memory yet")
    const { dir } = scratch()
    assert.strictEqual(mnemeIn(dir, ["remember", "Dana drinks oolong tea", "--memory", "old"]).code, 0)
    const imported = mnemeIn(dir, ["import", "old"])
    assert.strictEqual(imported.code, 0, imported.stderr)
    assert.match(imported.stdout, /^Imported the memory folder old into \.\/memory: 1 agent, 1 file, 1 journal line /)
    const shown = mnemeIn(dir, ["recall", "oolong", "--json"])
    assert.include(shown.stdout, "Dana drinks oolong tea")
    const again = mnemeIn(dir, ["import", "old"])
    assert.strictEqual(again.code, 1)
    assert.include(again.stderr, "already holds memory")
  }
}

describe("the README's commands table", () => {
  const rows = commandsTable()

  it("has a check for every row, and a row for every check", () => {
    assert.deepStrictEqual(
      rows.map((row) => row.command),
      Object.keys(checks)
    )
  })

  for (const row of rows) {
    it(`${row.command}: ${row.does}`, { timeout: 300_000 }, () => {
      const check = checks[row.command]
      if (check === undefined) return assert.fail(`no check for the README's row ${row.command}`)
      check(row.does)
    })
  }
})

describe("the README's recorded answers", () => {
  const section = readme.slice(readme.indexOf("### Recorded answers"))
  const example = /```jsonl\n([\s\S]*?)```/.exec(section)?.[1] ?? ""

  it.effect("its example is read by the replay model, and each answer is a list of changes", () =>
    Effect.gen(function* () {
      const parsed = ReplayModel.parse("README.md", example)
      if (Result.isFailure(parsed)) return assert.fail(parsed.failure.message)
      const recorded = parsed.success
      assert.strictEqual(recorded.length, 3)
      assert.deepStrictEqual(recorded[1], { error: "the server is down" })
      const ops = []
      for (const line of recorded) {
        if ("answer" in line) ops.push(...(yield* Answer.parse(line.answer)).map((change) => change.op))
      }
      assert.deepStrictEqual(ops, ["add", "add", "edit", "remove"])
    })
  )

  it("its example answers a review run with it", () => {
    const { dir } = scratch()
    writeFileSync(join(dir, "answers.jsonl"), example)
    writeFileSync(
      join(dir, "chat.jsonl"),
      '{"seq":1,"who":"user","text":"I switched to oolong tea. Our billing DAG runs at 02:00 UTC."}\n' +
        '{"seq":2,"who":"agent","text":"Noted."}\n'
    )
    const run = mnemeIn(dir, ["review", "chat.jsonl", "--model", "replay:answers.jsonl", "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const summary = JSON.parse(run.stdout)
    assert.deepStrictEqual(
      summary.added.map((added: { readonly text: string }) => added.text),
      ["Dana drinks oolong tea", "The billing DAG runs at 02:00 UTC"]
    )
  })
})

describe("the README's MCP configuration", () => {
  const section = readme.slice(readme.indexOf("## An MCP server"))
  const json = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? ""

  it("is what a client launches: the launcher serves the memory folder, reviewing with the model of its env", async () => {
    const config = JSON.parse(json) as {
      readonly mcpServers: Record<
        string,
        { readonly command: string; readonly args: Array<string>; readonly env: Record<string, string> }
      >
    }
    assert.deepStrictEqual(Object.keys(config.mcpServers), ["mneme"])
    const server = config.mcpServers.mneme!
    assert.strictEqual(server.command, "/path/to/mneme/packages/node/bin/mneme")
    assert.deepStrictEqual(server.args, ["mcp", "--memory", "/path/to/memory"])
    assert.deepStrictEqual(Object.keys(server.env), ["MNEME_BASE_URL", "MNEME_MODEL", "MNEME_API_KEY"])

    // The placeholders filled in as a person does: this checkout, a memory folder, and a model server (a stub).
    const { memory } = scratch()
    const answer = JSON.stringify({ changes: [{ op: "add", text: "The user moved to Lisbon" }] })
    const model = await stubServer(() => ({
      status: 200,
      body: { choices: [{ message: { role: "assistant", content: answer }, finish_reason: "stop" }] }
    }))
    const transport = new StdioClientTransport({
      command: server.command.replace("/path/to/mneme/", repo),
      args: server.args.map((arg) => arg.replace("/path/to/memory", memory)),
      env: { ...getDefaultEnvironment(), ...server.env, MNEME_BASE_URL: model.url },
      stderr: "pipe"
    })
    const client = new Client({ name: "mneme-readme", version: "1.0.0" })
    const ownUri = "memory://default/MEMORY.md"
    const landed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        if (notification.params.uri === ownUri) resolve()
      })
    )
    await client.connect(transport)
    assert.deepStrictEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ["remember", "forget", "recall", "show", "review_turn"]
    )
    await client.subscribeResource({ uri: ownUri })
    const kept = await client.callTool({
      name: "review_turn",
      arguments: { conversation: "chat-1", lines: [{ who: "user", text: "I moved to Lisbon last month." }] }
    })
    assert.notStrictEqual(kept.isError, true)
    await landed
    assert.include(
      readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8"),
      "- The user moved to Lisbon [source: chat-1 #1; added: "
    )
    assert.strictEqual(model.received.length, 1)
    assert.strictEqual(model.received[0]!.authorization, `Bearer ${server.env.MNEME_API_KEY}`)
    assert.strictEqual(JSON.parse(model.received[0]!.body).model, server.env.MNEME_MODEL)
    await client.close()
  })
})
