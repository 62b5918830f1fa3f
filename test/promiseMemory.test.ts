/**
 * mneme from a host that is not written with Effect (issue 26): `createMemory` driven from plain TypeScript, with no
 * Effect import, against a stub OpenAI-compatible server over real HTTP. The same files as an Effect host; the tools
 * in OpenAI's and Anthropic's shapes; the background review after a turn ends, and `close` waiting for it; failures as
 * `Error`s carrying the typed error's tag and message. And the example host of the README (`examples/promiseHost.ts`),
 * whose own chat model is the stub too.
 */
import { createMemory, MemoryError } from "@mneme/node"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import * as PromiseHost from "../examples/promiseHost.ts"

/** A chat completion request the stub was sent. */
interface Request {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | null }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}

/** What the stub answers: a text, tool calls, or an HTTP status. */
type Reply = string | { readonly toolCalls: ReadonlyArray<{ name: string; arguments: string }> } | { status: number }

const servers: Array<Server> = []
const folders: Array<string> = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** A stub OpenAI-compatible server on 127.0.0.1 answering each request with `reply(request)`, after `delayMs`. */
const stubServer = async (reply: (request: Request, call: number) => Reply, delayMs = 0) => {
  const requests: Array<Request> = []
  const server = createServer((incoming, response) => {
    let body = ""
    incoming.setEncoding("utf8").on("data", (chunk: string) => (body += chunk))
    incoming.on("end", () => {
      const request = JSON.parse(body) as Request
      requests.push(request)
      const answer = reply(request, requests.length)
      setTimeout(() => {
        if (typeof answer === "object" && "status" in answer) return response.writeHead(answer.status).end("{}")
        const message =
          typeof answer === "string"
            ? { role: "assistant", content: answer }
            : {
                role: "assistant",
                content: null,
                tool_calls: answer.toolCalls.map((call, i) => ({
                  id: `call_${i}`,
                  type: "function",
                  function: { name: call.name, arguments: call.arguments }
                }))
              }
        response
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ choices: [{ message, finish_reason: "stop" }] }))
      }, delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  servers.push(server)
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests }
}

const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), "mneme-promise-"))
  folders.push(dir)
  return join(dir, "memory")
}

/** A review answer adding one entry. */
const adding = (text: string) => JSON.stringify({ changes: [{ op: "add", text }] })

/** The new lines a review request shows the model. */
const newLines = (request: Request) => {
  const text = request.messages[1]?.content ?? ""
  const from = text.indexOf("## New lines (oldest first)")
  return text.slice(from, text.indexOf("\n\n", from))
}

/** The rejection of `promise`, which must reject with a `MemoryError`. */
const rejection = async (promise: Promise<unknown>): Promise<MemoryError> => {
  try {
    await promise
  } catch (error) {
    assert.instanceOf(error, MemoryError)
    assert.instanceOf(error, Error)
    return error as MemoryError
  }
  return assert.fail("it did not reject")
}

describe("createMemory", () => {
  it("keeps memory in the same files as an Effect host: tools, the section, the log and the review", async () => {
    const stub = await stubServer(() => adding("The user grows tomatoes in Lyon"))
    const root = folder()
    const memory = await createMemory({ root, model: { baseUrl: stub.baseUrl, model: "stub" }, agentId: "ada" })

    const openai = memory.tools("openai") as ReadonlyArray<{
      type: string
      function: { name: string; parameters: { type: string } }
    }>
    assert.deepStrictEqual(
      openai.map((tool) => [tool.type, tool.function.name, tool.function.parameters.type]),
      [
        ["function", "remember", "object"],
        ["function", "forget", "object"],
        ["function", "recall", "object"]
      ]
    )
    const anthropic = memory.tools("anthropic") as ReadonlyArray<{ name: string; input_schema: { type: string } }>
    assert.deepStrictEqual(
      anthropic.map((tool) => [tool.name, tool.input_schema.type]),
      [
        ["remember", "object"],
        ["forget", "object"],
        ["recall", "object"]
      ]
    )

    // The section, frozen for a conversation; a tool call with its arguments as OpenAI sends them (JSON text).
    const section = await memory.section("ada", { conversationId: "c1" })
    assert.include(section, "memory")
    const remembered = await memory.callTool("ada", "remember", '{"text": "The user prefers tea"}', {
      conversationId: "c1"
    })
    assert.strictEqual(remembered.isError, false)
    assert.strictEqual((remembered.result as { changed: boolean }).changed, true)
    assert.strictEqual(remembered.content, JSON.stringify(remembered.result))
    assert.strictEqual(await memory.section("ada", { conversationId: "c1" }), section, "frozen for the conversation")
    assert.include(await memory.section("ada"), "The user prefers tea", "memory as it is now")
    const refused = await memory.callTool("ada", "remember", { text: "x".repeat(400) })
    assert.strictEqual(refused.isError, true)
    assert.include(refused.content, "300")
    const unknown = await memory.callTool("ada", "teleport", {})
    assert.strictEqual(unknown.isError, true)

    // The turn's lines, then its end: the review runs in the background, and close waits for it.
    assert.deepStrictEqual(
      await memory.append("c1", [
        { who: "user", text: "I grow tomatoes on my balcony in Lyon." },
        { who: "agent", kind: "tool-call", text: '{"tool": "remember"}' },
        { who: "agent", text: "Lovely!" }
      ]),
      { first: 1, last: 3 }
    )
    await memory.turnEnded("c1")
    assert.strictEqual(await memory.pending(), 1)
    const found = await memory.recall("ada", "tea")
    assert.deepStrictEqual(
      found.entries.map((entry) => entry.text),
      ["The user prefers tea"]
    )
    await memory.close()

    assert.strictEqual(stub.requests.length, 1)
    assert.include(newLines(stub.requests[0]!), "I grow tomatoes on my balcony in Lyon.")
    assert.notInclude(newLines(stub.requests[0]!), "remember")
    const kept = readFileSync(join(root, "agents/ada/MEMORY.md"), "utf8")
    assert.include(kept, "- The user prefers tea [added: ")
    assert.include(kept, "- The user grows tomatoes in Lyon [source: c1 #1")
    const state = JSON.parse(readFileSync(join(root, "reviewed.json"), "utf8"))
    assert.deepStrictEqual(state.cursors, { "chat:c1": 3 })
    assert.strictEqual(state.lastReviews.ada.ok, true)
    assert.deepStrictEqual(
      readFileSync(join(root, "journal.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).actor),
      ["agent", "review"]
    )
    assert.strictEqual(readFileSync(join(root, "conversations/c1.jsonl"), "utf8").trim().split("\n").length, 3)
    const closed = await rejection(memory.recall("ada"))
    assert.strictEqual(closed.tag, "Closed")
  })

  it("close waits for the review in flight", async () => {
    const stub = await stubServer(() => adding("The user keeps bees"), 400)
    const root = folder()
    const memory = await createMemory({
      root,
      model: { baseUrl: stub.baseUrl, model: "stub" },
      settings: { reviewDelay: 10 }
    })
    await memory.append("c2", { who: "user", text: "I keep bees." })
    await memory.turnEnded("c2")
    while (stub.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    await memory.close()
    assert.include(readFileSync(join(root, "agents/default/MEMORY.md"), "utf8"), "- The user keeps bees [source: c2 #1")
  })

  it("fails with Errors that carry the typed error's tag and message, and loses nothing", async () => {
    const stub = await stubServer(() => ({ status: 401 }))
    const root = folder()
    assert.strictEqual((await rejection(createMemory({ root: "" }))).tag, "BadOptions")
    const badUrl = await rejection(createMemory({ root, model: { baseUrl: "nowhere", model: "m" } }))
    assert.strictEqual(badUrl.tag, "BadOptions")
    assert.include(badUrl.message, "model.baseUrl")
    assert.isFalse(existsSync(root))

    const memory = await createMemory({
      root,
      model: { baseUrl: stub.baseUrl, model: "stub", apiKey: "sk-never-shown" }
    })
    const badLine = await rejection(
      memory.append("c3", [{ who: "user", text: "ok" }, { who: "bot", text: "x" } as never])
    )
    assert.strictEqual(badLine.tag, "BadLine")
    assert.strictEqual(badLine._tag, "BadLine")
    assert.strictEqual(badLine.message, 'line 2: "who": Expected "user" | "agent" | "other"')
    const badId = await rejection(memory.append("c3/../x", { who: "user", text: "x" }))
    assert.strictEqual(badId.tag, "BadConversation")
    assert.include(badId.message, "a conversation id is 1-128 letters, digits, _ or -")
    const noTopic = await rejection(memory.recall("default", "", { topic: "travel" }))
    assert.strictEqual(noTopic.tag, "NoSuchTopic")
    assert.isFalse(existsSync(join(root, "conversations/c3.jsonl")), "a bad append keeps nothing")

    // A review that fails is recorded, not thrown: its lines stay after the cursor.
    await memory.append("c3", { who: "user", text: "I moved to Oslo." })
    await memory.turnEnded("c3")
    await memory.close()
    const view = JSON.parse(readFileSync(join(root, "reviewed.json"), "utf8"))
    assert.strictEqual(view.lastReviews.default.ok, false)
    assert.include(view.lastReviews.default.reason, "401")
    assert.notInclude(JSON.stringify(view), "sk-never-shown")
    assert.deepStrictEqual(view.cursors, { "chat:c3": 0 })
  })

  it("reads the host's own transcript instead of keeping a log", async () => {
    const stub = await stubServer(() => adding("The user is learning the cello"))
    const root = folder()
    const transcript = new Map([
      [
        "t1",
        [
          { seq: 10, who: "user" as const, text: "I started cello lessons." },
          { seq: 11, who: "agent" as const, text: "Great!" }
        ]
      ]
    ])
    const memory = await createMemory({
      root,
      model: { baseUrl: stub.baseUrl, model: "stub" },
      agents: { bob: { name: "Bob", role: "a music tutor", mayWriteTeam: false } },
      transcript: { lines: (id) => transcript.get(id) ?? [], agentOf: async () => "bob" },
      settings: { reviewDelay: 10 }
    })
    assert.strictEqual((await rejection(memory.append("t1", { who: "user", text: "x" }))).tag, "BadOptions")
    await memory.turnEnded("t1")
    await memory.close()
    assert.include(stub.requests[0]!.messages[1]!.content ?? "", "Bob")
    assert.include(
      readFileSync(join(root, "agents/bob/MEMORY.md"), "utf8"),
      "- The user is learning the cello [source: t1 #10"
    )
    assert.isFalse(existsSync(join(root, "conversations")))
  })
})

describe("the example host in plain TypeScript", () => {
  it("is in the README as it is", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    const example = readFileSync(new URL("../examples/promiseHost.ts", import.meta.url), "utf8")
    assert.include(readme, "```ts\n" + example + "```")
  })

  it("calls an OpenAI-compatible server with the memory tools, and its turns are reviewed", async () => {
    // The chat model calls remember, then answers; the review (a request without tools) keeps nothing new.
    const stub = await stubServer((request) => {
      if (request.tools === undefined) return JSON.stringify({ changes: [] })
      const last = request.messages.at(-1)!
      if (last.role === "tool") return "Noted: you grow basil."
      return { toolCalls: [{ name: "remember", arguments: '{"text": "The user grows basil on the windowsill"}' }] }
    })
    const root = folder()
    const model = { baseUrl: stub.baseUrl, model: "stub" }
    const memory = await PromiseHost.openMemory(root, model)
    assert.strictEqual(
      await PromiseHost.turn(memory, model, "p1", "I grow basil on my windowsill."),
      "Noted: you grow basil."
    )
    await memory.close()

    const chat = stub.requests.filter((request) => request.tools !== undefined)
    assert.deepStrictEqual(
      chat[0]!.tools!.map((tool) => tool.function.name),
      ["remember", "forget", "recall"]
    )
    assert.include(chat[0]!.messages[0]!.content ?? "", "You are Ada")
    assert.include(
      readFileSync(join(root, "agents/ada/MEMORY.md"), "utf8"),
      "- The user grows basil on the windowsill [added: "
    )
    const log = readFileSync(join(root, "conversations/p1.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    assert.deepStrictEqual(
      log.map((line) => [line.who, line.kind ?? "said"]),
      [
        ["user", "said"],
        ["agent", "tool-call"],
        ["agent", "tool-result"],
        ["agent", "said"]
      ]
    )
    const review = stub.requests.find((request) => request.tools === undefined)!
    assert.include(newLines(review), "I grow basil on my windowsill.")
    assert.notInclude(newLines(review), "tool")
  })
})
