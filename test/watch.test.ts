/**
 * `mneme watch DIR` as a person runs it (issue 26): the built command as a child process over a folder whose files
 * grow, appear, are rotated and vanish while it runs, with a stub OpenAI-compatible server as the model (real HTTP).
 * Each file is reviewed from its cursor once it is quiet, one review at a time; a row not written whole waits; a file
 * that vanishes before its review costs nothing; a rotated file neither loses lines nor sends old ones again. The
 * failure policy and the cost guard are a host's; SIGINT stops it cleanly, finishing the review in flight, or on a
 * second SIGINT abandoning it without losing a line.
 */
import { afterEach, assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { bin, environment, mneme, repo, scratch } from "./cliKit.ts"

/** One request the model was sent: its system and request text. */
interface Asked {
  readonly system: string
  readonly request: string
}

/** What the stub answers a call with: a text (the model's answer), or an HTTP status with no answer. */
type Answer = string | { readonly status: number }

const servers: Array<Server> = []
const children: Array<ChildProcess> = []
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL")
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

/**
 * An OpenAI-compatible stub on 127.0.0.1: each chat completion is answered by `answer(call)` (by default an answer
 * adding the entry `Fact <call>`), once `gate` (if set when the request comes) resolves.
 */
const modelStub = async () => {
  const asked: Array<Asked> = []
  const stub = {
    asked,
    url: "",
    answer: (call: number): Answer => JSON.stringify({ changes: [{ op: "add", text: `Fact ${call}` }] }),
    gate: undefined as Promise<void> | undefined
  }
  const server = createServer((request, response) => {
    let body = ""
    request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk))
    request.on("end", async () => {
      const messages = JSON.parse(body).messages as Array<{ content: string }>
      asked.push({ system: messages[0]!.content, request: messages[1]!.content })
      const call = asked.length
      await stub.gate
      const answer = stub.answer(call)
      if (typeof answer !== "string") return response.writeHead(answer.status).end("{}")
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ choices: [{ message: { role: "assistant", content: answer }, finish_reason: "stop" }] }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  servers.push(server)
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  return stub
}

/** The new lines a request shows the model. */
const newLines = (asked: Asked) => {
  const from = asked.request.indexOf("## New lines (oldest first)")
  return asked.request.slice(from, asked.request.indexOf("\n\n", from))
}

/** An event `mneme watch --json` printed. */
type Event = Record<string, unknown> & { readonly event: string }

/** `mneme watch` running as a child process, its events read as they come. */
const startWatch = (dir: string, memory: string, url: string, ...more: ReadonlyArray<string>) => {
  const args = [bin, "watch", dir, "--memory", memory, "--model", url, "--json", "--delay", "0.3", "--interval", "0.1"]
  const child = spawn(process.execPath, [...args, ...more], {
    cwd: repo,
    env: environment({ MNEME_MODEL: "stub", MNEME_TIMEOUT: "30" })
  })
  children.push(child)
  const events: Array<Event> = []
  let stderr = ""
  let rest = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (rest + chunk).split("\n")
    rest = lines.pop() ?? ""
    for (const line of lines) events.push(JSON.parse(line))
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  /** The first event from `from` on that `matches`, waited for. */
  const waitFor = async (what: string, matches: (event: Event) => boolean, from = 0): Promise<Event> => {
    for (let waited = 0; waited < 30_000; waited += 25) {
      const found = events.slice(from).find(matches)
      if (found !== undefined) return found
      if (child.exitCode !== null) break
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    return assert.fail(`no ${what}; events:\n${events.map((e) => JSON.stringify(e)).join("\n")}\nstderr:\n${stderr}`)
  }
  return { child, events, exited, waitFor, stderr: () => stderr }
}

/** A review event of `file` that `matches`. */
const reviewOf =
  (file: string, matches: (event: Event) => boolean = () => true) =>
  (event: Event) =>
    event.event === "review" && event.file === file && matches(event)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const chat = (role: string, content: string) => JSON.stringify({ role, content }) + "\n"

/** The cursors of the memory's review state, by conversation id. */
const cursorsIn = (memory: string): Record<string, number> =>
  Object.fromEntries(
    Object.entries(
      JSON.parse(readFileSync(join(memory, "reviewed.json"), "utf8")).cursors as Record<string, number>
    ).map(([key, cursor]) => [key.slice("chat:".length), cursor])
  )

describe("mneme watch", () => {
  it("follows a folder whose files grow, appear, are rotated and vanish, and stops cleanly on SIGINT", async () => {
    const { dir, memory } = scratch()
    const folder = join(dir, "transcripts")
    mkdirSync(join(folder, "project"), { recursive: true })
    const a = join(folder, "a.jsonl")
    writeFileSync(a, chat("user", "I keep bees in my garden.") + chat("assistant", "How lovely."))
    writeFileSync(join(folder, "project", "b.txt"), "User: I play the cello.\nAssistant: Lovely.\n")
    writeFileSync(join(folder, ".hidden.jsonl"), chat("user", "never seen"))
    // a.jsonl was reviewed before, by hand: watch goes on from its cursor.
    const answers = join(dir, "answers.jsonl")
    writeFileSync(answers, JSON.stringify({ answer: JSON.stringify({ changes: [{ op: "add", text: "Keeps bees" }] }) }))
    const byHand = mneme(["review", a, "--model", `replay:${answers}`, "--memory", memory])
    assert.strictEqual(byHand.code, 0, byHand.stderr)

    const stub = await modelStub()
    const watch = startWatch(folder, memory, stub.url)
    const watching = await watch.waitFor("start", (event) => event.event === "watching")
    assert.strictEqual(watching.files, 2)
    const b = await watch.waitFor("b.txt reviewed", reviewOf("project/b.txt"))
    assert.include(b, { outcome: "Reviewed", cursor: 2, lastLine: 2, modelCalls: 1 })
    assert.include(newLines(stub.asked[0]!), "I play the cello.")
    const quiet = await watch.waitFor("a.jsonl looked at", reviewOf("a.jsonl"))
    assert.include(quiet, { outcome: "NothingNew", cursor: 2, modelCalls: 0 })
    assert.strictEqual(stub.asked.length, 1)

    // a.jsonl grows: only its new line is new to the model.
    appendFileSync(a, chat("user", "We moved to Oslo last month."))
    const grown = await watch.waitFor(
      "a.jsonl grown",
      reviewOf("a.jsonl", (e) => e.outcome === "Reviewed")
    )
    assert.include(grown, { cursor: 3, lastLine: 3 })
    assert.include(newLines(stub.asked[1]!), "We moved to Oslo last month.")
    assert.notInclude(newLines(stub.asked[1]!), "I keep bees")

    // A file appears: reviewed from its first line.
    copyFileSync(join(repo, "test/fixtures/transcripts/claude-code.jsonl"), join(folder, "project", "session.jsonl"))
    const session = await watch.waitFor("session.jsonl reviewed", reviewOf("project/session.jsonl"))
    assert.include(session, { outcome: "Reviewed", cursor: 11, lastLine: 11 })
    assert.include(newLines(stub.asked[2]!), "never touch the prod Airflow variables")
    assert.notInclude(stub.asked[2]!.request, "tabs over spaces")

    // A row written in two parts waits for its second, and fails nothing meanwhile.
    const row = chat("user", "My daughter starts school in August.")
    let from = watch.events.length
    appendFileSync(a, row.slice(0, 20))
    await sleep(800)
    appendFileSync(a, row.slice(20))
    const whole = await watch.waitFor(
      "the whole row",
      reviewOf("a.jsonl", (e) => e.outcome === "Reviewed"),
      from
    )
    assert.include(whole, { cursor: 4, lastLine: 4 })
    assert.include(newLines(stub.asked.at(-1)!), "My daughter starts school in August.")

    // A file that vanishes before its review is never reviewed.
    const asked = stub.asked.length
    writeFileSync(join(folder, "gone.txt"), "User: I collect stamps.\n")
    await sleep(120)
    rmSync(join(folder, "gone.txt"))

    // Rotated: a.jsonl moves to a.jsonl.1 (its cursor with it), and a new a.jsonl starts a new conversation.
    from = watch.events.length
    renameSync(a, `${a}.1`)
    writeFileSync(a, chat("user", "Fresh log: I now work from Bergen."))
    const fresh = await watch.waitFor(
      "the new a.jsonl",
      reviewOf("a.jsonl", (e) => e.outcome === "Reviewed"),
      from
    )
    assert.include(fresh, { cursor: 1, lastLine: 1 })
    const rotated = await watch.waitFor("a.jsonl.1 looked at", reviewOf("a.jsonl.1"), from)
    assert.include(rotated, { outcome: "NothingNew", cursor: 4 })
    assert.strictEqual(stub.asked.length, asked + 1, "one call: the new a.jsonl; none for gone.txt or a.jsonl.1")
    assert.include(newLines(stub.asked.at(-1)!), "Fresh log: I now work from Bergen.")
    assert.notInclude(stub.asked.at(-1)!.request, "Oslo")

    // A reviewed file vanishes: nothing to say, nothing fails.
    rmSync(join(folder, "project", "session.jsonl"))
    await sleep(500)

    watch.child.kill("SIGINT")
    assert.strictEqual(await watch.exited, 0, watch.stderr())
    const last = watch.events.slice(-2)
    assert.deepStrictEqual(last, [
      { event: "stopping", reviewing: null, grace: 30 },
      { event: "stopped", abandoned: null }
    ])
    const said = JSON.stringify(watch.events)
    for (const never of ["gone.txt", "hidden", "unreadable", "Failed", "memory/"]) assert.notInclude(said, never)
    const conversation = (file: string) =>
      watch.events.find((event) => event.event === "review" && event.file === file)!.conversation as string
    assert.deepStrictEqual(cursorsIn(memory), {
      [conversation("a.jsonl.1")]: 4,
      [conversation("project/b.txt")]: 2,
      [conversation("project/session.jsonl")]: 11,
      [conversation("a.jsonl")]: 1
    })
    const kept = readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8")
    for (let call = 1; call <= stub.asked.length; call++) assert.include(kept, `- Fact ${call} [source: `)
  })

  it("on SIGINT finishes the review in flight; on a second, abandons it, and the next run reviews its lines", async () => {
    const { dir, memory } = scratch()
    const folder = join(dir, "transcripts")
    mkdirSync(folder)
    const file = join(folder, "talk.txt")
    writeFileSync(file, "User: I drink oolong tea.\n")
    const stub = await modelStub()
    let release = () => {}
    stub.gate = new Promise((resolve) => (release = resolve))

    const first = startWatch(folder, memory, stub.url)
    while (stub.asked.length === 0) await sleep(25)
    first.child.kill("SIGINT")
    assert.include(await first.waitFor("stopping", (event) => event.event === "stopping"), { reviewing: "talk.txt" })
    release()
    assert.include(await first.waitFor("the review", reviewOf("talk.txt")), { outcome: "Reviewed", cursor: 1 })
    assert.strictEqual(await first.exited, 0, first.stderr())
    assert.deepStrictEqual(first.events.at(-1), { event: "stopped", abandoned: null })
    assert.deepStrictEqual(Object.values(cursorsIn(memory)), [1])

    // A review held up in the model: a second SIGINT abandons it, and its cursor stays.
    appendFileSync(file, "User: And I bake sourdough on Sundays.\n")
    stub.gate = new Promise(() => {})
    const second = startWatch(folder, memory, stub.url)
    while (stub.asked.length === 1) await sleep(25)
    second.child.kill("SIGINT")
    await second.waitFor("stopping", (event) => event.event === "stopping")
    second.child.kill("SIGINT")
    assert.strictEqual(await second.exited, 0, second.stderr())
    assert.deepStrictEqual(second.events.at(-1), { event: "stopped", abandoned: "talk.txt" })
    assert.isUndefined(second.events.find(reviewOf("talk.txt")))
    assert.deepStrictEqual(Object.values(cursorsIn(memory)), [1])

    // The next run reviews the lines the abandoned review had.
    stub.gate = undefined
    const third = startWatch(folder, memory, stub.url)
    assert.include(await third.waitFor("the review", reviewOf("talk.txt")), { outcome: "Reviewed", cursor: 2 })
    assert.include(newLines(stub.asked.at(-1)!), "And I bake sourdough on Sundays.")
    third.child.kill("SIGTERM")
    assert.strictEqual(await third.exited, 0, third.stderr())
    assert.deepStrictEqual(Object.values(cursorsIn(memory)), [2])
  })

  it("keeps a host's failure policy and cost guard: two failures, then no call until the user says more", async () => {
    const { dir, memory } = scratch()
    const folder = join(dir, "transcripts")
    mkdirSync(folder)
    const talk = join(folder, "talk.txt")
    writeFileSync(talk, "User: I am learning Portuguese.\n")
    // A backlog of about two calls' lines (each user line is cut to 3,000 characters, 16,000 a call).
    const long = join(folder, "long.txt")
    writeFileSync(long, Array.from({ length: 8 }, (_, i) => `User: ${i} ${"words ".repeat(600)}\n`).join(""))
    const stub = await modelStub()
    stub.answer = (call) => (call <= 2 ? "this is not JSON" : JSON.stringify({ changes: [] }))
    const watch = startWatch(folder, memory, stub.url, "--max-calls", "1")

    const held = await watch.waitFor("long.txt held", (event) => event.event === "held")
    assert.strictEqual(held.file, "long.txt")
    assert.include(held.reason as string, "would take about 2 model calls, more than --max-calls 1")
    const failed = await watch.waitFor(
      "a failure",
      reviewOf("talk.txt", (e) => e.outcome === "Failed")
    )
    assert.include(failed.reason as string, "this is not JSON")
    // Lines of no user words: the failure policy's second try, then no more.
    appendFileSync(talk, "Assistant: Boa sorte!\n")
    await watch.waitFor(
      "a second failure",
      reviewOf("talk.txt", (e) => e.outcome === "Failed" && e.lastLine === 2)
    )
    appendFileSync(talk, "Assistant: Até logo.\n")
    const stopped = await watch.waitFor(
      "no third call",
      reviewOf("talk.txt", (e) => e.outcome === "Stopped")
    )
    assert.include(stopped, { modelCalls: 0, cursor: 0 })
    assert.strictEqual(stub.asked.length, 2)
    // The user says more: the count starts again, and the next try sends the old lines and the new.
    appendFileSync(talk, "User: My teacher is from Recife.\n")
    const reviewed = await watch.waitFor(
      "a success",
      reviewOf("talk.txt", (e) => e.outcome === "Reviewed")
    )
    assert.include(reviewed, { cursor: 4, modelCalls: 1 })
    assert.include(newLines(stub.asked[2]!), "I am learning Portuguese.")
    assert.include(newLines(stub.asked[2]!), "My teacher is from Recife.")
    assert.strictEqual(stub.asked.length, 3, "long.txt made no call")
    watch.child.kill("SIGINT")
    assert.strictEqual(await watch.exited, 0, watch.stderr())
  })

  it("says each review in a line for people, with the entries it changed", async () => {
    const { dir, memory } = scratch()
    const folder = join(dir, "transcripts")
    mkdirSync(folder)
    writeFileSync(join(folder, "talk.txt"), "User: I am vegetarian.\n")
    const stub = await modelStub()
    const args = [bin, "watch", folder, "--memory", memory, "--model", stub.url, "--delay", "0.2", "--interval", "0.1"]
    const child = spawn(process.execPath, args, { cwd: repo, env: environment({ MNEME_MODEL: "stub" }) })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
    for (let waited = 0; !stdout.includes("Fact 1") && waited < 30_000; waited += 25) await sleep(25)
    child.kill("SIGINT")
    assert.strictEqual(await exited, 0, stderr)
    assert.strictEqual(
      stdout,
      "talk.txt: reviewed to #1 of #1 (1 model call): 1 added, 0 edited, 0 removed, 0 left out\n  + own: Fact 1\n"
    )
    // The signal may come while the review that printed its line is still ending: then the stop waits for it.
    const [watching, stopping, stopped, ...more] = stderr.trimEnd().split("\n")
    assert.strictEqual(watching, `mneme watch: following 1 file in ${folder} into ${memory} (Ctrl-C stops)`)
    assert.match(stopping ?? "", /^mneme watch: stopping( once the review of talk\.txt finishes .*)?$/)
    assert.strictEqual(stopped, "mneme watch: stopped")
    assert.deepStrictEqual(more, [])
  })

  it("refuses a folder that is not one, and a missing model, before it starts", () => {
    const { dir } = scratch()
    writeFileSync(join(dir, "file.txt"), "User: hi\n")
    const notFolder = mneme(["watch", join(dir, "file.txt"), "--model", "http://127.0.0.1:9/v1"], { MNEME_MODEL: "m" })
    assert.strictEqual(notFolder.code, 1)
    assert.include(notFolder.stderr, "file.txt is not a folder of transcripts")
    const missing = mneme(["watch", join(dir, "none"), "--model", "http://127.0.0.1:9/v1"], { MNEME_MODEL: "m" })
    assert.strictEqual(missing.code, 1)
    assert.include(missing.stderr, "none does not exist")
    const noModel = mneme(["watch", dir])
    assert.strictEqual(noModel.code, 2)
    assert.include(noModel.stderr, "no model configured")
  })
})
