/**
 * Issues 13 and 22, `mneme mcp --http`: the same server over streamable HTTP at `/mcp`, driven by the official MCP
 * TypeScript SDK's client and by raw HTTP. It serves one client session after another until it is stopped: SIGINT or
 * SIGTERM (a real signal to the real process) stop it from taking requests, the waiting review finishes within
 * `--grace` (a second signal stops the wait), and it exits 130. A session whose client went away without ending it is
 * ended after `--session-idle`. A request whose Host header names another site (a web page whose name was pointed at
 * this machine) gets 403, whatever else it carries; the served address, localhost and the names of `--allow-host` are
 * answered. On an address other than this machine's own, every request needs the bearer token of MNEME_MCP_TOKEN:
 * without it, or with another, 401.
 */
import { assert, describe, it } from "@effect/vitest"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { scratch } from "./cliKit.ts"
import { adding, heldModel, httpClient, httpServer, ok, post, refused } from "./mcpKit.ts"

describe("mneme mcp --http (issue 13)", () => {
  it("serves the tools, resources and prompt at /mcp on this machine, one session after another, until stopped", async () => {
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
    await client.close()

    // The first session's end ends nothing else: the next client is served, and sees what the first one kept.
    const next = await httpClient(server.url)
    const recalled = await ok(next.client, "recall", { query: "green tea" })
    assert.include(JSON.stringify(recalled), "The user likes green tea")
    await next.transport.terminateSession()
    await next.client.close()
    const third = await httpClient(server.url)
    assert.strictEqual(third.client.getServerVersion()?.name, "mneme")

    server.child.kill("SIGTERM")
    assert.strictEqual(await server.exited, 130)
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
    server.child.kill("SIGINT")
    assert.strictEqual(await server.exited, 130)
    assert.notInclude(server.stderr(), token)
  })

  it("SIGTERM: no request is taken, the waiting review finishes within --grace, and the server exits 130", async () => {
    const { memory } = scratch()
    const model = await heldModel(JSON.stringify({ changes: [{ op: "add", text: "The user moved to Lisbon" }] }))
    const server = await httpServer(memory, ["--http", "127.0.0.1:0", "--model", model.url], { MNEME_MODEL: "stub" })
    const { client } = await httpClient(server.url)
    await ok(client, "review_turn", {
      conversation: "chat-1",
      lines: [{ who: "user", text: "I moved to Lisbon last month." }]
    })

    server.child.kill("SIGTERM")
    await server.said("mneme mcp: stopping; waiting for 1 review to finish (at most 30 seconds)")
    const refusedRequest = await fetch(server.url, { method: "POST" }).then(
      () => undefined,
      (error: unknown) => error
    )
    assert.instanceOf(refusedRequest, TypeError, "the server took a request after it was asked to stop")
    model.release()
    assert.strictEqual(await server.exited, 130)
    assert.include(
      readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8"),
      "- The user moved to Lisbon [source: chat-1 #1; added: "
    )
    assert.notInclude(server.stderr(), "stopped waiting")
  })

  it("SIGINT, then SIGINT again: the second stops the wait, the turn's lines kept for a later review", async () => {
    const { memory } = scratch()
    const model = await heldModel("{}")
    const server = await httpServer(memory, ["--http", "127.0.0.1:0", "--model", model.url], { MNEME_MODEL: "stub" })
    const { client } = await httpClient(server.url)
    await ok(client, "review_turn", { conversation: "chat-1", lines: [{ who: "user", text: "I moved to Lisbon." }] })

    server.child.kill("SIGINT")
    await server.said("mneme mcp: stopping; waiting for 1 review to finish (at most 30 seconds)")
    server.child.kill("SIGINT")
    assert.strictEqual(await server.exited, 130)
    assert.include(
      server.stderr(),
      "mneme mcp: stopped waiting as asked; the lines of the reviews left are kept in their conversation logs"
    )
    assert.isFalse(existsSync(join(memory, "agents/default/MEMORY.md")))
    assert.include(readFileSync(join(memory, "conversations/chat-1.jsonl"), "utf8"), "I moved to Lisbon.")
  })

  it("a session whose client went away without ending it is ended after --session-idle; its client may start anew", async () => {
    const { memory } = scratch()
    const server = await httpServer(memory, ["--http", "127.0.0.1:0", "--session-idle", "1"])
    const gone = await httpClient(server.url)
    await ok(gone.client, "remember", { text: "The user likes green tea" })
    const session = gone.transport.sessionId!
    assert.isString(session)
    // The client goes away: no DELETE, nothing more.
    await gone.transport.close()

    await server.said("mneme mcp: ended a session idle for 1 second; its client starts a new one when it comes back")
    const late = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })
    })
    assert.strictEqual(late.status, 404)

    const back = await httpClient(server.url)
    const recalled = await ok(back.client, "recall", { query: "green tea" })
    assert.include(JSON.stringify(recalled), "The user likes green tea")
    server.child.kill("SIGTERM")
    assert.strictEqual(await server.exited, 130)
  })

  it("a request addressed to another site gets 403 and reaches nothing; this machine's own names are answered", async () => {
    const { memory } = scratch()
    const server = await httpServer(memory, ["--http", "127.0.0.1:0"])
    const port = new URL(server.url).port
    const { client, transport } = await httpClient(server.url)
    await ok(client, "remember", { text: "The user likes green tea" })
    const session = transport.sessionId!

    const refusal =
      `mneme: this server answers only requests addressed to 127.0.0.1:${port}, localhost:${port}, so that a web ` +
      "page whose name was pointed at this machine cannot reach it; to reach it under another name, start it with " +
      "--allow-host NAME\n"
    for (const host of [`rebind.evil.example:${port}`, "rebind.evil.example", `127.0.0.1:${Number(port) + 1}`]) {
      const answer = await post(server.url, { host })
      assert.strictEqual(answer.status, 403, host)
      assert.strictEqual(answer.body, refusal, host)
      assert.isUndefined(answer.headers["mcp-session-id"])
    }
    // With a session that exists, the call is refused all the same, and nothing is written.
    const remember = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "remember", arguments: { text: "The user's bank is Evil Bank" } }
    }
    const inSession = await post(
      server.url,
      { host: `rebind.evil.example:${port}`, "mcp-session-id": session },
      remember
    )
    assert.strictEqual(inSession.status, 403)
    assert.notInclude(readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8"), "Evil Bank")

    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const answer = await post(server.url, { host })
      assert.strictEqual(answer.status, 200, host)
      assert.isString(answer.headers["mcp-session-id"])
    }
    // The session of the SDK's client was not ended by any of it.
    const recalled = await ok(client, "recall", { query: "green tea" })
    assert.include(JSON.stringify(recalled), "The user likes green tea")
    server.child.kill("SIGTERM")
    assert.strictEqual(await server.exited, 130)
  })

  it("remote: the names of --allow-host are answered (the token still needed), any other gets 403", async () => {
    const { memory } = scratch()
    const token = "correct-horse-battery-staple"
    const server = await httpServer(
      memory,
      ["--http", "0.0.0.0:0", "--allow-remote", "--allow-host", "mneme.lan", "--allow-host", "proxy.example:443"],
      { MNEME_MCP_TOKEN: token }
    )
    const url = server.url.replace("//0.0.0.0:", "//127.0.0.1:")
    const port = new URL(url).port
    const bearer = { authorization: `Bearer ${token}` }
    for (const host of [
      "mneme.lan",
      `mneme.lan:${port}`,
      "proxy.example:443",
      `127.0.0.1:${port}`,
      `localhost:${port}`
    ]) {
      assert.strictEqual((await post(url, { host, ...bearer })).status, 200, host)
      assert.strictEqual((await post(url, { host })).status, 401, host)
    }
    for (const host of ["proxy.example", `evil.example:${port}`, "mneme.lan.evil.example"]) {
      const answer = await post(url, { host, ...bearer })
      assert.strictEqual(answer.status, 403, host)
      assert.include(answer.body, "proxy.example:443, mneme.lan, so that a web page whose name was pointed at this")
    }
    server.child.kill("SIGTERM")
    assert.strictEqual(await server.exited, 130)
  })
})
