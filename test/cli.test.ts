/**
 * The `mneme` CLI end to end: the built executable run as a child process over temporary memory folders, with the
 * example transcript and its recorded answers, and each failure's message and exit code.
 */
import { assert, describe, it } from "@effect/vitest"
import { Answer } from "@mneme/core"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  answers,
  assertFailure,
  bin,
  environment,
  exampleCursors,
  files,
  mneme,
  mnemeAsync,
  ownMemory,
  replay,
  review,
  scratch,
  stubServer,
  transcript
} from "./cliKit.ts"

describe("mneme review, the example with recorded answers", () => {
  it("reviews the whole file in two passes split by the budget: adds, an edit, a remove, a long entry left out", () => {
    const { memory } = scratch()
    const run = review(memory)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.deepStrictEqual(run.stderr.trimEnd().split("\n"), [
      "pass 1: read to #12 of #18 (1 model call): 3 added, 0 edited, 0 removed, 1 left out, 1 secret dropped",
      "pass 2: read to #18 of #18 (1 model call): 1 added, 1 edited, 1 removed, 0 left out"
    ])
    assert.include(run.stdout, "Reviewed transcript: 2 passes (2 model calls), cursor at #18 of #18")
    // The summary is the net effect: green tea was added, then edited to oolong; the migration added, then removed.
    assert.include(run.stdout, "Added (3)")
    assert.include(run.stdout, "  +  own  Dana drinks oolong tea, never coffee (switched from green tea)\n")
    assert.notInclude(run.stdout, "Edited")
    assert.notInclude(run.stdout, "Removed")
    assert.include(run.stdout, "Left out (1)\n  !  Northwind's nightly billing DAG failed on 5 November")
    assert.include(run.stdout, "retry delays  (the entry is 381 characters, over the limit of 300)")
    assert.include(run.stdout, "Secrets dropped (1)\n  !  not shown: memory never keeps keys, passwords or ID numbers")
    assert.include(run.stdout, "MEMORY.md: own 438 / 4,000, team 0 / 4,000")

    const written = files(memory)
    // Beside the memory, where the next run of this conversation goes on in the recorded answers (issue 22 item 20).
    const position = Object.keys(written).find((file) => file.startsWith("replay/"))!
    assert.match(position, /^replay\/[0-9a-f]{16}\.json$/)
    assert.deepStrictEqual(Object.keys(written).sort(), [
      "agents/default/MEMORY.md",
      "journal.jsonl",
      position,
      "reviewed.json"
    ])
    assert.deepStrictEqual(JSON.parse(written[position]!), {
      version: 1,
      conversation: Object.keys(JSON.parse(written["reviewed.json"]!).cursors)[0]!.slice("chat:".length),
      answers,
      next: 2
    })
    const entries = ownMemory(memory)
      .split("\n")
      .filter((line) => line.startsWith("- "))
    assert.deepStrictEqual(
      entries.map((line) => line.replace(/ \[.*\]$/, "")),
      [
        "- Dana Whitfield is a data engineer at Northwind Logistics who works mostly in Python and SQL on billing data",
        "- Dana drinks oolong tea, never coffee (switched from green tea)",
        "- Northwind Logistics is moving its billing pipeline to dbt Cloud; the planned Airflow migration was cancelled"
      ]
    )
    assert.include(entries[0], "[source: transcript #11; added: ")
    // The recorded answers propose the staging password as an entry: no file may keep it.
    for (const [file, content] of Object.entries(written)) assert.notInclude(content, "hunter2", file)
    assert.deepStrictEqual(exampleCursors(written["reviewed.json"]!), [18])
  })

  it("prints one JSON document with --json, and finds nothing new the second time", () => {
    const { memory } = scratch()
    const run = review(memory, "--json")
    assert.strictEqual(run.code, 0, run.stderr)
    const summary = JSON.parse(run.stdout)
    assert.strictEqual(summary.ok, true)
    assert.match(summary.conversation, /^transcript-[0-9a-f]{12}$/)
    assert.strictEqual(summary.transcript, "transcript")
    assert.isAtLeast(summary.passes, 2)
    assert.strictEqual(summary.modelCalls, 2)
    assert.strictEqual(summary.cursor, 18)
    assert.strictEqual(summary.lastLine, 18)
    assert.strictEqual(summary.added.length, 3)
    assert.deepStrictEqual(summary.added[1], {
      scope: "own",
      text: "Dana drinks oolong tea, never coffee (switched from green tea)"
    })
    assert.deepStrictEqual(summary.edited, [])
    assert.deepStrictEqual(summary.removed, [])
    assert.strictEqual(summary.leftOut.length, 1)
    assert.strictEqual(summary.leftOut[0].problem, "the entry is 381 characters, over the limit of 300")
    assert.strictEqual(summary.secretsDropped, 1)
    assert.deepStrictEqual(summary.sizes, { own: 438, team: 0 })

    const again = review(memory, "--json")
    assert.strictEqual(again.code, 0, again.stderr)
    assert.strictEqual(again.stderr, "pass 1: nothing new after #18 of #18\n")
    assert.strictEqual(JSON.parse(again.stdout).modelCalls, 0)
  })

  it("shows the changes of a dry run and writes nothing", () => {
    const { memory } = scratch()
    const run = review(memory, "--dry-run")
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, `dry run: nothing was written to ${memory}`)
    assert.include(
      run.stdout,
      "Would change (1)\n  agents/default/MEMORY.md (new)\n    + # Memory\n    + - Dana Whitfield is a data engineer"
    )
    assert.include(
      run.stdout,
      "    + - Dana drinks oolong tea, never coffee (switched from green tea) [source: transcript #17"
    )
    assert.isFalse(existsSync(memory))

    assert.strictEqual(mneme(["remember", "Dana likes long walks", "--topic", "hobbies", "--memory", memory]).code, 0)
    const before = files(memory)
    const again = review(memory, "--dry-run")
    assert.strictEqual(again.code, 0, again.stderr)
    assert.include(again.stdout, "Would change (1)\n  agents/default/MEMORY.md\n    + - Dana Whitfield")
    assert.deepStrictEqual(files(memory), before)
  })

  it("shows the memory the review made: entries, sizes against limits, the last review", () => {
    const { memory } = scratch()
    assert.strictEqual(review(memory).code, 0)
    const shown = mneme(["show", "--memory", memory])
    assert.strictEqual(shown.code, 0, shown.stderr)
    assert.include(shown.stdout, 'for agent "default"')
    assert.match(shown.stdout, /Own memory \(0 \/ 40 topics\)\n {2}MEMORY\.md +438 \/ 4,000\n/)
    assert.include(
      shown.stdout,
      "    - Dana drinks oolong tea, never coffee (switched from green tea)  [source: transcript #17"
    )
    assert.match(shown.stdout, /Team memory \(0 \/ 40 topics\)\n {2}MEMORY\.md +0 \/ 4,000\n {4}\(no entries\)/)
    assert.match(shown.stdout, /Last review: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, ok\n$/)

    const json = JSON.parse(mneme(["show", "--memory", memory, "--json"]).stdout)
    assert.strictEqual(json.lastReview.ok, true)
    const own = json.scopes[0]
    assert.strictEqual(own.scope, "own")
    assert.deepStrictEqual(
      {
        file: own.files[0].file,
        size: own.files[0].size,
        limit: own.files[0].limit,
        entries: own.files[0].entries.length
      },
      { file: "agents/default/MEMORY.md", size: 438, limit: 4000, entries: 3 }
    )
    assert.strictEqual(own.files[0].entries[1].meta.source, "transcript #17")
  })
})

describe("mneme review against an OpenAI-compatible server", () => {
  const recorded: Array<string> = readFileSync(answers, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).answer)

  it("reviews the example the same way, sending the key, the model and no secret", async () => {
    const { memory } = scratch()
    const server = await stubServer((call) => ({
      status: 200,
      body: {
        choices: [{ message: { role: "assistant", content: recorded[call - 1] }, finish_reason: "stop" }],
        usage: { prompt_tokens: 100, completion_tokens: 20 }
      }
    }))
    const run = await mnemeAsync(["review", transcript, "--model", server.url, "--memory", memory], {
      MNEME_MODEL: "stub-model",
      MNEME_API_KEY: "test-key-123"
    })
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, "Reviewed transcript: 2 passes (2 model calls), cursor at #18 of #18")
    assert.include(ownMemory(memory), "- Dana drinks oolong tea, never coffee (switched from green tea) [source: ")
    assert.strictEqual(server.received.length, 2)
    for (const request of server.received) {
      assert.strictEqual(request.url, "/v1/chat/completions")
      assert.strictEqual(request.authorization, "Bearer test-key-123")
      assert.strictEqual(JSON.parse(request.body).model, "stub-model")
      // The staging password the user pasted is masked before anything leaves the host.
      assert.notInclude(request.body, "hunter2")
    }
  })

  it("MNEME_STRUCTURED=json_schema sends mneme's answer schema; a server that rejects it is told to turn it off", async () => {
    const { memory } = scratch()
    const server = await stubServer((call) =>
      call === 1
        ? {
            status: 200,
            body: { choices: [{ message: { role: "assistant", content: recorded[0] }, finish_reason: "stop" }] }
          }
        : { status: 400, body: { error: { message: "response_format is not supported" } } }
    )
    const env = {
      MNEME_MODEL: "stub-model",
      MNEME_STRUCTURED: "json_schema",
      MNEME_TIMEOUT: "30",
      MNEME_MAX_TOKENS: "512"
    }
    const run = await mnemeAsync(["review", transcript, "--model", server.url, "--memory", memory], env)
    assert.strictEqual(run.code, 1, run.stderr)
    assert.strictEqual(server.received.length, 2)
    const body = JSON.parse(server.received[0]!.body)
    assert.deepStrictEqual(body.response_format, {
      type: "json_schema",
      json_schema: { name: "mneme_answer", schema: Answer.jsonSchema.schema, strict: false }
    })
    assert.strictEqual(body.max_tokens, 512)
    const lines = run.stderr.trimEnd().split("\n")
    assert.strictEqual(lines.length, 2, run.stderr)
    assert.include(lines[1], "HTTP 400: response_format is not supported")
    assert.include(lines[1], "(MNEME_STRUCTURED is json_schema): set MNEME_STRUCTURED to json_object or off")
    assert.include(ownMemory(memory), "Dana Whitfield is a data engineer")
  })

  it("a server that refuses the key fails the review with its status, never the key (exit 1)", async () => {
    const { memory } = scratch()
    const server = await stubServer(() => ({ status: 401, body: { error: { message: "invalid api key" } } }))
    const run = await mnemeAsync(["review", transcript, "--memory", memory], {
      MNEME_BASE_URL: server.url,
      MNEME_MODEL: "stub-model",
      MNEME_API_KEY: "test-key-123"
    })
    assertFailure(run, 1, "mneme: the review failed at #0 of #18 (pass 1): the model failed: ", "401")
    assert.notInclude(run.stderr, "test-key-123")
    assert.strictEqual(server.received.length, 1)
  })
})

describe("mneme output", () => {
  it("uses colour only on a terminal or when forced, and never with NO_COLOR", () => {
    const { memory } = scratch()
    mkdirSync(memory)
    const piped = mneme(["show", "--memory", memory], { NO_COLOR: "", FORCE_COLOR: "" })
    assert.strictEqual(piped.code, 0, piped.stderr)
    assert.notInclude(piped.stdout, "\u001b[")
    assert.include(
      mneme(["show", "--memory", memory], { NO_COLOR: "", FORCE_COLOR: "1" }).stdout,
      "\u001b[1mMemory in "
    )
    assert.notInclude(mneme(["show", "--memory", memory], { NO_COLOR: "1", FORCE_COLOR: "1" }).stdout, "\u001b[")
  })
})

describe("mneme review keeps a cursor per transcript file and agent (issue 8 item 2)", () => {
  const write = (file: string, lines: ReadonlyArray<string>) =>
    writeFileSync(
      file,
      lines.map((text, i) => JSON.stringify({ seq: i + 1, who: i % 2 === 0 ? "user" : "agent", text })).join("\n") +
        "\n"
    )

  it("two files of the same name, and one file for two agents, are each reviewed from their first line", () => {
    const { dir, memory } = scratch()
    mkdirSync(join(dir, "other"))
    const lines = readFileSync(transcript, "utf8").split("\n").slice(0, 4)
    writeFileSync(join(dir, "en.jsonl"), lines.join("\n") + "\n")
    writeFileSync(join(dir, "other/en.jsonl"), lines.slice(0, 2).join("\n") + "\n")
    const at = ["--model", replay, "--memory", memory, "--json"]
    const first = mneme(["review", join(dir, "en.jsonl"), ...at])
    const other = mneme(["review", join(dir, "other/en.jsonl"), "--agent", "bob", ...at])
    const sameFileBob = mneme(["review", join(dir, "en.jsonl"), "--agent", "bob", ...at])
    const keys = [first, other, sameFileBob].map((run) => {
      assert.strictEqual(run.code, 0, run.stderr)
      const summary = JSON.parse(run.stdout)
      assert.strictEqual(summary.modelCalls, 1, run.stderr)
      return summary.conversation as string
    })
    assert.strictEqual(new Set(keys).size, 3)
    const state = JSON.parse(readFileSync(join(memory, "reviewed.json"), "utf8"))
    assert.deepStrictEqual(
      keys.map((key) => state.cursors[`chat:${key}`]),
      [4, 2, 4]
    )
  })

  it("a relative path names the same conversation from the folder it is given in", () => {
    const { dir, memory } = scratch()
    write(join(dir, "chat.jsonl"), ["I like jazz", "Noted"])
    const absolute = mneme(["review", join(dir, "chat.jsonl"), "--model", replay, "--memory", memory, "--json"])
    const relative = spawnSync(
      process.execPath,
      [bin, "review", "chat.jsonl", "--model", replay, "--memory", memory, "--json"],
      {
        cwd: dir,
        encoding: "utf8",
        env: environment({})
      }
    )
    assert.strictEqual(relative.status, 0, relative.stderr)
    assert.strictEqual(JSON.parse(relative.stdout).conversation, JSON.parse(absolute.stdout).conversation)
    assert.strictEqual(JSON.parse(relative.stdout).modelCalls, 0)
  })

  it("a cursor past the transcript's last line fails (exit 1) saying what happened and how to go on", () => {
    const { dir, memory } = scratch()
    const file = join(dir, "chat.jsonl")
    write(file, ["I like jazz", "Noted", "I play the piano", "Nice"])
    const at = ["--model", replay, "--memory", memory, "--conversation", "chat-1"]
    assert.strictEqual(mneme(["review", file, ...at]).code, 0)
    write(file, ["I like jazz", "Noted"])
    const before = readFileSync(join(memory, "reviewed.json"), "utf8")
    const run = mneme(["review", file, ...at])
    assertFailure(
      run,
      1,
      "mneme: conversation chat-1 was reviewed up to line #4, but this transcript ends at #2: the file was cut or " +
        "replaced since. To review it from its first line, as a new conversation, pass --conversation with a new id"
    )
    assert.strictEqual(readFileSync(join(memory, "reviewed.json"), "utf8"), before)
  })
})

describe("text that starts with a dash is text, not flags (issue 8 item 3)", () => {
  it("remember and forget store and remove it, a leading bullet cleaned", () => {
    const { memory } = scratch()
    const at = ["--memory", memory]
    const added = mneme(["remember", "- the user likes tea", ...at])
    assert.strictEqual(added.code, 0, added.stderr)
    assert.include(added.stdout, '"the user likes tea"')
    const link = mneme(["remember", "- [[evil]] is a word", ...at])
    assert.strictEqual(link.code, 0, link.stderr)
    assert.notInclude(link.stdout, "0.1.0")
    assert.include(ownMemory(memory), "- the user likes tea [added: ")
    assert.include(ownMemory(memory), "- [[evil]] is a word [added: ")
    const removed = mneme(["forget", "- the user", ...at])
    assert.strictEqual(removed.code, 0, removed.stderr)
    assert.include(removed.stdout, 'removed from agents/default/MEMORY.md: "the user likes tea"')
    assert.notInclude(ownMemory(memory), "likes tea")
    const recalled = mneme(["recall", "-[[evil]]", ...at])
    assert.strictEqual(recalled.code, 0, recalled.stderr)
  })

  it("a flag value that starts with a dash is the value; a real unknown flag is a usage error (exit 2)", () => {
    const { memory } = scratch()
    const topic = mneme(["remember", "a fact", "--topic", "-not a topic", "--memory", memory])
    assertFailure(topic, 1, '"-not a topic" is not a topic name')
    const unknown = mneme(["remember", "a fact", "--nope", "--memory", memory])
    assert.strictEqual(unknown.code, 2, unknown.stderr)
    assert.include(unknown.stderr, "--nope")
    assert.isFalse(existsSync(join(memory, "agents")))
  })
})

describe("mneme show says what a person must know of odd files (issue 8 items 4, 17, 22, 23)", () => {
  it("masks an entry that looks secret and warns of it, reports unlinked and unreadable topics", () => {
    const { memory } = scratch()
    const own = join(memory, "agents/default")
    mkdirSync(own, { recursive: true })
    writeFileSync(
      join(own, "MEMORY.md"),
      "# Memory\n\n- The user likes tea\n- The user's AWS key is AKIAIOSFODNN7EXAMPLE\n\n## Index\n- [pets](pets.md)\n"
    )
    writeFileSync(join(own, "orphan.md"), "# Orphan\n\n- A fact\n")
    writeFileSync(join(own, "pets.md"), Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0x0a]))
    const run = mneme(["show", "--memory", memory])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.notInclude(run.stdout, "AKIAIOSFODNN7EXAMPLE")
    assert.include(
      run.stdout,
      "    - The user's AWS key is [secret]\n      ! this entry looks like a secret (masked here): memory should not keep it\n"
    )
    assert.include(
      run.stdout,
      "  ! agents/default/orphan.md is not linked from MEMORY.md's index (the next entry added to it links it)\n"
    )
    assert.include(
      run.stdout,
      "  ! agents/default/pets.md could not be read, and is left out: agents/default/pets.md is not valid UTF-8 text"
    )
    const json = JSON.parse(mneme(["show", "--memory", memory, "--json"]).stdout)
    const [ownScope] = json.scopes
    assert.deepStrictEqual(ownScope.unlinked, ["agents/default/orphan.md"])
    assert.deepStrictEqual(
      ownScope.unreadable.map((file: { file: string }) => file.file),
      ["agents/default/pets.md"]
    )
    assert.deepStrictEqual(
      ownScope.files[0].entries.map((entry: { text: string; looksSecret: boolean }) => [entry.text, entry.looksSecret]),
      [
        ["The user likes tea", false],
        ["The user's AWS key is [secret]", true]
      ]
    )
  })

  it("says a hand-edited MEMORY.md is over its size and prints its entries only up to its size", () => {
    const { memory } = scratch()
    const own = join(memory, "agents/default")
    mkdirSync(own, { recursive: true })
    const entries = Array.from({ length: 20_000 }, (_, i) => `- Fact number ${i} about the user`)
    writeFileSync(join(own, "MEMORY.md"), `# Memory\n\n${entries.join("\n")}\n`)
    const run = mneme(["show", "--memory", memory])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, "    ! over its size of 4,000 characters: remove or shorten entries\n")
    assert.include(
      run.stdout,
      "    - Fact number 136 about the user\n    … 19,863 more entries past its size, not shown\n"
    )
    assert.notInclude(run.stdout, "Fact number 137 ")
    assert.isBelow(run.stdout.length, 8_000)
    const json = JSON.parse(mneme(["show", "--memory", memory, "--json"]).stdout)
    assert.strictEqual(json.scopes[0].files[0].entries.length, 137)
    assert.strictEqual(json.scopes[0].files[0].notShown, 19_863)
  })
})

describe("the memory limits from the environment hold on every command (issue 8 item 5)", () => {
  /** A review of a one-line chat whose recorded answer adds `text`. */
  const reviewAdding = (dir: string, memory: string, text: string, env: Record<string, string>) => {
    const chat = join(dir, "chat.jsonl")
    writeFileSync(chat, JSON.stringify({ seq: 1, who: "user", text: "Remember this" }) + "\n")
    const recorded = join(dir, "answers.jsonl")
    writeFileSync(recorded, JSON.stringify({ answer: JSON.stringify({ changes: [{ op: "add", text }] }) }) + "\n")
    return mneme(["review", chat, "--model", `replay:${recorded}`, "--memory", memory, "--json"], env)
  }

  it("MNEME_ENTRY_MAX: remember refuses a longer entry, and a review leaves it out", () => {
    const { dir, memory } = scratch()
    const env = { MNEME_ENTRY_MAX: "20" }
    const run = mneme(["remember", "The user likes green tea a lot", "--memory", memory], env)
    assertFailure(run, 1, "the entry is 30 characters, over the limit of 20")
    const reviewed = reviewAdding(dir, memory, "The user likes green tea a lot", env)
    assert.strictEqual(reviewed.code, 0, reviewed.stderr)
    assert.deepStrictEqual(JSON.parse(reviewed.stdout).leftOut, [
      { text: "The user likes green tea a lot", problem: "the entry is 30 characters, over the limit of 20" }
    ])
    assert.isFalse(existsSync(join(memory, "agents/default/MEMORY.md")))
    assert.strictEqual(mneme(["remember", "The user likes green tea a lot", "--memory", memory]).code, 0)
  })

  it("MNEME_MEMORY_MAX: remember and a review refuse what would pass it, and show says the limit", () => {
    const { dir, memory } = scratch()
    const env = { MNEME_MEMORY_MAX: "40" }
    const run = mneme(["remember", "The user likes green tea", "--memory", memory], env)
    assertFailure(run, 1, "agents/default/MEMORY.md would hold 67 of its 40 characters")
    const reviewed = reviewAdding(dir, memory, "The user likes green tea", env)
    assert.strictEqual(reviewed.code, 1, reviewed.stderr)
    assert.match(
      reviewed.stderr,
      /^mneme: the review could not add "The user likes green tea": .* would hold \d+ of its 40 characters/
    )
    assert.isFalse(existsSync(join(memory, "agents/default/MEMORY.md")))
    assert.include(mneme(["show", "--memory", memory], env).stdout, "0 / 40\n")
  })

  it("MNEME_TOPIC_MAX and MNEME_TOPICS_MAX: a topic past its size, and a topic past their number, are refused", () => {
    const { memory } = scratch()
    const at = ["--memory", memory]
    const big = mneme(["remember", "The user likes green tea", "--topic", "tea", ...at], { MNEME_TOPIC_MAX: "20" })
    assertFailure(big, 1, "tea.md would hold", "of its 20 characters")
    assert.strictEqual(mneme(["remember", "Oolong in the afternoon", "--topic", "tea", ...at]).code, 0)
    const more = mneme(["remember", "A cat named Tom", "--topic", "pets", ...at], { MNEME_TOPICS_MAX: "1" })
    assert.strictEqual(more.code, 1, more.stderr)
    assert.isFalse(existsSync(join(memory, "agents/default/pets.md")))
  })

  it("a limit that is not a whole number above 0 is a usage error naming it (exit 2)", () => {
    const { memory } = scratch()
    for (const [name, value] of [
      ["MNEME_ENTRY_MAX", "abc"],
      ["MNEME_MEMORY_MAX", "0"],
      ["MNEME_TOPIC_MAX", "1.5"],
      ["MNEME_TOPICS_MAX", "-3"]
    ] as const) {
      const run = mneme(["remember", "x y", "--memory", memory], { [name]: value })
      assertFailure(run, 2, `mneme: ${name} must be a whole number above 0, not ${JSON.stringify(value)}`)
    }
    assert.isFalse(existsSync(memory))
  })
})

describe("mneme remember, recall, forget, journal", () => {
  it("adds, searches, reads a topic, removes, and journals each change", () => {
    const { memory } = scratch()
    const at = ["--memory", memory]
    const added = mneme(["remember", "The user likes green tea", ...at])
    assert.strictEqual(added.code, 0, added.stderr)
    assert.include(added.stdout, "added to agents/default/MEMORY.md (now ")
    assert.strictEqual(mneme(["remember", "Oolong in the afternoon", "--topic", "Tea", ...at]).code, 0)
    assert.strictEqual(mneme(["remember", "The team ships on Fridays", "--team", ...at]).code, 0)
    const again = mneme(["remember", "the user likes  GREEN tea", ...at, "--json"])
    assert.strictEqual(again.code, 0, again.stderr)
    assert.strictEqual(JSON.parse(again.stdout).changed, false)

    assert.deepStrictEqual(mneme(["recall", "GREEN", ...at]).stdout.split("\n"), [
      "own  -  The user likes green tea",
      ""
    ])
    assert.strictEqual(mneme(["recall", "--topic", "tea", ...at]).stdout, "own  tea  Oolong in the afternoon\n")
    const all = JSON.parse(mneme(["recall", ...at, "--json"]).stdout)
    assert.deepStrictEqual(
      all.entries.map((entry: { scope: string; topic: string | null; text: string }) => [
        entry.scope,
        entry.topic,
        entry.text
      ]),
      [
        ["own", null, "The user likes green tea"],
        ["own", "tea", "Oolong in the afternoon"],
        ["team", null, "The team ships on Fridays"]
      ]
    )

    const removed = mneme(["forget", "green tea", ...at])
    assert.strictEqual(removed.code, 0, removed.stderr)
    assert.include(removed.stdout, "removed from agents/default/MEMORY.md")
    assert.include(removed.stdout, '"The user likes green tea"')
    assert.notInclude(ownMemory(memory), "green tea")
    assert.strictEqual(mneme(["forget", "Fridays", "--team", ...at]).code, 0)
    assert.notInclude(readFileSync(join(memory, "team/MEMORY.md"), "utf8"), "Fridays")

    const journal = mneme(["journal", ...at])
    assert.strictEqual(journal.code, 0, journal.stderr)
    const heads = journal.stdout.split("\n").filter((line) => /^\d{4}-/.test(line))
    assert.deepStrictEqual(
      heads.map((line) => line.replace(/^\S+ \S+ UTC {2}/, "")),
      [
        "add      agents/default/MEMORY.md  by cli",
        "add      agents/default/tea.md  by cli",
        "add      agents/default/MEMORY.md  by cli",
        "add      team/MEMORY.md  by cli",
        "remove   agents/default/MEMORY.md  by cli",
        "remove   team/MEMORY.md  by cli"
      ]
    )
    assert.include(journal.stdout, "    - - The user likes green tea [added: ")
    const last = JSON.parse(mneme(["journal", "--limit", "1", "--json", ...at]).stdout)
    assert.deepStrictEqual(
      last.journal.map((line: { op: string; file: string; actor: string }) => [line.op, line.file, line.actor]),
      [["remove", "team/MEMORY.md", "cli"]]
    )
  })
})

describe("mneme failures: one line on stderr and an exit code", () => {
  it("review with no model names both ways to give one (exit 2)", () => {
    const { memory } = scratch()
    const run = mneme(["review", transcript, "--memory", memory])
    assertFailure(run, 2, "no model configured", "--model replay:FILE", "MNEME_BASE_URL")
    assert.strictEqual(run.stdout, "")
    assert.isFalse(existsSync(memory))
  })

  it("a bad transcript line is named with its number and what is wrong (exit 1)", () => {
    const { dir, memory } = scratch()
    const bad = join(dir, "chat.jsonl")
    writeFileSync(bad, '{"seq":1,"who":"user","text":"I like tea"}\n{"seq":2,"who":"bot","text":"ok"}\n')
    const run = mneme(["review", bad, "--model", replay, "--memory", memory])
    assertFailure(run, 1, `${bad} line 2: "who": Expected "user" | "agent" | "other"`)
    assert.isFalse(existsSync(memory))
  })

  it("an unreachable model server fails the review and is recorded as its last review (exit 1)", () => {
    const { memory } = scratch()
    const run = mneme(["review", transcript, "--model", "http://127.0.0.1:9/v1", "--memory", memory], {
      MNEME_MODEL: "test"
    })
    assertFailure(
      run,
      1,
      "mneme: the review failed at #0 of #18 (pass 1): the model failed: could not reach the model server"
    )
    assert.isFalse(existsSync(join(memory, "agents/default/MEMORY.md")))
    assert.deepStrictEqual(exampleCursors(readFileSync(join(memory, "reviewed.json"), "utf8")), [0])
    assert.include(mneme(["show", "--memory", memory]).stdout, "failed: the model failed: could not reach")
  })

  it("recorded answers that run out fail the review, keeping the passes that succeeded (exit 1), by --conversation", () => {
    const { dir, memory } = scratch()
    const one = join(dir, "one.jsonl")
    writeFileSync(one, readFileSync(answers, "utf8").split("\n")[0] + "\n")
    const run = mneme([
      "review",
      transcript,
      "--model",
      `replay:${one}`,
      "--memory",
      memory,
      "--conversation",
      "chat-7"
    ])
    assert.strictEqual(run.code, 1)
    assert.include(run.stdout, "Reviewed chat-7: 1 pass (2 model calls), cursor at #12 of #18")
    assert.include(run.stdout, "Added (3)")
    assert.deepStrictEqual(run.stderr.trimEnd().split("\n"), [
      "pass 1: read to #12 of #18 (1 model call): 3 added, 0 edited, 0 removed, 1 left out, 1 secret dropped",
      `mneme: the review failed at #12 of #18 (pass 2): the model failed: ${one} has no recorded answer left for call 2 (it holds 1)`
    ])
    assert.include(ownMemory(memory), "- Dana drinks green tea, never coffee [source: chat-7 #11; added: ")
    assert.deepStrictEqual(JSON.parse(readFileSync(join(memory, "reviewed.json"), "utf8")).cursors, {
      "chat:chat-7": 12
    })
  })

  /** A memory whose MEMORY.md is nearly full, a one-line chat, and an answer with two adds too big for it. */
  const nearlyFull = () => {
    const { dir, memory } = scratch()
    const own = join(memory, "agents/default")
    mkdirSync(own, { recursive: true })
    const full =
      "# Memory\n\n" +
      Array.from({ length: 13 }, (_, i) => `- Fact ${i}: ${"word ".repeat(55).trim()}`).join("\n") +
      `\n- Fact 13: ${"word ".repeat(20).trim()}\n- Likes tea\n\n## Index\n`
    writeFileSync(join(own, "MEMORY.md"), full)
    const chat = join(dir, "chat.jsonl")
    writeFileSync(chat, JSON.stringify({ seq: 1, who: "user", text: "I walk the dog and drink coffee" }) + "\n")
    const changes = [
      { op: "add", text: `The user drinks coffee ${"every single morning ".repeat(8)}`.trim() },
      { op: "remove", entry: 15 },
      { op: "add", text: `The user walks the dog ${"every single evening ".repeat(8)}`.trim() }
    ]
    const recorded = join(dir, "answers.jsonl")
    writeFileSync(recorded, JSON.stringify({ answer: JSON.stringify({ changes }) }) + "\n")
    return { memory, args: ["review", chat, "--model", `replay:${recorded}`, "--memory", memory] }
  }
  // Nothing makes room here: a consolidation would ask the recorded model first.
  const noConsolidation = { MNEME_CONSOLIDATE: "off" }

  it("a review into a full MEMORY.md says what landed, and each change memory refused in a line (issue 8 item 10)", () => {
    const { memory, args } = nearlyFull()
    const run = mneme(args, noConsolidation)
    assert.strictEqual(run.code, 1, run.stderr)
    assert.include(run.stdout, "Reviewed chat: 1 pass (1 model call), cursor at #0 of #1")
    assert.include(run.stdout, "Removed (1)\n  -  own  Likes tea")
    assert.notInclude(run.stdout, "Added")
    const lines = run.stderr.trimEnd().split("\n")
    assert.strictEqual(lines.length, 2, run.stderr)
    const refused = (what: string) =>
      new RegExp(
        `^mneme: the review could not add "The user ${what} every single .*": agents/default/MEMORY\\.md would hold [\\d,]+ of its 4,000 characters`
      )
    assert.match(lines[0]!, refused("drinks coffee"))
    assert.match(lines[1]!, refused("walks the dog"))
    assert.notInclude(ownMemory(memory), "Likes tea")
    const journal = readFileSync(join(memory, "journal.jsonl"), "utf8").trimEnd().split("\n")
    assert.deepStrictEqual(
      journal.map((line) => JSON.parse(line).op),
      ["remove"]
    )
  })

  it("--json lists each change memory refused with its tag and reason", () => {
    const { args } = nearlyFull()
    const run = mneme([...args, "--json"], noConsolidation)
    assert.strictEqual(run.code, 1, run.stderr)
    const summary = JSON.parse(run.stdout)
    assert.strictEqual(summary.ok, false)
    assert.deepStrictEqual(
      summary.failed.map((failed: { tag: string; change: { op: string } }) => [failed.tag, failed.change.op]),
      [
        ["MemoryFull", "add"],
        ["MemoryFull", "add"]
      ]
    )
    assert.strictEqual(summary.removed.length, 1)
  })

  it("a full MEMORY.md refuses the entry and says how to make room, losing nothing (exit 1)", () => {
    const { memory } = scratch()
    const own = join(memory, "agents/default")
    mkdirSync(own, { recursive: true })
    const full =
      "# Memory\n\n" +
      Array.from({ length: 14 }, (_, i) => `- Fact ${i}: ${"word ".repeat(55).trim()}`).join("\n") +
      "\n\n## Index\n"
    writeFileSync(join(own, "MEMORY.md"), full)
    const run = mneme(["remember", "The user likes green tea", "--memory", memory])
    assertFailure(run, 1, "agents/default/MEMORY.md would hold", "of its 4,000 characters", "to make room")
    assert.strictEqual(ownMemory(memory), full)
  })

  it("forget with no matching entry is NoMatch (exit 1); with --verbose the cause follows", () => {
    const { memory } = scratch()
    assert.strictEqual(mneme(["remember", "The user likes green tea", "--memory", memory]).code, 0)
    const run = mneme(["forget", "coffee", "--memory", memory])
    assertFailure(run, 1, 'no entry in agents/default/MEMORY.md holds "coffee"')
    assert.include(ownMemory(memory), "The user likes green tea")
    const verbose = mneme(["forget", "coffee", "--memory", memory, "--verbose"])
    assert.strictEqual(verbose.code, 1)
    assert.isAbove(verbose.stderr.trimEnd().split("\n").length, 1)
    assert.include(verbose.stderr, "NoMatch")
  })

  it("an entry memory cannot keep is refused (exit 1)", () => {
    const { memory } = scratch()
    assertFailure(mneme(["remember", "x".repeat(301), "--memory", memory]), 1, "301 characters, over the limit of 300")
    assertFailure(mneme(["remember", "my password is hunter2", "--memory", memory]), 1, "secret")
  })

  it("usage errors exit 2: an unknown command, a missing argument, a bad --model or --limit", () => {
    const unknown = mneme(["frobnicate"])
    assert.strictEqual(unknown.code, 2)
    assert.include(unknown.stderr, 'mneme: Unknown subcommand "frobnicate"')
    const missing = mneme(["remember"])
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "mneme: Missing required argument: text")
    assertFailure(mneme(["review", transcript, "--model", "gpt"]), 2, "--model takes replay:FILE or a server URL")
    assertFailure(mneme(["journal", "--limit", "0"]), 2, "--limit must be 1 or more")
  })
})
