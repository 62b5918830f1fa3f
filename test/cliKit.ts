/**
 * What the CLI's acceptance tests share: the built command run as a child process (through Node, or through the
 * launcher from a working folder of its own), temporary memory folders, a stub OpenAI-compatible server, and the
 * shape of a failure (one line on stderr, an exit code).
 */
import { afterEach, assert } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { type AddressInfo } from "node:net"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const repo = fileURLToPath(new URL("..", import.meta.url))
/** The installed command's script: the Node check, then the bundle in dist/cli/. */
export const bin = join(repo, "packages/node/bin/mneme.js")
export const transcript = join(repo, "examples/transcript.jsonl")
export const answers = join(repo, "examples/answers.jsonl")
export const replay = `replay:${answers}`

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The environment the CLI runs in: no model configured, no colour, and `env` on top. */
export const environment = (env: Record<string, string>) => {
  const { MNEME_BASE_URL: _url, MNEME_API_KEY: _key, MNEME_MODEL: _model, ...rest } = process.env
  return { ...rest, NO_COLOR: "1", ...env }
}

/** The `mneme` command as a person runs it: the launcher, on the toolchain's Node, over the built `dist/`. */
export const launcher = join(repo, "packages/node/bin/mneme")

/** Runs the launcher from `cwd`, with `input` on its standard input, and waits for it. */
export const mnemeIn = (
  cwd: string,
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly input?: string } = {}
): Run => {
  const result = spawnSync(launcher, [...args], {
    cwd,
    encoding: "utf8",
    env: environment(options.env ?? {}),
    ...(options.input === undefined ? {} : { input: options.input })
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Runs the built CLI and waits for it. */
export const mneme = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Run => {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: repo, encoding: "utf8", env: environment(env) })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Runs the built CLI without blocking this process (so a stub server in it can answer). */
export const mnemeAsync = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: repo, env: environment(env) })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

export interface Received {
  readonly url: string | undefined
  readonly authorization: string | undefined
  readonly body: string
}

/** An OpenAI-compatible stub server on 127.0.0.1 that answers each chat completion with `respond(call number)`. */
export const stubServer = async (respond: (call: number) => { readonly status: number; readonly body: unknown }) => {
  const received: Array<Received> = []
  const server = createServer((request, response) => {
    let body = ""
    request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk))
    request.on("end", () => {
      received.push({ url: request.url, authorization: request.headers.authorization, body })
      const answer = respond(received.length)
      response.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  servers.push(server)
  return { url: `http://127.0.0.1:${port}/v1`, received }
}
const servers: Array<Server> = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

const dirs: Array<string> = []
/** A fresh temporary folder; `memory` inside it is the memory root the tests use. */
export const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "mneme-cli-"))
  dirs.push(dir)
  return { dir, memory: join(dir, "memory") }
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Every file under `dir`, relative, with its content. */
export const files = (dir: string): Record<string, string> =>
  Object.fromEntries(
    (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<import("node:fs").Dirent>)
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name)
        return [path.slice(dir.length + 1), readFileSync(path, "utf8")]
      })
  )

/** The one-line failure message the CLI prints, and nothing else on stderr. */
export const assertFailure = (run: Run, code: number, ...parts: ReadonlyArray<string>) => {
  assert.strictEqual(run.code, code, run.stderr)
  const lines = run.stderr.trimEnd().split("\n")
  assert.strictEqual(lines.length, 1, run.stderr)
  assert.isTrue(lines[0]!.startsWith("mneme: "), run.stderr)
  for (const part of parts) assert.include(run.stderr, part)
  assert.notInclude(run.stderr, "    at ")
}

export const review = (memory: string, ...more: ReadonlyArray<string>) =>
  mneme(["review", transcript, "--model", replay, "--memory", memory, ...more])

/** The cursors of a review state, each keyed by the example transcript's default conversation id. */
export const exampleCursors = (state: string): Array<number> =>
  Object.entries(JSON.parse(state).cursors as Record<string, number>).map(([key, cursor]) => {
    assert.match(key, /^chat:transcript-[0-9a-f]{12}$/)
    return cursor
  })

export const ownMemory = (memory: string) => readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8")
