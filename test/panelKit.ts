/**
 * What the panel's tests share: `mneme panel` started as a person starts it (the built command, as a child process
 * on a port of its own choosing), its printed address and link read from its output, plain HTTP requests with every
 * header under the test's control, and the page token a page carries.
 */
import { afterEach, assert } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { request as httpRequest } from "node:http"
import { bin, environment, repo } from "./cliKit.ts"

/** A running panel: its address (`http://127.0.0.1:PORT/`), its link with the token, its port and token. */
export interface Served {
  readonly address: string
  readonly link: string
  readonly port: number
  readonly token: string
  /** What it printed so far. */
  readonly output: () => { readonly stdout: string; readonly stderr: string }
}

const running: Array<ChildProcess> = []
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    const closed = new Promise((resolve) => child.once("close", resolve))
    child.kill("SIGINT")
    await closed
  }
})

/** Starts `mneme panel` with `args` and waits for the link it prints; fails with what it said if it ends first. */
export const startPanel = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "panel", ...args], { cwd: repo, env: environment(env) })
    running.push(child)
    let stdout = ""
    let stderr = ""
    const output = () => ({ stdout, stderr })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const link = /https?:\/\/\S+\?token=([0-9a-f]{64})/.exec(stdout)
      if (link !== null) {
        const url = new URL(link[0])
        resolve({ address: `${url.origin}/`, link: link[0], port: Number(url.port), token: link[1]!, output })
      }
    })
    child.on("close", (code) => reject(new Error(`mneme panel ended (${code}) before its link:\n${stdout}${stderr}`)))
  })

/** A response as the test reads it. */
export interface Response {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
}

/** Sends one HTTP request to the panel on `port`, with exactly these headers (Host included, unless left out). */
export const send = (
  port: number,
  path: string,
  options: {
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly form?: Record<string, string>
  } = {}
): Promise<Response> =>
  new Promise((resolve, reject) => {
    const body = options.form === undefined ? undefined : new URLSearchParams(options.form).toString()
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      ...(body === undefined
        ? {}
        : { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)) }),
      ...options.headers
    }
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: options.method ?? (body === undefined ? "GET" : "POST"), headers },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

/** The cookie header that holds the panel's access token. */
export const cookie = (served: Served) => ({ cookie: `mneme-panel-${served.port}=${served.token}` })

/** The Origin header a browser sends with a form of the panel's own pages. */
export const ownOrigin = (served: Served) => ({ origin: `http://127.0.0.1:${served.port}` })

/** The page token of a page (the value of its forms' `page` field). */
export const pageToken = (page: string): string => {
  const found = /name="page" value="([^"]+)"/.exec(page)
  assert.isNotNull(found, "the page has a form with its page token")
  return found![1]!
}
