/**
 * `mneme review` as a person uses it (issue 9): a transcript piped on standard input, the cost guard of `--max-calls`
 * and the memory a long transcript takes, `--show-prompt`, a summary that is the run's net effect, and messages that
 * name what the person did. The built command runs as a child process, each in a folder of its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "@mneme/core"
import { FileTranscript } from "@mneme/node"
import { Effect, Result, Stream } from "effect"
import * as fc from "fast-check"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  assertFailure,
  files,
  mneme,
  mnemeAsync,
  mnemeIn,
  ownMemory,
  replay,
  review,
  type Run,
  scratch,
  stubServer,
  transcript
} from "./cliKit.ts"

/**
 * A transcript of `count` user lines of 4,000 characters (seq 1…count): a review cuts each to 3,000 characters, so five
 * fill its budget of 16,000 and every five lines are one model call.
 */
const longChat = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      seq: i + 1,
      who: "user",
      text: `Line ${i + 1}: ${"the user talks about tea and long walks ".repeat(100)}`.slice(0, 4_000)
    })
  ).join("\n") + "\n"

/** About `bytes` of transcript: lines of 1,000 to 1,500 characters, a user and an agent in turn. */
const bigChat = (bytes: number) => {
  const rows: Array<string> = []
  let size = 0
  for (let seq = 1; size < bytes; seq++) {
    const text = `Line ${seq}: ${"the user works on billing pipelines with python and sql ".repeat(20 + (seq % 10))}`
    const row = JSON.stringify({ seq, who: seq % 2 === 1 ? "user" : "agent", text }) + "\n"
    rows.push(row)
    size += row.length
  }
  return rows.join("")
}

/** A file of recorded answers, one answer's changes a line. */
const answersFile = (dir: string, name: string, ...answers: ReadonlyArray<ReadonlyArray<object>>) => {
  const file = join(dir, name)
  writeFileSync(file, answers.map((changes) => JSON.stringify({ answer: JSON.stringify({ changes }) })).join("\n"))
  return `replay:${file}`
}

/** A stub server whose every answer is `{"changes": []}`. */
const nothingToKeep = () =>
  stubServer(() => ({
    status: 200,
    body: { choices: [{ message: { role: "assistant", content: '{"changes": []}' }, finish_reason: "stop" }] }
  }))

const lineOf = (stderr: string, start: string) => stderr.split("\n").find((line) => line.startsWith(start))

describe("mneme review -: the transcript on standard input", () => {
  it("reads the piped transcript as the conversation --conversation names, and goes on from its cursor next time", () => {
    const { dir, memory } = scratch()
    const args = ["review", "-", "--conversation", "chat-1", "--model", replay, "--memory", "memory"]
    const lines = readFileSync(transcript, "utf8")
    const run = mnemeIn(dir, args, { input: lines })
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, "Reviewed chat-1: 2 passes (2 model calls), cursor at #18 of #18")
    assert.include(
      ownMemory(memory),
      "- Dana drinks oolong tea, never coffee (switched from green tea) [source: chat-1 #"
    )
    assert.deepStrictEqual(JSON.parse(readFileSync(join(memory, "reviewed.json"), "utf8")).cursors, {
      "chat:chat-1": 18
    })

    const again = mnemeIn(dir, args, { input: lines })
    assert.strictEqual(again.code, 0, again.stderr)
    assert.strictEqual(again.stderr, "pass 1: nothing new after #18 of #18\n")
    assert.strictEqual(again.stdout, "Reviewed chat-1: nothing new to review, cursor at #18 of #18\n")
  })

  it("without --conversation it stops before reading (exit 2); a bad line is named by its number (exit 1)", () => {
    const { dir, memory } = scratch()
    const lines = readFileSync(transcript, "utf8")
    const bare = mnemeIn(dir, ["review", "-", "--model", replay, "--memory", "memory"], { input: lines })
    assertFailure(bare, 2, "mneme: a transcript on standard input (-) needs --conversation ID")
    assert.strictEqual(bare.stdout, "")
    assert.isFalse(existsSync(memory))

    const bad = '{"seq":1,"who":"user","text":"I like tea"}\n\n{"seq":2,"who":"bot","text":"ok"}\n'
    const run = mnemeIn(dir, ["review", "-", "--conversation", "c", "--model", replay, "--memory", "memory"], {
      input: bad
    })
    assertFailure(run, 1, 'standard input line 3: "who": Expected "user" | "agent" | "other"')
    assert.isFalse(existsSync(memory))
  })
})

describe("a transcript read as a stream, a line at a time", () => {
  const row = fc.oneof(
    fc.constantFrom("", "  ", '{"seq":1,"who":"bot","text":"x"}', "not json"),
    fc
      .record({ who: fc.constantFrom("user", "agent"), text: fc.string({ unit: "grapheme", maxLength: 12 }) })
      .map(({ who, text }) => ({ who, text }))
  )
  const ends = fc.constantFrom("\n", "\r\n", "\r")

  /**
   * A transcript of `rows` (objects get a growing seq), with the line ends given, and its bytes cut at `cuts`, or
   * between every two bytes.
   */
  const source = fc
    .tuple(
      fc.array(fc.tuple(row, ends), { maxLength: 12 }),
      fc.oneof(fc.array(fc.nat(), { maxLength: 6 }), fc.constant("every byte" as const))
    )
    .map(([rows, cuts]) => {
      const text = rows
        .map(([r, end], i) => (typeof r === "string" ? r : JSON.stringify({ seq: i + 1, ...r })) + end)
        .join("")
      const bytes = new TextEncoder().encode(text)
      const at =
        cuts === "every byte"
          ? Array.from({ length: bytes.length }, (_, i) => i + 1)
          : [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
      const chunks = [0, ...at].map((from, i) => bytes.slice(from, [...at, bytes.length][i]))
      return { text, chunks }
    })

  it.effect(
    "reads what the whole text reads, cut anywhere (in a line, a CRLF, a character), failing at the same line",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(source, async ({ text, chunks }) => {
            const whole = FileTranscript.parse("chat.jsonl", text)
            const streamed = await Effect.runPromise(
              Effect.result(FileTranscript.readStream("chat.jsonl", Stream.fromIterable(chunks)))
            )
            assert.deepStrictEqual(
              Result.isSuccess(streamed) ? streamed.success : streamed.failure.message,
              Result.isSuccess(whole) ? whole.success : whole.failure.message
            )
          }),
          { numRuns: 500 }
        )
      )
  )

  it.effect("refuses bytes that are not UTF-8 text, and NUL bytes", () =>
    Effect.gen(function* () {
      const read = (bytes: ReadonlyArray<number>) =>
        Effect.flip(FileTranscript.readStream("standard input", Stream.make(new Uint8Array(bytes))))
      assert.include((yield* read([0x7b, 0xff, 0xfe, 0x0a])).message, "standard input is not a text file: ")
      assert.include((yield* read([0x7b, 0x00, 0x7d])).message, "it holds NUL bytes")
    })
  )
})

describe("the cost guard: --max-calls", () => {
  it("stops before any model call when the review would make more, saying how many and how to allow them", async () => {
    const { memory } = scratch()
    const server = await nothingToKeep()
    const at = ["review", transcript, "--model", server.url, "--memory", memory]
    const env = { MNEME_MODEL: "stub-model" }
    const run = await mnemeAsync([...at, "--max-calls", "1"], env)
    assertFailure(
      run,
      1,
      "mneme: this review would make about 2 model calls (18,030 characters of lines not reviewed yet, at most " +
        "16,000 a call), more than --max-calls 1 allows: nothing was sent. To make them, pass --max-calls 2 " +
        "(or --max-calls 0 for no limit)"
    )
    assert.strictEqual(run.stdout, "")
    assert.strictEqual(server.received.length, 0)
    assert.isFalse(existsSync(memory))

    const allowed = await mnemeAsync([...at, "--max-calls", "2", "--json"], env)
    assert.strictEqual(allowed.code, 0, allowed.stderr)
    assert.strictEqual(JSON.parse(allowed.stdout).modelCalls, 2)
    assert.strictEqual(server.received.length, 2)
    assertFailure(mneme([...at, "--max-calls", "-1"]), 2, "--max-calls must be 0 (no limit) or more")
  })

  it("estimates the calls of a long transcript as the review makes them: refused at 50, all made with 0", async () => {
    const { dir, memory } = scratch()
    const chat = join(dir, "long.jsonl")
    writeFileSync(chat, longChat(300))
    const server = await nothingToKeep()
    const at = ["review", chat, "--model", server.url, "--memory", memory]
    const env = { MNEME_MODEL: "stub-model" }
    const refused = await mnemeAsync(at, env)
    assertFailure(refused, 1, "would make about 60 model calls", "more than --max-calls 50 allows")
    assert.strictEqual(server.received.length, 0)

    const run = await mnemeAsync([...at, "--max-calls", "0", "--json"], env)
    assert.strictEqual(run.code, 0, run.stderr)
    const summary = JSON.parse(run.stdout)
    assert.strictEqual(summary.modelCalls, 60)
    assert.strictEqual(summary.cursor, 300)
    assert.strictEqual(server.received.length, 60)
  })

  it("checks again between reviews: extra passes past --max-calls stop the run where it is, losing nothing", () => {
    const { dir, memory } = scratch()
    const chat = join(dir, "chat.jsonl")
    writeFileSync(chat, longChat(10))
    // The first answer is at its cap of 8 changes and changes memory, so the review asks again over the same lines.
    const eight = Array.from({ length: 8 }, (_, i) => ({ op: "add", text: `The user likes fruit number ${i + 1}` }))
    const first = answersFile(dir, "first.jsonl", eight, [])
    const at = ["review", chat, "--memory", memory, "--max-calls", "2"]
    const run = mneme([...at, "--model", first])
    assert.strictEqual(run.code, 1, run.stderr)
    assert.include(run.stdout, "Reviewed chat: 2 passes (2 model calls), cursor at #5 of #10")
    assert.include(run.stdout, "Added (8)")
    assert.deepStrictEqual(run.stderr.trimEnd().split("\n"), [
      "pass 1: read to #5 of #10 (2 model calls): 8 added, 0 edited, 0 removed, 0 left out",
      "mneme: stopped at #5 of #10 after 2 model calls: answers at their cap took extra passes, and the rest would " +
        "take about 1 more, past --max-calls 2. Run the review again to go on from #5, or pass a higher --max-calls " +
        "(0 for no limit)"
    ])
    assert.include(ownMemory(memory), "- The user likes fruit number 8 [")

    const rest = mneme([...at, "--model", answersFile(dir, "rest.jsonl", [])])
    assert.strictEqual(rest.code, 0, rest.stderr)
    assert.include(rest.stdout, "Reviewed chat: 1 pass (1 model call), cursor at #10 of #10")
    assert.include(ownMemory(memory), "- The user likes fruit number 8 [")
  })

  it("keeps memory bounded on a 50 MB transcript: it grows by about the lines' size, not several copies", () => {
    const { dir, memory } = scratch()
    const big = join(dir, "big.jsonl")
    writeFileSync(big, bigChat(50 * 1024 * 1024))
    // The peak resident memory of the child, from a module it loads first.
    const probe = join(dir, "rss.cjs")
    writeFileSync(
      probe,
      'process.on("exit", () => require("node:fs").writeFileSync(process.env.RSS_OUT, String(process.resourceUsage().maxRSS)))'
    )
    const peak = (file: string, name: string) => {
      const out = join(dir, name)
      const run = mneme(["review", file, "--model", replay, "--memory", memory, "--max-calls", "1"], {
        NODE_OPTIONS: `--require=${probe}`,
        RSS_OUT: out
      })
      assert.strictEqual(run.code, 1, run.stderr)
      assert.include(run.stderr, "more than --max-calls 1 allows: nothing was sent")
      return Number(readFileSync(out, "utf8")) * 1024
    }
    const small = peak(transcript, "small")
    const large = peak(big, "large")
    // Read whole, the file was held three times over (its bytes, its text, its lines): 150 MB more for 50 MB.
    assert.isBelow(large - small, 1.5 * 50 * 1024 * 1024, `${small} → ${large}`)
    assert.isFalse(existsSync(memory))
  })
})

describe("--show-prompt", () => {
  it("prints the system and request text of each call to stderr, as sent, secrets masked", async () => {
    const { memory } = scratch()
    const server = await nothingToKeep()
    const run = await mnemeAsync(
      ["review", transcript, "--model", server.url, "--memory", memory, "--show-prompt", "--json"],
      { MNEME_MODEL: "stub-model" }
    )
    assert.strictEqual(run.code, 0, run.stderr)
    assert.strictEqual(JSON.parse(run.stdout).modelCalls, 2)
    assert.strictEqual(server.received.length, 2)
    const shown = [...run.stderr.matchAll(/^--- model call (\d+): (system|request) text \([\d,]+ characters\) ---$/gm)]
    assert.deepStrictEqual(
      shown.map((match) => `${match[1]} ${match[2]}`),
      ["1 system", "1 request", "2 system", "2 request"]
    )
    server.received.forEach((request, i) => {
      const [system, user] = JSON.parse(request.body).messages as Array<{ role: string; content: string }>
      assert.strictEqual(system!.content, Prompt.system)
      const block = (name: string, next: string) =>
        run.stderr
          .split(`--- model call ${i + 1}: ${name} text (`)[1]!
          .split("\n")
          .slice(1)
          .join("\n")
          .split(next)[0]
      assert.strictEqual(block("system", `\n--- model call ${i + 1}: request`), system!.content)
      assert.strictEqual(block("request", `\n--- end of model call ${i + 1} ---`), user!.content)
    })
    // The staging password the user pasted is masked in what is printed, as in what is sent.
    assert.notInclude(run.stderr, "hunter2")
    assert.include(run.stderr, "[secret]")
    assert.include(run.stderr, "pass 2: read to #18 of #18 (1 model call)")
  })

  it("prints nothing of the kind without it", () => {
    const { memory } = scratch()
    const run = review(memory)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.notInclude(run.stderr, "--- model call")
  })
})

describe("the summary is the run's net effect", () => {
  it("an entry added then edited is one added entry with its final text; added then removed is in neither", () => {
    const { memory } = scratch()
    const run = review(memory)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(
      run.stdout,
      "Added (3)\n" +
        "  +  own  Dana Whitfield is a data engineer at Northwind Logistics who works mostly in Python and SQL on billing data\n" +
        "  +  own  Dana drinks oolong tea, never coffee (switched from green tea)\n" +
        "  +  own  Northwind Logistics is moving its billing pipeline to dbt Cloud; the planned Airflow migration was cancelled\n"
    )
    assert.notInclude(run.stdout, "Edited")
    assert.notInclude(run.stdout, "Removed")
    assert.notInclude(run.stdout, "Dana is migrating")
    // Each entry added is in memory as the summary says.
    for (const line of run.stdout.split("\n").filter((row) => row.startsWith("  +  own  "))) {
      assert.include(ownMemory(memory), `- ${line.slice("  +  own  ".length)} [`)
    }

    const json = JSON.parse(review(scratch().memory, "--json").stdout)
    assert.deepStrictEqual(
      json.added.map((entry: { text: string }) => entry.text),
      [
        "Dana Whitfield is a data engineer at Northwind Logistics who works mostly in Python and SQL on billing data",
        "Dana drinks oolong tea, never coffee (switched from green tea)",
        "Northwind Logistics is moving its billing pipeline to dbt Cloud; the planned Airflow migration was cancelled"
      ]
    )
    assert.deepStrictEqual([json.edited, json.removed], [[], []])
  })

  it("counts left out and secrets dropped the same way in the pass lines and the summary", () => {
    const { memory } = scratch()
    const run = review(memory)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(lineOf(run.stderr, "pass 1: ") ?? "", "1 left out, 1 secret dropped")
    assert.include(run.stdout, "\nLeft out (1)\n  !  Northwind's nightly billing DAG failed on 5 November")
    assert.include(
      run.stdout,
      "\nSecrets dropped (1)\n  !  not shown: memory never keeps keys, passwords or ID numbers\n"
    )
    assert.notInclude(run.stdout, "hunter2")
  })

  it("an entry edited twice is one edit from its first text to its last; edited then removed, removed as it was", () => {
    const { dir, memory } = scratch()
    const at = ["--memory", memory]
    assert.strictEqual(mneme(["remember", "The user likes green tea", ...at]).code, 0)
    assert.strictEqual(mneme(["remember", "The user has a cat", ...at]).code, 0)
    const chat = join(dir, "chat.jsonl")
    writeFileSync(chat, longChat(10))
    const model = answersFile(
      dir,
      "answers.jsonl",
      [
        { op: "edit", entry: 1, text: "The user likes oolong tea" },
        { op: "edit", entry: 2, text: "The user has two cats" },
        { op: "add", text: "The user walks every day" }
      ],
      [
        { op: "edit", entry: 1, text: "The user likes black tea" },
        { op: "remove", entry: 2 },
        { op: "remove", entry: 3 }
      ]
    )
    const run = mneme(["review", chat, "--model", model, ...at])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.deepStrictEqual(run.stderr.trimEnd().split("\n"), [
      "pass 1: read to #5 of #10 (1 model call): 1 added, 2 edited, 0 removed, 0 left out",
      "pass 2: read to #10 of #10 (1 model call): 0 added, 1 edited, 2 removed, 0 left out"
    ])
    assert.include(
      run.stdout,
      "\nEdited (1)\n  ~  own  The user likes green tea\n    → The user likes black tea\n\n" +
        "Removed (1)\n  -  own  The user has a cat\n"
    )
    assert.notInclude(run.stdout, "Added")
    assert.notInclude(run.stdout, "walks")
    const entries = ownMemory(memory)
      .split("\n")
      .filter((line) => line.startsWith("- "))
    assert.deepStrictEqual(
      entries.map((line) => line.replace(/ \[.*\]$/, "")),
      ["- The user likes black tea"]
    )
  })

  // Needs a duplicate add to reach the outcome's `skipped`: today `reviewApply.tally` drops a change the store made
  // no change for (`changed: false`, "nothing changed: … already holds …") without a word (see the report of issue 9).
  it("a duplicate the review skipped is listed as skipped, in the pass line and the summary", () => {
    const { dir, memory } = scratch()
    assert.strictEqual(mneme(["remember", "The user likes tea", "--memory", memory]).code, 0)
    const chat = join(dir, "chat.jsonl")
    writeFileSync(chat, JSON.stringify({ seq: 1, who: "user", text: "I like tea" }) + "\n")
    const model = answersFile(dir, "answers.jsonl", [{ op: "add", text: "The user likes  TEA" }])
    const before = files(memory)
    const run = mneme(["review", chat, "--model", model, "--memory", memory])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stderr, "0 added, 0 edited, 0 removed, 0 left out, 1 skipped")
    assert.include(
      run.stdout,
      '\nSkipped (1)\n  !  nothing changed: agents/default/MEMORY.md already holds "The user likes tea"'
    )
    assert.strictEqual(files(memory)["agents/default/MEMORY.md"], before["agents/default/MEMORY.md"])
  })
})

describe("messages name what the person did: --model, not MNEME_BASE_URL", () => {
  /** Memory with one entry, and what it holds. */
  const kept = () => {
    const { memory } = scratch()
    assert.strictEqual(mneme(["remember", "The user likes green tea", "--memory", memory]).code, 0)
    return { memory, before: ownMemory(memory) }
  }

  it("an unreachable server given by --model: check --model; failing again, how many reviews failed in a row", () => {
    const { memory, before } = kept()
    const at = ["review", transcript, "--model", "http://127.0.0.1:9/v1", "--memory", memory]
    const env = { MNEME_MODEL: "test" }
    const first = mneme(at, env)
    assertFailure(first, 1, "could not reach the model server at http://127.0.0.1:9/v1/chat/completions")
    assert.match(first.stderr, /: check --model and that the server is running\n$/)
    assert.notInclude(first.stderr, "MNEME_BASE_URL")
    const second = mneme(at, env)
    assertFailure(
      second,
      1,
      "check --model and that the server is running (2 reviews of these lines have failed in a row)"
    )
    assert.notInclude(second.stderr, "stopped retrying")
    assert.notInclude(second.stderr, "MNEME_BASE_URL")
    assert.strictEqual(ownMemory(memory), before)

    const fromEnvironment = mneme(["review", transcript, "--memory", memory], {
      ...env,
      MNEME_BASE_URL: "http://127.0.0.1:9/v1"
    })
    assertFailure(fromEnvironment, 1, "check MNEME_BASE_URL and that the server is running")
    assert.notInclude(fromEnvironment.stderr, "--model")
    assert.strictEqual(ownMemory(memory), before)
  })

  it("a server at --model without the endpoint names --model and MNEME_MODEL (exit 1)", async () => {
    const { memory, before } = kept()
    const server = await stubServer(() => ({ status: 404, body: { error: { message: "not found" } } }))
    const run: Run = await mnemeAsync(["review", transcript, "--model", server.url, "--memory", memory], {
      MNEME_MODEL: "stub-model"
    })
    assertFailure(run, 1, "no such model or endpoint (", "check MNEME_MODEL", "and --model (it usually ends in /v1)")
    assert.notInclude(run.stderr, "MNEME_BASE_URL")
    assert.strictEqual(ownMemory(memory), before)
  })

  it("the model's configuration: a bad --model URL, no MNEME_MODEL for --model, a bad variable (exit 2)", () => {
    const { memory, before } = kept()
    const at = ["review", transcript, "--memory", memory]
    assertFailure(
      mneme([...at, "--model", "http://"], { MNEME_MODEL: "m" }),
      2,
      'mneme: --model "http://" is not a valid URL'
    )
    assertFailure(
      mneme([...at, "--model", "http://127.0.0.1:9/v1"]),
      2,
      "mneme: set MNEME_MODEL to the name of the model the server of --model should run"
    )
    const timeout = mneme([...at, "--model", "http://127.0.0.1:9/v1"], { MNEME_MODEL: "m", MNEME_TIMEOUT: "soon" })
    assertFailure(timeout, 2, "mneme: the model server is not configured: MNEME_TIMEOUT: ")
    assert.notInclude(timeout.stderr, "SchemaError")
    const url = mneme(at, { MNEME_MODEL: "m", MNEME_BASE_URL: "not a url" })
    assertFailure(url, 2, "mneme: the model server is not configured: MNEME_BASE_URL: ")
    assert.strictEqual(ownMemory(memory), before)
  })
})

describe("recorded answers go on from where the conversation's last run stopped (issue 22 item 20)", () => {
  const line = (seq: number, who: string, text: string) => JSON.stringify({ seq, who, text }) + "\n"

  it("a transcript reviewed in several runs gets the next answer each time; a dry run takes none for good", () => {
    const { dir, memory } = scratch()
    const chat = join(dir, "chat.jsonl")
    writeFileSync(chat, line(1, "user", "I drink oolong tea every afternoon.") + line(2, "agent", "Noted."))
    const model = answersFile(
      dir,
      "answers.jsonl",
      [{ op: "add", text: "The user drinks oolong tea every afternoon" }],
      [{ op: "add", text: "The user cycles to work" }],
      [{ op: "add", text: "The user lives in Lyon" }]
    )
    const run = (...more: ReadonlyArray<string>) =>
      mnemeIn(dir, ["review", "chat.jsonl", "--model", model, "--memory", "memory", ...more])
    const first = run()
    assert.strictEqual(first.code, 0, first.stderr)
    assert.include(first.stdout, "+  own  The user drinks oolong tea every afternoon")

    writeFileSync(chat, readFileSync(chat, "utf8") + line(3, "user", "I cycle to work."))
    const dry = run("--dry-run")
    assert.strictEqual(dry.code, 0, dry.stderr)
    assert.include(dry.stdout, "+  own  The user cycles to work")
    const second = run()
    assert.strictEqual(second.code, 0, second.stderr)
    assert.include(second.stdout, "+  own  The user cycles to work")

    writeFileSync(chat, readFileSync(chat, "utf8") + line(4, "user", "I moved to Lyon."))
    const third = run("--json")
    assert.strictEqual(third.code, 0, third.stderr)
    assert.deepStrictEqual(
      (JSON.parse(third.stdout) as { added: Array<{ text: string }> }).added.map((entry) => entry.text),
      ["The user lives in Lyon"]
    )
    const entries = ownMemory(memory)
      .split("\n")
      .filter((entry) => entry.startsWith("- "))
      .map((entry) => entry.replace(/ \[.*$/, ""))
    assert.deepStrictEqual(entries, [
      "- The user drinks oolong tea every afternoon",
      "- The user cycles to work",
      "- The user lives in Lyon"
    ])
  })

  it("an answer recorded as an error is used up; a new memory folder, or another file, starts from the first", () => {
    const { dir } = scratch()
    writeFileSync(join(dir, "chat.jsonl"), line(1, "user", "I drink oolong tea every afternoon."))
    const answers = join(dir, "answers.jsonl")
    writeFileSync(
      answers,
      JSON.stringify({ error: "the server is down" }) +
        "\n" +
        JSON.stringify({ answer: JSON.stringify({ changes: [{ op: "add", text: "The user drinks oolong tea" }] }) }) +
        "\n"
    )
    const run = (memory: string, file: string) =>
      mnemeIn(dir, ["review", "chat.jsonl", "--model", `replay:${file}`, "--memory", memory])
    assertFailure(run("memory", "answers.jsonl"), 1, "the server is down")
    const next = run("memory", "answers.jsonl")
    assert.strictEqual(next.code, 0, next.stderr)
    assert.include(next.stdout, "+  own  The user drinks oolong tea")
    // Another memory folder has its own position: it starts from the file's first answer.
    assertFailure(run("other", "answers.jsonl"), 1, "the server is down")
    // And so does another file of recorded answers for the same conversation and memory.
    writeFileSync(join(dir, "more.jsonl"), readFileSync(answers, "utf8"))
    assertFailure(run("other", "more.jsonl"), 1, "the server is down")
  })
})

describe("mneme review --members: a group conversation", () => {
  const groupChat = [
    { seq: 1, who: "user", name: "Alice", text: "Ada, book the train; Bob, find me a hotel." },
    { seq: 2, who: "agent", name: "ada", text: "Booked the 9:10 train." },
    { seq: 3, who: "agent", name: "bob", text: "Found a hotel near the station." },
    { seq: 4, who: "user", name: "Alice", text: "Thanks both. I always travel with my bike." }
  ]
    .map((line) => JSON.stringify(line))
    .join("\n")

  it("reviews each member on its own side, with a cursor each, and a progress line per member and pass", () => {
    const { dir } = scratch()
    writeFileSync(join(dir, "group.jsonl"), groupChat + "\n")
    const model = answersFile(dir, "answers.jsonl", [{ op: "add", text: "Alice travels with her bike" }], [])
    const args = ["review", "group.jsonl", "--members", "ada,bob", "--model", model, "--memory", "memory"]
    const run = mnemeIn(dir, [...args, "--show-prompt"])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stderr, "ada: pass 1: read to #4 of #4 (1 model call): 1 added, 0 edited, 0 removed")
    assert.include(run.stderr, "bob: pass 1: read to #4 of #4 (1 model call): 0 added, 0 edited, 0 removed")
    // Each member's request shows its own lines as itself and the other's by name.
    assert.include(
      run.stderr,
      '[2] agent "ada": "Booked the 9:10 train."\n[3] other "bob": "Found a hotel near the station."'
    )
    assert.include(
      run.stderr,
      '[2] other "ada": "Booked the 9:10 train."\n[3] agent "bob": "Found a hotel near the station."'
    )
    assert.include(run.stdout, "Reviewed group for ada: 1 pass (1 model call), cursor at #4 of #4")
    assert.include(
      readFileSync(join(dir, "memory/agents/ada/MEMORY.md"), "utf8"),
      "- Alice travels with her bike [source: group #4;"
    )
    const cursors = JSON.parse(readFileSync(join(dir, "memory/reviewed.json"), "utf8")).cursors as Record<
      string,
      number
    >
    assert.deepStrictEqual(
      Object.entries(cursors).map(([key, cursor]) => [key.replace(/group-[0-9a-f]{12}/, "group-ID"), cursor]),
      [
        ["group:group-ID:ada", 4],
        ["group:group-ID:bob", 4]
      ]
    )

    // Again, as JSON: nothing new for either member.
    const again = mnemeIn(dir, [...args, "--json"])
    assert.strictEqual(again.code, 0, again.stderr)
    const summary = JSON.parse(again.stdout)
    assert.deepStrictEqual(
      summary.members.map((member: { agent: string; modelCalls: number; cursor: number }) => [
        member.agent,
        member.modelCalls,
        member.cursor
      ]),
      [
        ["ada", 0, 4],
        ["bob", 0, 4]
      ]
    )
  })

  it("one member failing does not stop the other; the run fails naming the member", () => {
    const { dir } = scratch()
    writeFileSync(join(dir, "group.jsonl"), groupChat + "\n")
    const file = join(dir, "answers.jsonl")
    writeFileSync(
      file,
      [JSON.stringify({ error: "the server is down" }), JSON.stringify({ answer: '{"changes":[]}' })].join("\n")
    )
    const run = mnemeIn(dir, [
      "review",
      "group.jsonl",
      "--members",
      "ada,bob",
      "--model",
      `replay:${file}`,
      "--memory",
      "memory"
    ])
    assert.strictEqual(run.code, 1, run.stderr)
    assert.include(
      run.stderr,
      "mneme: ada: the review failed at #0 of #4 (pass 1): the model failed: the server is down"
    )
    assert.include(run.stderr, "bob: pass 1: read to #4 of #4 (1 model call)")
    const cursors = JSON.parse(readFileSync(join(dir, "memory/reviewed.json"), "utf8")).cursors as Record<
      string,
      number
    >
    assert.deepStrictEqual(Object.values(cursors).sort(), [0, 4])
  })

  it("refuses an empty member id before reading anything (exit 2)", () => {
    const { dir } = scratch()
    writeFileSync(join(dir, "group.jsonl"), groupChat + "\n")
    const run = mnemeIn(dir, [
      "review",
      "group.jsonl",
      "--members",
      "ada,,bob",
      "--model",
      replay,
      "--memory",
      "memory"
    ])
    assertFailure(run, 2, "mneme: --members takes agent ids separated by commas (ada,bob), none of them empty")
    assert.isFalse(existsSync(join(dir, "memory")))
  })
})
