/**
 * Issue 22, `mneme mcp` over standard input and output, fed raw bytes: a line that is not JSON is answered with a
 * JSON-RPC parse error (-32700, id null), and every other message of the same chunk is answered as if it were not
 * there, with no stack trace on stderr; the official SDK's client goes on working after such a line.
 */
import { afterEach, assert, describe, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { bin, environment, scratch } from "./cliKit.ts"
import { ok, stdio } from "./mcpKit.ts"

const children: Array<ChildProcessWithoutNullStreams> = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL")
})

/** `mneme mcp` over stdio, driven by hand: what it wrote on stdout, parsed a line at a time, and on stderr. */
const raw = (memory: string) => {
  const child = spawn(process.execPath, [bin, "mcp", "--memory", memory], { env: environment({}) })
  children.push(child)
  const messages: Array<Record<string, unknown>> = []
  const stray: Array<string> = []
  let stdout = ""
  let stderr = ""
  const waiting: Array<() => void> = []
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    const lines = stdout.split("\n")
    stdout = lines.pop()!
    for (const line of lines) {
      const value = (() => {
        try {
          return JSON.parse(line) as unknown
        } catch {
          return undefined
        }
      })()
      if (typeof value === "object" && value !== null) messages.push(value as Record<string, unknown>)
      else stray.push(line)
    }
    for (const wake of waiting.splice(0)) wake()
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  /** Once `count` messages have come. */
  const received = (count: number): Promise<ReadonlyArray<Record<string, unknown>>> =>
    messages.length >= count
      ? Promise.resolve(messages)
      : new Promise((resolve) => waiting.push(() => resolve(received(count))))
  return { child, messages, stray, received, stderr: () => stderr, exited }
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}

describe("mneme mcp on standard input: a line that is not JSON (issue 22)", () => {
  it("is answered with a parse error, and the messages read with it in one chunk are each answered", async () => {
    const { memory } = scratch()
    const server = raw(memory)
    // One write, so the server reads it as one chunk: initialize, a line that is not JSON, the rest of the start.
    server.child.stdin.write(
      [
        JSON.stringify(initialize),
        "this is not JSON {",
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "remember", arguments: { text: "The user likes green tea" } }
        }),
        ""
      ].join("\n")
    )
    const first = await server.received(3)
    const byId = (id: unknown) => first.find((message) => message.id === id) ?? {}
    assert.deepStrictEqual(byId(null), {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: a line that is not JSON" }
    })
    assert.strictEqual((byId(1).result as { serverInfo: { name: string } }).serverInfo.name, "mneme")
    const remembered = byId(2).result as { isError?: boolean; structuredContent: { changed: boolean } }
    assert.notStrictEqual(remembered.isError, true)
    assert.isTrue(remembered.structuredContent.changed)

    // Later calls are answered as ever (the session was not lost with the chunk).
    server.child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "recall", arguments: { query: "tea" } }
      }) + "\n"
    )
    const later = (await server.received(4))[3]!
    assert.strictEqual(later.id, 3)
    assert.include(JSON.stringify(later.result), "The user likes green tea")
    assert.strictEqual(server.messages.length, 4)

    server.child.stdin.end()
    assert.strictEqual(await server.exited, 0)
    assert.deepStrictEqual(server.stray, [])
    assert.notMatch(server.stderr(), /Error|\n\s+at /)
  })

  it("the SDK's client goes on working after such a line, as do the tools it calls", async () => {
    const { memory } = scratch()
    const server = await stdio(memory)
    await ok(server.client, "remember", { text: "The user likes green tea" })
    server.child.stdin.write("}{ not a message\n")
    const recalled = await ok(server.client, "recall", { query: "tea" })
    assert.include(JSON.stringify(recalled), "The user likes green tea")
    assert.strictEqual(await server.close(), 0)
    assert.notMatch(server.stderr(), /Error|\n\s+at /)
  })
})
