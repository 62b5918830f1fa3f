/**
 * mneme as a project that depends on it meets it: every package packed (`pnpm pack:all`), then installed from those
 * tarballs with plain npm on the toolchain's Node 22 into a project outside the checkout (no pnpm, no source
 * conditions, no aliases). Its host program (`fixtures/consumer/host.ts`) and each package's README example are
 * type-checked against the published declarations with `skipLibCheck: false`, by the project's own TypeScript, and
 * run; the installed `mneme` command runs; and memory in Postgres asks for `@mneme/sql` until it is installed, then
 * works. A package that would not install, type-check or run from its tarball fails here.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawn, spawnSync } from "node:child_process"
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, delimiter, dirname, join, relative } from "node:path"
import { schemaName } from "../packages/sql/test/fixtures/postgres.ts"
import { repo, type Run, stubServer } from "./cliKit.ts"

const packages = ["core", "review", "node", "sql"] as const

/** The project's own versions of what the consumer installs beside mneme to type-check it. */
const devDependencies = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).devDependencies as Record<
  string,
  string
>

/**
 * The environment of the consumer's commands: this process's Node 22 first on PATH, so `npm` and `npx` run on it
 * (whatever Node comes first on the machine), and none of the variables pnpm sets for the scripts it runs.
 */
const environment = (): NodeJS.ProcessEnv => {
  const kept = Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|PNPM_)/.test(name))
  return {
    ...Object.fromEntries(kept),
    PATH: `${dirname(process.execPath)}${delimiter}${process.env["PATH"] ?? ""}`,
    NO_COLOR: "1",
    MNEME_BASE_URL: "",
    MNEME_API_KEY: "",
    MNEME_MODEL: ""
  }
}

/** Runs `command` with `args` in `cwd`, with the consumer's environment, and waits for it. */
const run = (cwd: string, command: string, args: ReadonlyArray<string>): Run => {
  const result = spawnSync(command, [...args], { cwd, encoding: "utf8", env: environment(), timeout: 480_000 })
  return { code: result.status, stdout: result.stdout, stderr: `${result.stderr}${result.error?.message ?? ""}` }
}

/** Runs `command` like `run`, without blocking this process (so a stub server in it can answer). */
const runAsync = (cwd: string, command: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<Run>((resolve) => {
    const child = spawn(command, [...args], { cwd, env: { ...environment(), ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** A run that succeeded: its stdout. */
const succeeded = (result: Run, what: string) => {
  assert.strictEqual(result.code, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** The `mneme` the consumer installed, run as its user runs it. */
const mneme = (cwd: string, ...args: ReadonlyArray<string>) => run(cwd, "npx", ["--no-install", "mneme", ...args])

/** Runs `statement` on the test database with psql. */
const psql = (statement: string) =>
  succeeded(
    run(tmpdir(), "psql", [
      "-h",
      "127.0.0.1",
      "-U",
      "postgres",
      "-d",
      "test",
      "-v",
      "ON_ERROR_STOP=1",
      "-Atc",
      statement
    ]),
    statement
  )

/** The blocks of one language of a README (or a part of one), in order. */
const blocksOf = (readme: string, language: "ts" | "json"): ReadonlyArray<string> =>
  [...readme.matchAll(new RegExp(`^\`\`\`${language}\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((match) => match[1]!)

/** The root README's section "Use mneme in your project". */
const useSection = () => {
  const readme = readFileSync(join(repo, "README.md"), "utf8")
  const start = readme.indexOf("## Use mneme in your project")
  return readme.slice(start, readme.indexOf("\n## ", start + 1))
}

const work = mkdtempSync(join(tmpdir(), "mneme-consumer-"))
const project = join(work, "project")
const tarballs = new Map<string, string>()

beforeAll(() => {
  const packed = succeeded(run(repo, "bash", ["scripts/pack.sh", join(work, "tarballs")]), "pnpm pack:all")
  for (const tarball of packed.trim().split("\n")) {
    const name = packages.find((pkg) => basename(tarball).startsWith(`mneme-${pkg}-`))
    assert.isDefined(name, tarball)
    tarballs.set(name!, tarball)
  }
  run(work, "mkdir", ["project"])
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "host", private: true, type: "module" }))
  // Everything but the Postgres backend first: it is an optional peer of @mneme/node, installed by those who use it.
  succeeded(
    run(project, "npm", [
      "install",
      "--no-audit",
      "--no-fund",
      ...["core", "review", "node"].map((pkg) => tarballs.get(pkg)!),
      `typescript@${devDependencies["typescript"]}`,
      `@types/node@${devDependencies["@types/node"]}`
    ]),
    "npm install"
  )
}, 600_000)

afterAll(() => rmSync(work, { recursive: true, force: true }))

describe("the packed packages", () => {
  it("are one tarball each, at one version, with no workspace protocol left", () => {
    assert.deepStrictEqual([...tarballs.keys()].toSorted(), [...packages].toSorted())
    const versions = new Set<string>()
    for (const [pkg, tarball] of tarballs) {
      const manifest = run(work, "tar", ["-xzOf", tarball, "package/package.json"])
      const json = JSON.parse(succeeded(manifest, `tar ${tarball}`)) as Record<string, unknown>
      assert.notInclude(manifest.stdout, "workspace:", pkg)
      for (const field of ["license", "repository", "engines", "files"])
        assert.isDefined(json[field], `${pkg}: ${field}`)
      versions.add(String(json["version"]))
    }
    assert.strictEqual(versions.size, 1, [...versions].join(", "))
  })

  it("installed with npm on Node 22, outside the checkout", () => {
    assert.isTrue(relative(repo, project).startsWith(".."), project)
    assert.match(succeeded(run(project, "node", ["--version"]), "node --version"), /^v22\./)
    // npm itself runs on that Node, whichever Node the machine has first on PATH.
    const npmVersions = JSON.parse(succeeded(run(project, "npm", ["version", "--json"]), "npm version")) as {
      node: string
    }
    assert.strictEqual(`v${npmVersions.node}`, process.version)
    const installed = JSON.parse(succeeded(run(project, "npm", ["ls", "--json", "--all"]), "npm ls")) as {
      dependencies: Record<string, { version: string; resolved?: string }>
    }
    for (const pkg of ["core", "review", "node"]) {
      assert.include(installed.dependencies[`@mneme/${pkg}`]?.resolved ?? "", tarballs.get(pkg)!, pkg)
    }
    assert.isUndefined(installed.dependencies["@mneme/sql"], "@mneme/sql is installed only when asked for")
  })
})

describe("the installed mneme command", () => {
  it("says its version, remembers and shows", () => {
    // The command says the version it was released at: the packages' one version.
    const { version } = JSON.parse(readFileSync(join(repo, "packages/node/package.json"), "utf8")) as {
      version: string
    }
    assert.strictEqual(succeeded(mneme(project, "--version"), "mneme --version").trim(), `mneme v${version}`)
    succeeded(mneme(project, "remember", "The user drinks oolong tea", "--memory", "memory"), "mneme remember")
    const shown = JSON.parse(succeeded(mneme(project, "show", "--json", "--memory", "memory"), "mneme show"))
    assert.include(JSON.stringify(shown), "The user drinks oolong tea")
  })

  it("asks for @mneme/sql to use memory in Postgres, and uses it once installed", { timeout: 300_000 }, () => {
    const schema = schemaName("mneme_consumer")
    const url = `postgres://postgres@127.0.0.1:5432/test?schema=${schema}`
    const missing = mneme(project, "show", "--memory", url)
    assert.strictEqual(missing.code, 1, missing.stderr)
    assert.include(missing.stderr, "memory in Postgres needs @mneme/sql, which is not installed")
    assert.include(missing.stderr, "npm install @mneme/sql")

    succeeded(run(project, "npm", ["install", "--no-audit", "--no-fund", tarballs.get("sql")!]), "npm install sql")
    try {
      succeeded(mneme(project, "remember", "The user lives in Lyon", "--memory", url), "mneme remember (Postgres)")
      const shown = succeeded(mneme(project, "show", "--json", "--memory", url), "mneme show (Postgres)")
      assert.include(shown, "The user lives in Lyon")
    } finally {
      psql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    }
  })
})

describe("a host program against the published declarations", () => {
  it(
    "type-checks with skipLibCheck off, and runs: a turn ends, the review runs, memory is read back",
    {
      timeout: 300_000
    },
    () => {
      copyFileSync(join(repo, "test/fixtures/consumer/host.ts"), join(project, "host.ts"))
      for (const pkg of packages) {
        blocksOf(readFileSync(join(repo, `packages/${pkg}/README.md`), "utf8"), "ts").forEach((example, index) =>
          writeFileSync(join(project, `readme-${pkg}-${index + 1}.ts`), example)
        )
      }
      const [minimalHost] = blocksOf(useSection(), "ts")
      assert.isDefined(minimalHost, "the README shows a minimal host")
      writeFileSync(join(project, "readme-host.ts"), minimalHost!)
      writeFileSync(
        join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2024",
            // effect's declarations name some of the DOM's types (Transferable): a host that checks them needs the DOM's.
            lib: ["ES2024", "DOM"],
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            exactOptionalPropertyTypes: true,
            skipLibCheck: false,
            types: ["node"],
            outDir: "out"
          },
          include: ["*.ts"]
        })
      )
      succeeded(run(project, "npx", ["--no-install", "tsc", "-p", "."]), "tsc")

      const output = succeeded(run(project, "node", ["out/host.js", "host-memory"]), "the host")
      assert.deepStrictEqual(JSON.parse(output), {
        modelCalls: 1,
        entries: [{ text: "The user moved to Lyon last spring", source: "chat #1" }]
      })
      const memory = readFileSync(join(project, "host-memory/agents/ada/MEMORY.md"), "utf8")
      assert.include(memory, "- The user moved to Lyon last spring [source: chat #1;")
      const shown = succeeded(mneme(project, "show", "--json", "--memory", "host-memory", "--agent", "ada"), "show")
      assert.include(shown, "The user moved to Lyon last spring")
    }
  )
})

describe("the README's section on using mneme in a project", () => {
  it("its minimal host runs from the installed packages against a model server", { timeout: 300_000 }, async () => {
    // The type-check above compiled it to out/readme-host.js; its model is a local stub of an OpenAI-compatible server.
    const answer = JSON.stringify({ changes: [{ op: "add", text: "The user moved to Lyon last spring" }] })
    const model = await stubServer(() => ({
      status: 200,
      body: { choices: [{ message: { role: "assistant", content: answer }, finish_reason: "stop" }] }
    }))
    rmSync(join(project, "memory"), { recursive: true, force: true })
    const host = await runAsync(project, "node", ["out/readme-host.js"], {
      MNEME_BASE_URL: model.url,
      MNEME_MODEL: "stub-model",
      MNEME_API_KEY: "stub-key"
    })
    assert.strictEqual(host.code, 0, host.stderr)
    assert.strictEqual(host.stdout.trim(), "[ 'The user moved to Lyon last spring' ]")
    assert.strictEqual(model.received.length, 1)
    assert.strictEqual(JSON.parse(model.received[0]!.body).model, "stub-model")
  })

  it("its MCP configuration starts the installed command by name", { timeout: 120_000 }, async () => {
    const [json] = blocksOf(useSection(), "json")
    const server = (
      JSON.parse(json ?? "{}") as { mcpServers: Record<string, { command: string; args: Array<string> }> }
    ).mcpServers["mneme"]!
    assert.strictEqual(server.command, "mneme")
    // `mneme` on PATH, as `npm install -g` puts it there: here the project's own bin folder.
    const memory = join(work, "mcp-memory")
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args.map((arg) => (arg === "/home/you/.mneme/memory" ? memory : arg)),
      env: {
        ...(environment() as Record<string, string>),
        PATH: `${join(project, "node_modules/.bin")}${delimiter}${environment()["PATH"]}`
      },
      stderr: "pipe"
    })
    const client = new Client({ name: "mneme-consumer", version: "1.0.0" })
    await client.connect(transport)
    try {
      assert.deepStrictEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ["remember", "forget", "recall", "show", "review_turn"]
      )
      const kept = await client.callTool({ name: "remember", arguments: { text: "The user prefers short answers" } })
      assert.notStrictEqual(kept.isError, true, JSON.stringify(kept))
    } finally {
      await client.close()
    }
    assert.include(readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8"), "- The user prefers short answers")
  })
})
