/**
 * Each fact cites its line, through the CLI and the panel (issue 27, item 1): `mneme review` with recorded answers
 * that say `from` stores the lines cited, `mneme show --sources --transcripts DIR` prints each entry's line from the
 * transcript, and the panel started with `--transcripts DIR` links an entry to a page that shows its line. The built
 * command runs as a child process, each in a folder of its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, mneme, ownMemory, scratch } from "./cliKit.ts"
import { cookie, send, startPanel } from "./panelKit.ts"

/** Lines 1 to 11 of `chat.jsonl`: Marco says what he does at #1, and the last user line is #11. */
const chat = [
  { seq: 1, who: "user", text: "Hi, I'm Marco. I'm a backend developer." },
  { seq: 2, who: "agent", text: "Nice to meet you, Marco." },
  { seq: 3, who: "user", text: "I live in Turin. My key is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f" },
  { seq: 4, who: "agent", text: "Turin is lovely." },
  { seq: 5, who: "user", text: "Can you help me with a query?" },
  { seq: 6, who: "agent", text: "Of course." },
  { seq: 7, who: "user", text: "It joins orders and customers." },
  { seq: 8, who: "agent", text: "Here is a faster version." },
  { seq: 9, who: "user", text: "Thanks, that works." },
  { seq: 10, who: "agent", text: "Glad it helped." },
  { seq: 11, who: "user", text: "By the way, I prefer short answers." }
]

/** A folder of transcripts holding `chat.jsonl`, a memory folder, and the recorded answer with these changes. */
const setUp = (...changes: ReadonlyArray<object>) => {
  const { dir, memory } = scratch()
  const transcripts = join(dir, "transcripts")
  mkdirSync(transcripts)
  const transcript = join(transcripts, "chat.jsonl")
  writeFileSync(transcript, chat.map((line) => JSON.stringify(line)).join("\n") + "\n")
  const answers = join(dir, "answers.jsonl")
  writeFileSync(answers, JSON.stringify({ answer: JSON.stringify({ changes }) }) + "\n")
  return { dir, memory, transcripts, transcript, model: `replay:${answers}` }
}

/** The entry lines of the default agent's MEMORY.md, without the date the review added. */
const entries = (memory: string) =>
  ownMemory(memory)
    .split("\n")
    .filter((line) => line.startsWith("- "))
    .map((line) => line.replace(/; added: \d{4}-\d{2}-\d{2}\]$/, "]"))

describe("mneme review: each fact cites its line", () => {
  it("stores the line an answer's from names, several where given, and falls back where it names none shown", () => {
    const { memory, transcript, model } = setUp(
      { op: "add", text: "Marco is a backend developer", from: 1 },
      { op: "add", text: "Marco lives in Turin and writes SQL", from: ["7", 3] },
      { op: "add", text: "Marco prefers short answers", from: 99 }
    )
    const run = mneme(["review", transcript, "--model", model, "--memory", memory])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.deepStrictEqual(entries(memory), [
      "- Marco is a backend developer [source: chat #1]",
      "- Marco lives in Turin and writes SQL [source: chat #3, chat #7]",
      "- Marco prefers short answers [source: chat #11]"
    ])
  })

  it("fails on a malformed from, keeping nothing of the answer", () => {
    const { memory, transcript, model } = setUp(
      { op: "add", text: "Marco is a backend developer", from: 1 },
      { op: "add", text: "Marco lives in Turin", from: [] }
    )
    const run = mneme(["review", transcript, "--model", model, "--memory", memory])
    assert.strictEqual(run.code, 1, run.stdout)
    assert.include(run.stderr, "changes[1].from: expected a value with a length of at least 1")
    assert.isFalse(existsSync(join(memory, "agents/default/MEMORY.md")), "nothing of the answer is kept")
  })
})

describe("mneme show --sources", () => {
  it("prints under each entry the line its source cites, masked for secrets, from the transcripts folder", () => {
    const { memory, transcripts, transcript, model } = setUp(
      { op: "add", text: "Marco is a backend developer", from: 1 },
      { op: "add", text: "Marco lives in Turin", from: [3, 11] }
    )
    assert.strictEqual(mneme(["review", transcript, "--model", model, "--memory", memory]).code, 0)
    const run = mneme(["show", "--memory", memory, "--sources", "--transcripts", transcripts])
    assert.strictEqual(run.code, 0, run.stderr)
    const lines = run.stdout.split("\n")
    const at = lines.findIndex((line) => line.startsWith("    - Marco is a backend developer"))
    assert.deepStrictEqual(lines.slice(at + 1, at + 5), [
      `      chat #1  user: "Hi, I'm Marco. I'm a backend developer."`,
      "    - Marco lives in Turin  [source: chat #3, chat #11; added: " + lines[at + 2]!.split("added: ")[1],
      `      chat #3  user: "I live in Turin. My key is [secret]"`,
      `      chat #11  user: "By the way, I prefer short answers."`
    ])
    assert.notInclude(run.stdout, "sk-proj-")
    const json = JSON.parse(
      mneme(["show", "--memory", memory, "--sources", "--transcripts", transcripts, "--json"]).stdout
    )
    const [first, second] = json.scopes[0].files[0].entries
    assert.deepStrictEqual(first.sources, [
      {
        anchor: "chat #1",
        transcript: "chat.jsonl",
        line: { seq: 1, who: "user", text: "Hi, I'm Marco. I'm a backend developer." },
        problem: null
      }
    ])
    assert.deepStrictEqual(
      second.sources.map((cited: { line: { seq: number; text: string } }) => [cited.line.seq, cited.line.text]),
      [
        [3, "I live in Turin. My key is [secret]"],
        [11, "By the way, I prefer short answers."]
      ]
    )
  })

  it("says why a line is not shown: no such transcript, no such line, not a transcript's line", () => {
    const { memory, transcripts } = setUp()
    mkdirSync(join(memory, "agents/default"), { recursive: true })
    writeFileSync(
      join(memory, "agents/default/MEMORY.md"),
      "# Memory\n\n- Marco has a cat [source: other #2]\n- Marco has a dog [source: chat #40]\n" +
        "- Marco has a fish [source: told by hand]\n- Marco has no source\n\n## Index\n"
    )
    const run = mneme(["show", "--memory", memory, "--sources", "--transcripts", transcripts])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(
      run.stdout,
      "    - Marco has a cat  [source: other #2]\n      other #2  (no transcript other.jsonl in the transcripts folder)\n"
    )
    assert.include(
      run.stdout,
      "    - Marco has a dog  [source: chat #40]\n      chat #40  (chat.jsonl has no line #40)\n"
    )
    assert.include(
      run.stdout,
      "    - Marco has a fish  [source: told by hand]\n      told by hand  (not a line of a transcript (<name> #<seq>))\n"
    )
    assert.include(run.stdout, "    - Marco has no source\n\nTeam memory")
  })

  it("reads the MCP server's conversation logs in the memory folder as such a folder", () => {
    const { memory } = setUp()
    const logs = join(memory, "conversations")
    mkdirSync(logs, { recursive: true })
    writeFileSync(
      join(logs, "chat-9.jsonl"),
      [
        { seq: 1, who: "user", text: "Hello", agent: "default" },
        { seq: 2, who: "user", text: "I moved to Lisbon", agent: "default" }
      ]
        .map((line) => JSON.stringify(line))
        .join("\n") + "\n"
    )
    mkdirSync(join(memory, "agents/default"), { recursive: true })
    writeFileSync(
      join(memory, "agents/default/MEMORY.md"),
      "# Memory\n\n- The user moved to Lisbon [source: chat-9 #2]\n\n## Index\n"
    )
    const run = mneme(["show", "--memory", memory, "--sources", "--transcripts", logs])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(
      run.stdout,
      `    - The user moved to Lisbon  [source: chat-9 #2]\n      chat-9 #2  user: "I moved to Lisbon"\n`
    )
  })

  it("needs --transcripts DIR: without it, a usage error that says where the lines are read from", () => {
    const { memory } = setUp()
    const run = mneme(["show", "--memory", memory, "--sources"])
    assertFailure(run, 2, "--sources needs --transcripts DIR", "DIR/chat.jsonl")
    const help = mneme(["show", "--help"])
    assert.include(help.stdout, "--sources")
    assert.include(help.stdout, "--transcripts DIR")
    assert.include(help.stdout, "file's base name")
  })
})

describe("mneme panel: an entry links to its line", () => {
  it("links each line an entry's source cites to a page that shows it, marked, among the lines around it", async () => {
    const { memory, transcripts, transcript, model } = setUp(
      { op: "add", text: "Marco is a backend developer", from: 1 },
      { op: "add", text: "Marco lives in Turin", from: [3, 11] }
    )
    assert.strictEqual(mneme(["review", transcript, "--model", model, "--memory", memory]).code, 0)
    const served = await startPanel(["--memory", memory, "--transcripts", transcripts])
    const agent = await send(served.port, "/agent?id=default", { headers: cookie(served) })
    assert.strictEqual(agent.status, 200)
    const link = (seq: number) => `/transcript?name=chat&amp;line=${seq}&amp;agent=default#line-${seq}`
    assert.include(agent.body, `[source: <a class="source" href="${link(1)}">chat #1</a>; added: `)
    assert.include(
      agent.body,
      `[source: <a class="source" href="${link(3)}">chat #3</a>, <a class="source" href="${link(11)}">chat #11</a>; added: `
    )
    const page = await send(served.port, "/transcript?name=chat&line=3&agent=default", { headers: cookie(served) })
    assert.strictEqual(page.status, 200)
    const items = [...page.body.matchAll(/<li id="line-(\d+)"( class="cited")?>/g)].map((m) => [
      Number(m[1]),
      m[2] !== undefined
    ])
    assert.deepStrictEqual(
      items,
      chat.map((line) => [line.seq, line.seq === 3])
    )
    assert.include(page.body, "I live in Turin. My key is [secret]")
    assert.notInclude(page.body, "sk-proj-")
    assert.include(page.body, `<a href="/agent?id=default">Back to the agent</a>`)
  })

  it("answers 404 for a line the folder does not hold, and shows no file outside it", async () => {
    const { memory, transcripts } = setUp()
    writeFileSync(join(transcripts, "..", "secret.jsonl"), JSON.stringify({ seq: 1, who: "user", text: "outside" }))
    const served = await startPanel(["--memory", memory, "--transcripts", transcripts])
    for (const [path, said] of [
      ["/transcript?name=chat&line=40", "chat.jsonl has no line #40."],
      ["/transcript?name=..%2Fsecret&line=1", "no transcript ../secret.jsonl in the transcripts folder."],
      ["/transcript?name=chat&line=x", "This address names no line of a transcript."]
    ] as const) {
      const response = await send(served.port, path, { headers: cookie(served) })
      assert.strictEqual(response.status, 404, path)
      assert.include(response.body, said.replace("'", "&#39;"))
      assert.notInclude(response.body, "outside")
    }
    assert.strictEqual((await send(served.port, "/transcript?name=chat&line=1")).status, 401)
  })

  it("without --transcripts, links no entry and says the panel has no transcript to show", async () => {
    const { memory, transcript, model } = setUp({ op: "add", text: "Marco is a backend developer", from: 1 })
    assert.strictEqual(mneme(["review", transcript, "--model", model, "--memory", memory]).code, 0)
    const served = await startPanel(["--memory", memory])
    const agent = await send(served.port, "/agent?id=default", { headers: cookie(served) })
    assert.include(agent.body, "[source: chat #1; added: ")
    assert.notInclude(agent.body, `class="source"`)
    const page = await send(served.port, "/transcript?name=chat&line=1", { headers: cookie(served) })
    assert.strictEqual(page.status, 404)
    assert.include(page.body, "The panel was started without --transcripts DIR")
  })
})
