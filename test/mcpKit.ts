/**
 * What the MCP server's acceptance tests share: `mneme mcp` started as a child process and driven by the official MCP
 * TypeScript SDK's `Client` (over the server's standard input and output, or streamable HTTP), the results of its tool
 * calls read back, the notifications it sends awaited, and its exit code once the client has closed.
 */
import { afterEach, assert } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  type JSONRPCMessage,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { bin, environment } from "./cliKit.ts"

/**
 * The SDK's stdio framing over a child process this test started (the SDK's own stdio transport hides the process,
 * and a test needs its exit code): one JSON-RPC message a line each way. A line on stdout that is not one is an error.
 */
class ChildTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly buffer = new ReadBuffer()
  private readonly child: ChildProcessWithoutNullStreams
  private readonly errors: Array<Error>
  constructor(child: ChildProcessWithoutNullStreams, errors: Array<Error>) {
    this.child = child
    this.errors = errors
  }
  async start() {
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk)
      for (;;) {
        let message: JSONRPCMessage | null
        try {
          message = this.buffer.readMessage()
        } catch (error) {
          this.errors.push(error as Error)
          continue
        }
        if (message === null) break
        this.onmessage?.(message)
      }
    })
    this.child.on("close", () => this.onclose?.())
  }
  async send(message: JSONRPCMessage) {
    this.child.stdin.write(serializeMessage(message))
  }
  async close() {
    this.child.stdin.end()
  }
}

/** A notification the server sent: its method, and the resource it names. */
export interface Notice {
  readonly method: string
  readonly uri: string | undefined
}

/** A server under test: the SDK client connected to it, what it said on stderr, and its notifications. */
export interface Running {
  readonly client: Client
  readonly stderr: () => string
  /** The next notification `matches` accepts; ask before doing what sends it. */
  readonly next: (matches: (notice: Notice) => boolean) => Promise<Notice>
}

const children: Array<ChildProcess> = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL")
})

/** A new client whose resource notifications `next` can wait for. */
const clientWithNotices = () => {
  const client = new Client({ name: "mneme-acceptance", version: "1.0.0" })
  const waiting: Array<{ readonly matches: (notice: Notice) => boolean; readonly resolve: (notice: Notice) => void }> =
    []
  const notice = (notice: Notice) => {
    const at = waiting.findIndex((waiter) => waiter.matches(notice))
    if (at !== -1) waiting.splice(at, 1)[0]!.resolve(notice)
  }
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
    notice({ method: notification.method, uri: notification.params.uri })
  )
  client.setNotificationHandler(ResourceListChangedNotificationSchema, (notification) =>
    notice({ method: notification.method, uri: undefined })
  )
  const next = (matches: (notice: Notice) => boolean) =>
    new Promise<Notice>((resolve) => waiting.push({ matches, resolve }))
  return { client, next }
}

/** `mneme mcp` over stdio for the memory folder `memory`, and the SDK client connected to it. */
export const stdio = async (memory: string, args: ReadonlyArray<string> = [], env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [bin, "mcp", "--memory", memory, ...args], { env: environment(env) })
  children.push(child)
  let stderr = ""
  const listeners: Array<() => void> = []
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
    for (const listener of listeners.splice(0)) listener()
  })
  /** Once the server has said `text` on stderr. */
  const said = (text: string): Promise<void> =>
    stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => listeners.push(() => resolve(said(text))))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const errors: Array<Error> = []
  const { client, next } = clientWithNotices()
  await client.connect(new ChildTransport(child, errors))
  return {
    client,
    next,
    /** The server's process, for bytes written past the client and for signals. */
    child,
    stderr: () => stderr,
    said,
    /** What the server wrote on stdout that is not the protocol. */
    errors,
    /** Closes the client (the end of standard input), and waits for the server to exit: its exit code. */
    close: async () => {
      child.stdin.end()
      return exited
    }
  } satisfies Running & Record<string, unknown>
}

/** `mneme mcp --http` for `memory`, started; its URL, as it says on stderr, once it listens. */
export const httpServer = async (memory: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [bin, "mcp", "--memory", memory, ...args], {
    env: environment(env),
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let stderr = ""
  let stdout = ""
  const listeners: Array<() => void> = []
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
    for (const listener of listeners.splice(0)) listener()
  })
  /** Once the server has said `text` on stderr. */
  const said = (text: string): Promise<void> =>
    stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => listeners.push(() => resolve(said(text))))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const listening = / at (http:\/\/\S+\/mcp)\n/.exec(stderr)
      if (listening !== null) resolve(listening[1]!)
      else listeners.push(look)
    }
    look()
    child.on("close", (code) => reject(new Error(`mneme mcp exited with ${code} before it listened:\n${stderr}`)))
  })
  return { url, child, said, stderr: () => stderr, stdout: () => stdout, exited }
}

/** A raw HTTP answer: its status, headers and body. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
}

/** An `initialize` request, as a client sends it first. */
export const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}

/**
 * POSTs `message` to the MCP endpoint at `url` with exactly the headers given on top of an MCP client's own, the Host
 * header among them (as a browser sends it for the name in its address bar, whatever address that name points at).
 */
export const post = (url: string, headers: Record<string, string>, message: unknown = initialize): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const body = JSON.stringify(message)
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: {
          host: target.host,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": String(Buffer.byteLength(body)),
          ...headers
        }
      },
      (response) => {
        let text = ""
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }))
      }
    )
    request.on("error", reject)
    request.end(body)
  })

/** The SDK client over streamable HTTP to `url`, with the request headers `headers`. */
export const httpClient = async (url: string, headers: Record<string, string> = {}) => {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  const { client, next } = clientWithNotices()
  await client.connect(transport)
  return { client, next, transport }
}

/** A tool call's result: whether it is an error, and the JSON its text content holds (its structured content too). */
export const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as ReadonlyArray<{ readonly type: string; readonly text: string }>
  assert.strictEqual(content.length, 1)
  assert.strictEqual(content[0]!.type, "text")
  const value = JSON.parse(content[0]!.text) as Record<string, unknown>
  if (result.isError !== true) assert.deepStrictEqual(result.structuredContent, value)
  return { isError: result.isError === true, value }
}

/** A tool call that succeeded: its JSON result. */
export const ok = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await call(client, name, args)
  assert.isFalse(result.isError, JSON.stringify(result.value))
  return result.value
}

/** A tool call whose result is an error: its reason and message, with the agent it names. */
export const refused = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await call(client, name, args)
  assert.isTrue(result.isError, JSON.stringify(result.value))
  assert.strictEqual(result.value._tag, "MemoryToolError")
  return result.value as { readonly agent: string; readonly reason: string; readonly message: string }
}

/** A replay file that answers one review by adding `texts` to the agent's MEMORY.md. */
export const adding = (...texts: ReadonlyArray<string>) =>
  JSON.stringify({ answer: JSON.stringify({ changes: texts.map((text) => ({ op: "add", text })) }) }) + "\n"

const held: Array<Server> = []
/** An OpenAI-compatible model server whose answers wait until the test lets them go. */
export const heldModel = async (answer: string) => {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let requests = 0
  const server = createServer((request, response) => {
    requests++
    request.resume()
    request.on("end", () => {
      void released.then(() =>
        response.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            choices: [{ message: { role: "assistant", content: answer }, finish_reason: "stop" }]
          })
        )
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  held.push(server)
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, release, requests: () => requests }
}
afterEach(async () => {
  for (const server of held.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
