/**
 * Issue 13, `mneme mcp` over standard input and output, driven by the official MCP TypeScript SDK's client: it lists
 * its tools (described for a model, no limit in a schema), answers each tool (every result names the agent; a change
 * memory cannot make is an `isError` result with its reason and message, and nothing is written), lists and reads the
 * memory files as resources and tells a subscriber of changes (its own, and another process's), gives the memory
 * section as a prompt frozen for the session, and keeps `review_turn`'s lines in the conversation's log for the
 * background review, whose entry is on disk once the client has closed and the server has exited 0. An MCP `remember`
 * and `mneme remember` processes on one root at once all land.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, mneme, mnemeAsync, scratch } from "./cliKit.ts"
import { adding, call, heldModel, ok, refused, stdio } from "./mcpKit.ts"

const own = (memory: string, agent = "default") => join(memory, "agents", agent, "MEMORY.md")
const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined)

/** Every Markdown file and the journal of a memory folder, with their text. */
const snapshot = (memory: string) =>
  Object.fromEntries(
    ["agents/ada/MEMORY.md", "agents/ada/travel.md", "team/MEMORY.md", "journal.jsonl"].map((file) => [
      file,
      read(join(memory, file))
    ])
  )

const dated = /\[added: \d{4}-\d{2}-\d{2}\]/

describe("mneme mcp: the tools (issue 13)", () => {
  it("lists its tools, each described for a model with the limits in force, and no limit in a parameter schema", async () => {
    const { memory } = scratch()
    const server = await stdio(memory, [], { MNEME_ENTRY_MAX: "200" })
    assert.strictEqual(server.client.getServerVersion()?.name, "mneme")
    assert.include(server.client.getInstructions(), "review_turn")
    const { tools } = await server.client.listTools()
    assert.deepStrictEqual(
      tools.map((tool) => tool.name),
      ["remember", "forget", "recall", "show", "review_turn"]
    )
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
    assert.include(byName.remember!.description, "Keep a lasting fact in long-term memory")
    assert.include(byName.remember!.description, "an entry is at most 200 characters and is never a key, password")
    assert.include(byName.remember!.description, "the result is an error that says why and what to do")
    assert.include(byName.recall!.description, "at most 20 entries")
    assert.include(byName.review_turn!.description, "At the end of each turn of a conversation")
    for (const tool of tools) {
      const schema = JSON.stringify(tool.inputSchema)
      for (const limit of ["maxLength", "minLength", "pattern", "maxItems", "minItems", "maximum", "minimum"]) {
        assert.notInclude(schema, limit, tool.name)
      }
      assert.isFalse(tool.annotations?.openWorldHint, tool.name)
    }
    assert.isTrue(byName.recall!.annotations?.readOnlyHint)
    assert.isTrue(byName.show!.annotations?.readOnlyHint)
    assert.isFalse(byName.remember!.annotations?.readOnlyHint)
    assert.isTrue(byName.forget!.annotations?.destructiveHint)
    assert.deepStrictEqual(byName.review_turn!.inputSchema.required, ["conversation", "lines"])
    assert.strictEqual(await server.close(), 0)
    assert.deepStrictEqual(server.errors, [])
    assert.include(server.stderr(), 'mneme mcp: serving the memory of the agent "default" in')
  })

  it("remember, forget, recall and show: each result names the agent; each refusal is an error result, nothing written", async () => {
    const { memory } = scratch()
    const server = await stdio(memory, ["--agent", "ada"], { MNEME_MEMORY_MAX: "200", MNEME_TOPICS_MAX: "1" })
    const { client } = server

    const added = await ok(client, "remember", { text: "The user likes green tea" })
    assert.strictEqual(added.agent, "ada")
    assert.isTrue(added.changed)
    assert.match(
      added.message as string,
      /^added to agents\/ada\/MEMORY\.md \(now \d+ of 200 characters\): "The user likes green tea"$/
    )
    const again = await ok(client, "remember", { text: "the user likes  GREEN tea" })
    assert.deepStrictEqual([again.agent, again.changed], ["ada", false])
    await ok(client, "remember", { text: "The user drinks tea in the afternoon" })
    await ok(client, "remember", { text: "The user travels by train", topic: "travel", team: null })
    const journal = read(join(memory, "journal.jsonl"))!.trimEnd().split("\n")
    assert.deepStrictEqual(
      journal.map((line) => JSON.parse(line).actor),
      ["agent", "agent", "agent", "agent"]
    )

    const before = snapshot(memory)
    const failures: Array<[Record<string, unknown>, string, string | RegExp]> = [
      [
        { text: "x".repeat(301) },
        "TooLong",
        "memory cannot keep this entry: the entry is 301 characters, over the limit of 300: shorten it, or split it into several entries"
      ],
      [
        { text: "The root password is hunter2" },
        "Secret",
        "memory cannot keep this entry: it looks like a secret (a key, password or ID number), which memory never keeps"
      ],
      [{ text: "   " }, "Empty", "memory cannot keep this entry: the entry is empty"],
      [{ text: "A fact", topic: "memory" }, "BadTopic", /^"memory" is not a topic name: use 1-48 letters/],
      [{ text: "The user likes soup", topic: "food" }, "TooManyTopics", /^agents\/ada already has 1 topic/],
      [
        { text: `The user's long story: ${"y".repeat(150)}` },
        "MemoryFull",
        /^agents\/ada\/MEMORY\.md would hold [\d,]+ of its 200 characters \(\d+%\): remove or shorten entries/
      ],
      [
        { text: "The user likes coffee", replace: "coffee" },
        "NoMatch",
        'no entry in agents/ada/MEMORY.md holds "coffee": recall finds where an entry is (its topic, and whether it is team memory)'
      ]
    ]
    for (const [args, reason, message] of failures) {
      const result = await refused(client, "remember", args)
      assert.strictEqual(result.agent, "ada")
      assert.strictEqual(result.reason, reason, result.message)
      if (typeof message === "string") assert.strictEqual(result.message, message)
      else assert.match(result.message, message)
    }
    const several = await refused(client, "forget", { match: "tea" })
    assert.strictEqual(several.reason, "NoMatch")
    assert.match(several.message, /^"tea" matches several entries in agents\/ada\/MEMORY\.md; quote one of them whole:/)
    assert.deepStrictEqual((several as unknown as { candidates: Array<string> }).candidates, [
      "The user likes green tea",
      "The user drinks tea in the afternoon"
    ])
    const noTopic = await refused(client, "recall", { topic: "nope" })
    assert.deepStrictEqual(noTopic, {
      _tag: "MemoryToolError",
      agent: "ada",
      reason: "NoSuchTopic",
      message: 'there is no topic "nope" in agents/ada or team; the only topic is travel'
    } as unknown as typeof noTopic)
    // Nothing was written, and nothing was lost.
    assert.deepStrictEqual(snapshot(memory), before)

    const recalled = await ok(client, "recall", { query: "tea" })
    assert.strictEqual(recalled.agent, "ada")
    assert.deepStrictEqual(
      (recalled.entries as Array<{ text: string }>).map((entry) => entry.text),
      ["The user likes green tea", "The user drinks tea in the afternoon"]
    )
    const topic = (await ok(client, "recall", { topic: "travel" })).entries as Array<Record<string, string>>
    assert.deepStrictEqual(
      topic.map(({ added, ...entry }) => [entry, /^\d{4}-\d{2}-\d{2}$/.test(added ?? "")]),
      [[{ scope: "own", topic: "travel", text: "The user travels by train" }, true]]
    )

    const forgotten = await ok(client, "forget", { match: "The user drinks tea in the afternoon" })
    assert.deepStrictEqual([forgotten.agent, forgotten.changed], ["ada", true])
    assert.notInclude(read(own(memory, "ada"))!, "afternoon")

    const shown = await ok(client, "show")
    assert.strictEqual(shown.agent, "ada")
    const markdown = (shown.memory as string).split("\n")
    assert.strictEqual(markdown[0], '# Memory of the agent "ada"')
    assert.include(markdown, "## Own memory: agents/ada (1 / 1 topics)")
    assert.isTrue(markdown.some((line) => /^### MEMORY\.md: \d+ \/ 200 characters$/.test(line)))
    assert.isTrue(markdown.some((line) => line.startsWith("- The user likes green tea [added: ") && dated.test(line)))
    assert.isTrue(markdown.some((line) => /^### topic travel: \d+ \/ 16,000 characters$/.test(line)))
    assert.include(markdown, "## Team memory, which every agent reads: team (0 / 1 topics)")
    assert.include(markdown, "(no entries)")
    assert.strictEqual(markdown.at(-1), "Last review: none yet")

    assert.strictEqual(await server.close(), 0)
    assert.deepStrictEqual(server.errors, [])
  })

  it("an MCP remember and mneme remember processes on one root at once: every one lands", async () => {
    const { memory } = scratch()
    const server = await stdio(memory)
    // Nine from the client, more than one turn's eight writes: each call is a turn of its own.
    const fromClient = Array.from({ length: 9 }, (_, i) => `The user's fact number ${i + 1} from the client`)
    const fromCli = Array.from({ length: 4 }, (_, i) => `The user's fact number ${i + 1} from the command line`)
    const [tools, processes] = await Promise.all([
      Promise.all(fromClient.map((text) => ok(server.client, "remember", { text }))),
      Promise.all(fromCli.map((text) => mnemeAsync(["remember", text, "--memory", memory])))
    ])
    assert.isTrue(tools.every((result) => result.changed === true))
    for (const run of processes) assert.strictEqual(run.code, 0, run.stderr)
    const memoryFile = read(own(memory))!
    for (const text of [...fromClient, ...fromCli]) assert.include(memoryFile, `- ${text} [added: `)
    const actors = read(join(memory, "journal.jsonl"))!
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).actor as string)
    assert.deepStrictEqual(actors.toSorted(), [...Array(4).fill("cli"), ...Array(9).fill("agent")].toSorted())
    assert.strictEqual(await server.close(), 0)
  })
})

describe("mneme mcp: resources and the prompt (issue 13)", () => {
  it("lists and reads the memory files, masked; a subscriber is told of changes, a topic comes and goes", async () => {
    const { memory } = scratch()
    mkdirSync(join(memory, "team"), { recursive: true })
    writeFileSync(
      join(memory, "team/MEMORY.md"),
      "# Memory\n\nNotes kept by hand.\n\n- The deploy key is ghp_0123456789abcdefghijABCDEFGHIJ012345\n- The team ships on Fridays\n"
    )
    const server = await stdio(memory)
    const { client, next } = server
    const ownUri = "memory://default/MEMORY.md"
    const topicUri = "memory://default/travel.md"
    const listed = async () => (await client.listResources()).resources.map((resource) => resource.uri)
    assert.deepStrictEqual(await listed(), [ownUri, "memory://team/MEMORY.md"])
    const team = await client.readResource({ uri: "memory://team/MEMORY.md" })
    assert.deepStrictEqual(team.contents, [
      {
        uri: "memory://team/MEMORY.md",
        mimeType: "text/markdown",
        text: "# Memory\n\nNotes kept by hand.\n\n- The deploy key is [secret]\n- The team ships on Fridays\n"
      }
    ])

    await client.subscribeResource({ uri: ownUri })
    const updated = next((notice) => notice.uri === ownUri)
    await ok(client, "remember", { text: "The user likes green tea" })
    assert.strictEqual((await updated).method, "notifications/resources/updated")

    const appeared = next((notice) => notice.method === "notifications/resources/list_changed")
    await ok(client, "remember", { text: "The user travels by train", topic: "travel" })
    await appeared
    assert.deepStrictEqual(await listed(), [ownUri, "memory://team/MEMORY.md", topicUri])
    const topic = await client.readResource({ uri: topicUri })
    assert.match((topic.contents[0] as { text: string }).text, /^# travel\n\n- The user travels by train \[added: /)

    // A change another process makes is seen too.
    const byCli = next((notice) => notice.uri === ownUri)
    const run = await mnemeAsync(["remember", "The user walks to work", "--memory", memory])
    assert.strictEqual(run.code, 0, run.stderr)
    await byCli
    const after = await client.readResource({ uri: ownUri })
    assert.include((after.contents[0] as { text: string }).text, "- The user walks to work [added: ")

    const gone = next((notice) => notice.method === "notifications/resources/list_changed")
    await ok(client, "forget", { match: "The user travels by train", topic: "travel" })
    await gone
    assert.deepStrictEqual(await listed(), [ownUri, "memory://team/MEMORY.md"])
    const unread = await client.readResource({ uri: topicUri }).then(
      () => "read",
      (error: Error) => error.message
    )
    assert.notStrictEqual(unread, "read")
    assert.strictEqual(await server.close(), 0)
    assert.deepStrictEqual(server.errors, [])
  })

  it("memory-context is the agent's memory section, the same text for the whole session", async () => {
    const { memory } = scratch()
    assert.strictEqual(mneme(["remember", "The user likes green tea", "--memory", memory]).code, 0)
    const first = await stdio(memory)
    const { prompts } = await first.client.listPrompts()
    assert.deepStrictEqual(
      prompts.map((prompt) => prompt.name),
      ["memory-context"]
    )
    const section = async (client: typeof first.client) => {
      const prompt = await client.getPrompt({ name: "memory-context" })
      assert.strictEqual(prompt.messages.length, 1)
      return (prompt.messages[0]!.content as { text: string }).text
    }
    const text = await section(first.client)
    assert.include(text, "## Long-term memory")
    assert.include(text, '- "The user likes green tea" [added: ')
    await ok(first.client, "remember", { text: "The user walks to work" })
    assert.strictEqual(await section(first.client), text)
    assert.strictEqual(await first.close(), 0)

    const second = await stdio(memory)
    assert.include(await section(second.client), '- "The user walks to work" [added: ')
    assert.strictEqual(await second.close(), 0)
  })
})

describe("mneme mcp: review_turn (issue 13)", () => {
  it("keeps the lines with seq given by the server; the replay model's entry is on disk once the server exits 0", async () => {
    const { dir, memory } = scratch()
    const answers = join(dir, "answers.jsonl")
    writeFileSync(answers, adding("The user moved to Lisbon"))
    const server = await stdio(memory, ["--agent", "ada", "--model", `replay:${answers}`])
    const first = await ok(server.client, "review_turn", {
      conversation: "chat-1",
      lines: [
        { who: "user", text: "I moved to Lisbon last month." },
        { who: "agent", text: "How exciting!" }
      ]
    })
    assert.deepStrictEqual(first, {
      agent: "ada",
      conversation: "chat-1",
      kept: 2,
      first: 1,
      last: 2,
      review:
        "lines #1 to #2 of the conversation are kept; their review runs in the background 2 seconds after this conversation's last turn end",
      lastReview: null
    })
    const second = await ok(server.client, "review_turn", {
      conversation: "chat-1",
      lines: [
        { who: "user", text: "Yes, I love it here.", name: null },
        { who: "agent", kind: "tool-call", text: '{"tool":"recall"}' }
      ]
    })
    assert.deepStrictEqual([second.first, second.last], [3, 4])
    assert.strictEqual(
      read(join(memory, "conversations/chat-1.jsonl")),
      [
        '{"seq":1,"who":"user","text":"I moved to Lisbon last month.","agent":"ada"}',
        '{"seq":2,"who":"agent","text":"How exciting!","agent":"ada"}',
        '{"seq":3,"who":"user","text":"Yes, I love it here.","agent":"ada"}',
        '{"seq":4,"who":"agent","text":"{\\"tool\\":\\"recall\\"}","kind":"tool-call","agent":"ada"}',
        ""
      ].join("\n")
    )
    assert.strictEqual(await server.close(), 0)
    assert.deepStrictEqual(server.errors, [])
    assert.match(
      read(own(memory, "ada"))!,
      /^- The user moved to Lisbon \[source: chat-1 #\d; added: \d{4}-\d{2}-\d{2}\]$/m
    )
    const state = JSON.parse(read(join(memory, "reviewed.json"))!)
    assert.strictEqual(state.cursors["chat:chat-1"], 4)
    assert.strictEqual(state.lastReviews.ada.ok, true)

    const later = await stdio(memory, ["--agent", "ada"])
    assert.match((await ok(later.client, "show")).memory as string, /\nLast review: \d{4}-\d{2}-\d{2} [\d:]+ UTC, ok$/)
    assert.strictEqual(await later.close(), 0)
  })

  it("a client that closes: the waiting review finishes first, or is left after --grace; the server exits 0", async () => {
    const { memory } = scratch()
    const model = await heldModel(JSON.stringify({ changes: [{ op: "add", text: "The user moved to Lisbon" }] }))
    const env = { MNEME_MODEL: "stub-model" }
    const turn = { conversation: "chat-1", lines: [{ who: "user", text: "I moved to Lisbon." }] }

    const waiting = await stdio(memory, ["--model", model.url], env)
    await ok(waiting.client, "review_turn", turn)
    const exited = waiting.close()
    await waiting.said("mneme mcp: the client closed; waiting for 1 review to finish (at most 30 seconds)")
    model.release()
    assert.strictEqual(await exited, 0)
    assert.include(read(own(memory))!, "- The user moved to Lisbon [source: chat-1 #1; added: ")

    const { memory: other } = scratch()
    const never = await heldModel("{}")
    const leaving = await stdio(other, ["--model", never.url, "--grace", "1"], env)
    await ok(leaving.client, "review_turn", turn)
    assert.strictEqual(await leaving.close(), 0)
    assert.include(
      leaving.stderr(),
      "mneme mcp: stopped waiting after 1 second; the lines of the reviews left are kept in their conversation logs"
    )
    assert.isUndefined(read(own(other)))
    assert.include(read(join(other, "conversations/chat-1.jsonl"))!, "I moved to Lisbon.")
  })

  it("SIGTERM: the server stops, the waiting review finishes within --grace, and it exits 130", async () => {
    const { memory } = scratch()
    const model = await heldModel(JSON.stringify({ changes: [{ op: "add", text: "The user moved to Lisbon" }] }))
    const server = await stdio(memory, ["--model", model.url], { MNEME_MODEL: "stub-model" })
    await ok(server.client, "review_turn", {
      conversation: "chat-1",
      lines: [{ who: "user", text: "I moved to Lisbon." }]
    })
    const exited = new Promise((resolve) => server.child.on("close", resolve))
    server.child.kill("SIGTERM")
    await server.said("mneme mcp: stopping; waiting for 1 review to finish (at most 30 seconds)")
    model.release()
    assert.strictEqual(await exited, 130)
    assert.include(read(own(memory))!, "- The user moved to Lisbon [source: chat-1 #1; added: ")
  })

  it("refuses a bad conversation id, an other line without a name and another agent's conversation, the log untouched", async () => {
    const { memory } = scratch()
    const bob = await stdio(memory, ["--agent", "bob"])
    await ok(bob.client, "review_turn", { conversation: "chat-1", lines: [{ who: "user", text: "Hi, I am Dana." }] })
    assert.strictEqual(await bob.close(), 0)
    const log = read(join(memory, "conversations/chat-1.jsonl"))

    const ada = await stdio(memory, ["--agent", "ada"])
    const badId = await refused(ada.client, "review_turn", { conversation: "../escape", lines: [] })
    assert.deepStrictEqual(
      [badId.agent, badId.reason, badId.message],
      [
        "ada",
        "BadConversation",
        'conversation "../escape": a conversation id is 1-128 letters, digits, _ or - (the same id for every turn of one conversation)'
      ]
    )
    const nameless = await refused(ada.client, "review_turn", {
      conversation: "chat-2",
      lines: [
        { who: "user", text: "Meet Sam." },
        { who: "other", text: "Hello!" }
      ]
    })
    assert.deepStrictEqual(
      [nameless.reason, nameless.message],
      ["BadLine", 'line 2: an "other" line needs the speaker\'s name']
    )
    assert.isFalse(existsSync(join(memory, "conversations/chat-2.jsonl")))
    const theirs = await refused(ada.client, "review_turn", {
      conversation: "chat-1",
      lines: [{ who: "user", text: "Mine now." }]
    })
    assert.deepStrictEqual(
      [theirs.reason, theirs.message],
      [
        "BadConversation",
        'conversation "chat-1": it is a conversation of the agent "bob": give this conversation an id of its own'
      ]
    )
    assert.strictEqual(read(join(memory, "conversations/chat-1.jsonl")), log)
    assert.deepStrictEqual((await call(ada.client, "review_turn", { conversation: "chat-3", lines: [] })).value, {
      agent: "ada",
      conversation: "chat-3",
      kept: 0,
      first: null,
      last: null,
      review:
        "no new line was given, but no review will run until a model is set: start mneme mcp with --model replay:FILE or --model <URL>, or set MNEME_BASE_URL (with MNEME_MODEL and MNEME_API_KEY) for an OpenAI-compatible server",
      lastReview: null
    })
    assert.strictEqual(await ada.close(), 0)
  })

  it("without a model keeps the lines and says no review runs until a model is set", async () => {
    const { memory } = scratch()
    const server = await stdio(memory)
    const kept = await ok(server.client, "review_turn", {
      conversation: "chat-1",
      lines: [{ who: "user", text: "I moved to Lisbon." }]
    })
    assert.strictEqual(
      kept.review,
      "lines #1 to #1 of the conversation are kept, but no review will run until a model is set: start mneme mcp with --model replay:FILE or --model <URL>, or set MNEME_BASE_URL (with MNEME_MODEL and MNEME_API_KEY) for an OpenAI-compatible server"
    )
    assert.strictEqual(await server.close(), 0)
    assert.notInclude(server.stderr(), "waiting for")
    assert.include(read(join(memory, "conversations/chat-1.jsonl"))!, '"text":"I moved to Lisbon."')
    assert.isUndefined(read(own(memory)))
    assert.isUndefined(read(join(memory, "reviewed.json")))
  })

  it("a failed review: its warning on stderr, stdout the protocol alone, and the last review says why", async () => {
    const { dir, memory } = scratch()
    const answers = join(dir, "answers.jsonl")
    writeFileSync(answers, '{"error": "the model server is down"}\n')
    const server = await stdio(memory, ["--model", `replay:${answers}`])
    await ok(server.client, "review_turn", { conversation: "chat-1", lines: [{ who: "user", text: "I like tea." }] })
    assert.strictEqual(await server.close(), 0)
    assert.deepStrictEqual(server.errors, [])
    assert.include(server.stderr(), "memory review failed")
    assert.include(server.stderr(), "the model server is down")
    const later = await stdio(memory)
    assert.match(
      (await ok(later.client, "show")).memory as string,
      /\nLast review: \d{4}-\d{2}-\d{2} [\d:]+ UTC, failed: .*the model server is down/
    )
    assert.strictEqual(await later.close(), 0)
  })
})

describe("mneme mcp: what stops it from starting", () => {
  it("usage and configuration: exit 2 with one line that says what to do", () => {
    const { memory } = scratch()
    const at = ["mcp", "--memory", memory]
    assertFailure(
      mneme([...at, "--agent", "team"]),
      2,
      'the agent "team" cannot be served: memory://team/ names team memory; choose another agent id'
    )
    assertFailure(
      mneme([...at, "--http", "0.0.0.0:8765"]),
      2,
      "--http 0.0.0.0 is not this machine's own address: pass --allow-remote (with MNEME_MCP_TOKEN set)"
    )
    assertFailure(
      mneme([...at, "--http", "0.0.0.0:8765", "--allow-remote"]),
      2,
      "--allow-remote needs MNEME_MCP_TOKEN: the bearer token every request must carry"
    )
    assertFailure(
      mneme([...at, "--http", "localhost"]),
      2,
      '--http takes PORT or HOST:PORT (such as 127.0.0.1:8765, or [::1]:8765), not "localhost"'
    )
    assertFailure(mneme([...at, "--http", "127.0.0.1:70000"]), 2, "--http takes PORT or HOST:PORT")
    assertFailure(mneme([...at, "--grace", "-1"]), 2, "--grace must be 0 seconds or more")
    assertFailure(mneme([...at, "--model", "ftp://model"]), 2, "--model takes replay:FILE or a server URL")
    assertFailure(
      mneme(at, { MNEME_BASE_URL: "http://127.0.0.1:9/v1" }),
      2,
      "set MNEME_MODEL to the name of the model the server should run"
    )
    assert.isFalse(existsSync(memory))
  })

  it("the flags of the HTTP server: exit 2 with one line that says what to do", () => {
    const at = ["mcp", "--memory", scratch().memory]
    assertFailure(mneme([...at, "--session-idle", "-1"]), 2, "--session-idle must be 0 seconds (never) or more")
    assertFailure(mneme([...at, "--allow-host", "mneme.lan"]), 2, "--allow-host is for --http")
    assertFailure(
      mneme([...at, "--http", "127.0.0.1:0", "--allow-host", "http://mneme.lan/"]),
      2,
      '--allow-host takes a host name, with a port or without (such as mneme.example.com or mneme.lan:8765), not "http://mneme.lan/"'
    )
  })

  it("a memory folder that is a file, or recorded answers that cannot be read: exit 1, said once", () => {
    const { dir, memory } = scratch()
    writeFileSync(memory, "not a folder")
    const file = mneme(["mcp", "--memory", memory], {})
    assertFailure(file, 1, "is not a folder")
    const answers = mneme(["mcp", "--memory", join(dir, "elsewhere"), "--model", `replay:${join(dir, "none.jsonl")}`])
    assertFailure(answers, 1, "cannot read recorded answers")
  })
})
