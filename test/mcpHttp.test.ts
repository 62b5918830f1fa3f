/**
 * Issue 13, `mneme mcp --http`: the same server over streamable HTTP at `/mcp`, driven by the official MCP TypeScript
 * SDK's client; it ends (exit 0, the waiting review finished) when its last session does. On an address other than
 * this machine's own, every request needs the bearer token of MNEME_MCP_TOKEN: without it, or with another, 401.
 */
import { assert, describe, it } from "@effect/vitest"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { scratch } from "./cliKit.ts"
import { adding, httpClient, httpServer, ok, refused } from "./mcpKit.ts"

describe("mneme mcp --http (issue 13)", () => {
  it("serves the tools, resources and prompt at /mcp on this machine, and exits 0 once its last session ends", async () => {
    const { dir, memory } = scratch()
    const answers = join(dir, "answers.jsonl")
    writeFileSync(answers, adding("The user moved to Lisbon"))
    const server = await httpServer(memory, ["--http", "127.0.0.1:0", "--model", `replay:${answers}`])
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const { client, transport } = await httpClient(server.url)
    assert.strictEqual(client.getServerVersion()?.name, "mneme")
    assert.deepStrictEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ["remember", "forget", "recall", "show", "review_turn"]
    )
    const added = await ok(client, "remember", { text: "The user likes green tea" })
    assert.deepStrictEqual([added.agent, added.changed], ["default", true])
    const tooLong = await refused(client, "remember", { text: "x".repeat(301) })
    assert.deepStrictEqual([tooLong.agent, tooLong.reason], ["default", "TooLong"])
    assert.deepStrictEqual(
      (await client.listResources()).resources.map((resource) => resource.uri),
      ["memory://default/MEMORY.md", "memory://team/MEMORY.md"]
    )
    const own = await client.readResource({ uri: "memory://default/MEMORY.md" })
    assert.include((own.contents[0] as { text: string }).text, "- The user likes green tea [added: ")
    const prompt = await client.getPrompt({ name: "memory-context" })
    assert.include((prompt.messages[0]!.content as { text: string }).text, "The user likes green tea")
    const kept = await ok(client, "review_turn", {
      conversation: "chat-1",
      lines: [{ who: "user", text: "I moved to Lisbon last month." }]
    })
    assert.deepStrictEqual([kept.kept, kept.first, kept.last], [1, 1, 1])

    await transport.terminateSession()
    assert.strictEqual(await server.exited, 0)
    assert.strictEqual(server.stdout(), "")
    const memoryFile = readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8")
    assert.include(memoryFile, "- The user likes green tea [added: ")
    assert.include(memoryFile, "- The user moved to Lisbon [source: chat-1 #1; added: ")
  })

  it("remote: a request without the bearer token, or with another, gets 401; with it, the server answers", async () => {
    const { memory } = scratch()
    const token = "correct-horse-battery-staple"
    const server = await httpServer(memory, ["--http", "0.0.0.0:0", "--allow-remote"], { MNEME_MCP_TOKEN: token })
    const url = server.url.replace("//0.0.0.0:", "//127.0.0.1:")
    const initialize = (authorization?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization === undefined ? {} : { authorization })
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } }
        })
      })
    for (const authorization of [undefined, "Bearer another-token", `Basic ${token}`, "Bearer "]) {
      const response = await initialize(authorization)
      assert.strictEqual(response.status, 401, authorization)
      assert.strictEqual(response.headers.get("www-authenticate"), 'Bearer realm="mneme"')
      assert.strictEqual(await response.text(), "mneme: this server needs the bearer token of MNEME_MCP_TOKEN\n")
    }
    const refusedClient = await httpClient(url).then(
      () => undefined,
      (error: unknown) => error
    )
    assert.instanceOf(refusedClient, StreamableHTTPError)
    assert.strictEqual((refusedClient as StreamableHTTPError).code, 401)

    const { client, transport } = await httpClient(url, { authorization: `Bearer ${token}` })
    const added = await ok(client, "remember", { text: "The user likes green tea" })
    assert.isTrue(added.changed)
    await transport.terminateSession()
    assert.strictEqual(await server.exited, 0)
    assert.notInclude(server.stderr(), token)
  })
})
