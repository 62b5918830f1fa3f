/**
 * Issue 9's memory commands, run as a person runs them: the `mneme` launcher as a child process from a working folder
 * of its own (so `./memory` is that folder's), with stdout, stderr and the exit code checked, and on every failure
 * that nothing on disk changed. `edit`, `undo [N]`, `agents`, `recall` with several words, `--team` and a topic that
 * must exist, `forget` and `edit` that say where else a match is, `journal --agent`, `--agent ""`, and columns
 * aligned by display width.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, files, mnemeIn, ownMemory, type Run, scratch } from "./cliKit.ts"

/** A scratch working folder, and `mneme` run from it (the memory folder is its `./memory`). */
const folder = () => {
  const { dir, memory } = scratch()
  const run = (...args: ReadonlyArray<string>) => mnemeIn(dir, args)
  return { dir, memory, run }
}

/** A run that succeeded with nothing on stderr; its stdout. */
const ok = (run: Run): string => {
  assert.strictEqual(run.code, 0, run.stderr)
  assert.strictEqual(run.stderr, "")
  return run.stdout
}

/** The lines of a file, without the `[added: …]` date every entry the CLI writes carries. */
const undated = (text: string) => text.replace(/ \[added: \d{4}-\d{2}-\d{2}\]/g, "").split("\n")

/** The journal's lines as `op file` (and `undoes` when set), from the file itself. */
const journalOf = (memory: string) =>
  readFileSync(join(memory, "journal.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { op: string; file: string })
    .map((line) => `${line.op} ${line.file}`)

describe("mneme edit <match> <text> (issue 9)", () => {
  it("replaces the one entry that matches, in its place, in the agent's own memory, a topic, and team memory", () => {
    const { memory, run } = folder()
    ok(run("remember", "The user likes green tea"))
    ok(run("remember", "The user walks to work"))
    ok(run("remember", "Oolong in the afternoon", "--topic", "tea"))
    ok(run("remember", "The team ships on Fridays", "--team"))

    const edited = ok(run("edit", "green tea", "The user likes black tea"))
    assert.match(
      edited,
      /^replaced in agents\/default\/MEMORY\.md \(now \d+ of 4,000 characters\): "The user likes green tea" is now "The user likes black tea"\n$/
    )
    assert.deepStrictEqual(undated(ownMemory(memory)), [
      "# Memory",
      "",
      "- The user likes black tea",
      "- The user walks to work",
      "",
      "## Index",
      "- [[tea]]",
      ""
    ])
    ok(run("edit", "oolong", "Sencha in the afternoon", "--topic", "Tea"))
    assert.include(readFileSync(join(memory, "agents/default/tea.md"), "utf8"), "- Sencha in the afternoon")
    const team = JSON.parse(ok(run("edit", "Fridays", "The team ships on Thursdays", "--team", "--json")))
    assert.deepStrictEqual([team.op, team.changed, team.file], ["replace", true, "team/MEMORY.md"])
    assert.match(team.before, /^- The team ships on Fridays/)
    assert.match(team.after, /^- The team ships on Thursdays/)
    assert.include(readFileSync(join(memory, "team/MEMORY.md"), "utf8"), "Thursdays")
    assert.deepStrictEqual(journalOf(memory).slice(-3), [
      "replace agents/default/MEMORY.md",
      "replace agents/default/tea.md",
      "replace team/MEMORY.md"
    ])
  })

  it("a match that names no entry is NoMatch (exit 1) and changes nothing", () => {
    const { dir, run } = folder()
    ok(run("remember", "The user likes green tea"))
    const before = files(dir)
    assertFailure(
      run("edit", "coffee", "The user likes coffee"),
      1,
      'no entry in agents/default/MEMORY.md holds "coffee"'
    )
    assert.deepStrictEqual(files(dir), before)
  })
})

describe("mneme undo [N] (issue 9)", () => {
  it("reverts the last change, then the last N newest first, journals each undo, and says when nothing is left", () => {
    const { dir, memory, run } = folder()
    ok(run("remember", "The user likes green tea"))
    ok(run("remember", "The user walks to work"))
    ok(run("edit", "walks", "The user cycles to work"))

    assert.match(
      ok(run("undo")),
      /^undone: "The user cycles to work" in agents\/default\/MEMORY\.md is again "The user walks to work" \(now \d+ of 4,000 characters\)\n$/
    )
    assert.include(ownMemory(memory), "- The user walks to work")
    assert.notInclude(ownMemory(memory), "cycles")

    const two = ok(run("undo", "2")).trimEnd().split("\n")
    assert.strictEqual(two.length, 2, two.join("\n"))
    assert.match(two[0]!, /^undone: removed "The user walks to work" from agents\/default\/MEMORY\.md/)
    assert.match(two[1]!, /^undone: removed "The user likes green tea" from agents\/default\/MEMORY\.md/)
    assert.notInclude(ownMemory(memory), "- The user")
    assert.deepStrictEqual(journalOf(memory), [
      "add agents/default/MEMORY.md",
      "add agents/default/MEMORY.md",
      "replace agents/default/MEMORY.md",
      "undo agents/default/MEMORY.md",
      "undo agents/default/MEMORY.md",
      "undo agents/default/MEMORY.md"
    ])

    const before = files(dir)
    assert.strictEqual(
      ok(run("undo")),
      'nothing to undo: the journal holds no change to the own memory of agent "default" that is not undone already\n'
    )
    assert.deepStrictEqual(files(dir), before)
  })

  it("N past what can be undone reverts what there is and says so; --json gives the outcomes", () => {
    const { memory, run } = folder()
    assert.match(ok(run("undo")), /^nothing to undo: /)
    assert.isFalse(existsSync(memory))
    ok(run("remember", "The user likes green tea"))
    const lines = ok(run("undo", "5")).trimEnd().split("\n")
    assert.deepStrictEqual(lines.slice(1), [
      'only 1 change of the 5 asked for: the journal holds no earlier change to the own memory of agent "default" that is not undone already'
    ])
    ok(run("remember", "The user walks to work"))
    const json = JSON.parse(ok(run("undo", "--json")))
    assert.strictEqual(json.asked, 1)
    assert.deepStrictEqual(
      json.undone.map((outcome: { op: string; file: string; changed: boolean }) => [
        outcome.op,
        outcome.file,
        outcome.changed
      ]),
      [["remove", "agents/default/MEMORY.md", true]]
    )
    assert.notInclude(ownMemory(memory), "walks")
  })

  it("undoes this agent's changes (or the team's with --team), never another's", () => {
    const { memory, run } = folder()
    ok(run("remember", "Ada likes maps", "--agent", "ada"))
    ok(run("remember", "The team ships on Fridays", "--team"))
    ok(run("remember", "Bob likes trains", "--agent", "bob"))

    assert.match(ok(run("undo", "--agent", "ada")), /^undone: removed "Ada likes maps" from agents\/ada\/MEMORY\.md/)
    assert.include(readFileSync(join(memory, "agents/bob/MEMORY.md"), "utf8"), "Bob likes trains")
    assert.include(readFileSync(join(memory, "team/MEMORY.md"), "utf8"), "Fridays")
    assert.match(ok(run("undo", "--team", "--agent", "bob")), /^undone: removed "The team ships on Fridays"/)
    assert.include(readFileSync(join(memory, "agents/bob/MEMORY.md"), "utf8"), "Bob likes trains")
  })

  it("refuses (exit 1, nothing changed) where a file no longer holds what the journal says a change wrote", () => {
    const { dir, memory, run } = folder()
    ok(run("remember", "The user likes green tea"))
    ok(run("remember", "The user walks to work"))
    // A person rewrites the older entry by hand: the newest change could be undone, the older one cannot.
    const own = join(memory, "agents/default/MEMORY.md")
    writeFileSync(own, readFileSync(own, "utf8").replace("green tea", "green tea a lot"))
    const before = files(dir)
    const refused = run("undo", "2")
    assertFailure(
      refused,
      1,
      'cannot undo the change to agents/default/MEMORY.md: it no longer holds "- The user likes green tea [added: ',
      "; nothing was changed"
    )
    assert.strictEqual(refused.stdout, "")
    assert.deepStrictEqual(files(dir), before)
  })

  it("N below 1, or not a number, is a usage error (exit 2)", () => {
    const { dir, run } = folder()
    ok(run("remember", "The user likes green tea"))
    const before = files(dir)
    assertFailure(run("undo", "0"), 2, "undo takes 1 or more changes, not 0")
    const word = run("undo", "many")
    assert.strictEqual(word.code, 2, word.stderr)
    assert.include(word.stderr, "many")
    assert.deepStrictEqual(files(dir), before)
  })
})

describe("mneme agents (issue 9)", () => {
  it("lists the agents with their folders, MEMORY.md sizes and topic counts, aligned for CJK and emoji ids", () => {
    const { run } = folder()
    ok(run("remember", "Likes maps", "--agent", "エイダ"))
    ok(run("remember", "Kyoto in spring", "--agent", "bob 🐱", "--topic", "旅行"))
    ok(run("remember", "The user likes green tea"))

    const json = JSON.parse(ok(run("agents", "--json")))
    assert.deepStrictEqual(json.limits, { memory: 4000, topics: 40 })
    const found = json.agents as Array<{ agent: string; dir: string; size: number; topics: number }>
    assert.deepStrictEqual(found.map((agent) => agent.agent).toSorted(), ["bob 🐱", "default", "エイダ"])
    const byId = Object.fromEntries(found.map((agent) => [agent.agent, agent]))
    assert.strictEqual(byId["default"]!.dir, "agents/default")
    assert.match(byId["bob 🐱"]!.dir, /^agents\/bob-[0-9a-f]{12}$/)
    assert.deepStrictEqual([byId["bob 🐱"]!.topics, byId["default"]!.topics], [1, 0])

    // "エイダ" and "bob 🐱" take six columns each, "default" seven: every folder starts at column 9.
    const shown: Record<string, string> = { エイダ: "エイダ ", "bob 🐱": "bob 🐱 ", default: "default" }
    const folderWidth = Math.max(6, ...found.map((agent) => agent.dir.length))
    const sizes = found.map((agent) => `${agent.size} / 4,000`)
    const sizeWidth = Math.max(9, ...sizes.map((size) => size.length))
    assert.deepStrictEqual(ok(run("agents")).trimEnd().split("\n"), [
      `AGENT    ${"FOLDER".padEnd(folderWidth)}  ${"MEMORY.md".padEnd(sizeWidth)}  TOPICS`,
      ...found.map(
        (agent, i) =>
          `${shown[agent.agent]}  ${agent.dir.padEnd(folderWidth)}  ${sizes[i]!.padEnd(sizeWidth)}  ${agent.topics} / 40`
      )
    ])
  })

  it("a memory folder with no agents says so (exit 0) and creates nothing", () => {
    const { dir, memory, run } = folder()
    mkdirSync(memory)
    assert.strictEqual(ok(run("agents")), "no agents in ./memory\n")
    assert.deepStrictEqual(JSON.parse(ok(run("agents", "--json"))).agents, [])
    assert.deepStrictEqual(readdirSync(memory), [])
    ok(run("remember", "The team ships on Fridays", "--team"))
    assert.strictEqual(ok(run("agents", "--memory", join(dir, "memory"))), `no agents in ${join(dir, "memory")}\n`)
  })
})

describe("mneme recall (issue 9)", () => {
  const seeded = () => {
    const at = folder()
    ok(at.run("remember", "The user likes green tea"))
    ok(at.run("remember", "Tea is served at noon"))
    ok(at.run("remember", "Kyoto in spring", "--topic", "旅行"))
    ok(at.run("remember", "Everyone drinks green juice", "--team"))
    return at
  }

  it("takes several words without quotes: the entries that mean the most to them first, those sharing none not at all", () => {
    const { run } = seeded()
    // One search with the agent's recall tool: ranked by what the words mean to the query, not each word required.
    assert.deepStrictEqual(
      ok(run("recall", "green", "tea"))
        .trimEnd()
        .split("\n"),
      ["own  -  The user likes green tea", "own  -  Tea is served at noon"]
    )
    assert.deepStrictEqual(
      ok(run("recall", "TEA", "the"))
        .trimEnd()
        .split("\n"),
      ["own  -  The user likes green tea", "own  -  Tea is served at noon"]
    )
    assert.strictEqual(ok(run("recall", "coffee", "tonic")), "no entry matches\n")
    // A query of stop words alone counts them; one of no word finds the entries that hold it as text.
    assert.strictEqual(ok(run("recall", "AT")), "own  -  Tea is served at noon\n")
    assert.strictEqual(ok(run("recall", "J")), "team  -  Everyone drinks green juice\n")
  })

  it("finds an entry by another form of its words, a prefix of one, or the date it was added, with its score", () => {
    const { memory, run } = folder()
    // Memory as a person wrote it by hand, with the dates the entries were added.
    mkdirSync(join(memory, "agents/default"), { recursive: true })
    writeFileSync(
      join(memory, "agents/default/MEMORY.md"),
      [
        "# Memory",
        "",
        "- Fennel Health deploys on Thursdays [added: 2026-05-14]",
        "- The billing data lives in PostgreSQL 16 [added: 2026-03-02]",
        "- The user likes green tea [added: 2026-01-10]",
        "",
        "## Index",
        ""
      ].join("\n")
    )
    const first = (...query: ReadonlyArray<string>) => JSON.parse(ok(run("recall", ...query, "--json"))).entries[0]
    for (const query of [["deploy"], ["Thursday"], ["when", "do", "we", "deploy?"], ["in", "May", "2026"]]) {
      assert.strictEqual(first(...query).text, "Fennel Health deploys on Thursdays", query.join(" "))
    }
    assert.strictEqual(first("postgres").text, "The billing data lives in PostgreSQL 16")
    assert.strictEqual(first("2026-03-02").text, "The billing data lives in PostgreSQL 16")
    assert.isAbove(first("deploy").score, 0)
    assert.strictEqual(ok(run("recall", "deploy")), "own  -  Fennel Health deploys on Thursdays\n")
  })

  it("--team reads only team memory", () => {
    const { run } = seeded()
    assert.strictEqual(ok(run("recall", "--team")), "team  -  Everyone drinks green juice\n")
    assert.strictEqual(ok(run("recall", "green", "--team")), "team  -  Everyone drinks green juice\n")
    const json = JSON.parse(ok(run("recall", "--team", "--json")))
    assert.deepStrictEqual(
      json.entries.map((entry: { scope: string; text: string }) => [entry.scope, entry.text]),
      [["team", "Everyone drinks green juice"]]
    )
  })

  it("keeps its columns aligned when a topic is CJK", () => {
    const { run } = seeded()
    assert.deepStrictEqual(ok(run("recall")).trimEnd().split("\n"), [
      "own   -     The user likes green tea",
      "own   -     Tea is served at noon",
      "own   旅行  Kyoto in spring",
      "team  -     Everyone drinks green juice"
    ])
    assert.strictEqual(ok(run("recall", "--topic", "旅行")), "own  旅行  Kyoto in spring\n")
  })

  it("--topic that does not exist fails (exit 1), names the topics there are, and changes nothing", () => {
    const { dir, memory, run } = seeded()
    ok(run("remember", "Oolong in the afternoon", "--topic", "tea"))
    const before = files(dir)
    assertFailure(
      run("recall", "--topic", "nope"),
      1,
      'there is no topic "nope" in agents/default or team; the topics are tea, 旅行'
    )
    assertFailure(
      run("recall", "--topic", "tea", "--team"),
      1,
      'there is no topic "tea" in team; there are no topics yet'
    )
    assertFailure(run("recall", "--topic", "../x"), 1, '"../x" is not a topic name')
    assert.deepStrictEqual(files(dir), before)

    // Many topics are not all listed (the agent's recall tool gives the same message).
    const own = join(memory, "agents/default")
    for (let i = 1; i <= 11; i++) writeFileSync(join(own, `t${i}.md`), `# t${i}\n\n- Fact ${i}\n`)
    assertFailure(
      run("recall", "--topic", "nope"),
      1,
      'there is no topic "nope" in agents/default or team; the topics are t1, t10, t11, t2, t3, t4, t5, t6, t7, t8 and 3 more'
    )
  })

  it("--topic on a memory folder with no memory yet says there are no topics, and creates nothing", () => {
    const { memory, run } = folder()
    mkdirSync(memory)
    assertFailure(
      run("recall", "--topic", "tea"),
      1,
      'there is no topic "tea" in agents/default or team; there are no topics yet'
    )
    assert.deepStrictEqual(readdirSync(memory), [])
  })
})

describe("forget and edit that find nothing where they look, but would elsewhere (issue 9)", () => {
  it("say which file holds it and the flags that reach it (exit 1, NoMatch), changing nothing", () => {
    const { dir, memory, run } = folder()
    ok(run("remember", "The user likes green tea"))
    ok(run("remember", "Oolong in the afternoon", "--topic", "tea"))
    ok(run("remember", "The team ships on Fridays", "--team"))
    const before = files(dir)

    assertFailure(
      run("forget", "Fridays"),
      1,
      'no entry in agents/default/MEMORY.md holds "Fridays", but team/MEMORY.md does: run it again with --team'
    )
    assertFailure(
      run("edit", "fridays", "The team ships on Thursdays"),
      1,
      'no entry in agents/default/MEMORY.md holds "fridays", but team/MEMORY.md does: run it again with --team'
    )
    assertFailure(
      run("forget", "green tea", "--team"),
      1,
      'no entry in team/MEMORY.md holds "green tea", but agents/default/MEMORY.md does: run it again without --team'
    )
    assertFailure(
      run("forget", "Oolong"),
      1,
      'no entry in agents/default/MEMORY.md holds "Oolong", but agents/default/tea.md does: run it again with --topic tea'
    )
    const json = run("forget", "Fridays", "--json")
    assert.strictEqual(json.code, 1)
    const failure = JSON.parse(json.stdout)
    assert.strictEqual(failure.error.tag, "NoMatch")
    assert.include(failure.error.message, "run it again with --team")
    assert.deepStrictEqual(files(dir), before)

    const nowhere = run("forget", "coffee")
    assertFailure(nowhere, 1, 'no entry in agents/default/MEMORY.md holds "coffee"')
    assert.notInclude(nowhere.stderr, "but")

    ok(run("forget", "Fridays", "--team"))
    assert.notInclude(readFileSync(join(memory, "team/MEMORY.md"), "utf8"), "Fridays")
  })

  it("name every file that would match, when several do", () => {
    const { run } = folder()
    ok(run("remember", "Green tea in the morning", "--topic", "tea"))
    ok(run("remember", "The team likes green tea", "--team"))
    assertFailure(
      run("forget", "green tea"),
      1,
      'no entry in agents/default/MEMORY.md holds "green tea", but these do: agents/default/tea.md (with --topic tea), team/MEMORY.md (with --team)'
    )
  })
})

describe("mneme journal --agent (issue 9)", () => {
  const seeded = () => {
    const at = folder()
    ok(at.run("remember", "Ada likes maps"))
    ok(at.run("remember", "Bob likes trains", "--agent", "bob"))
    ok(at.run("remember", "The team ships on Fridays", "--team"))
    ok(at.run("remember", "Ada walks to work"))
    return at
  }

  /** The `op file` of each change a human journal shows. */
  const heads = (stdout: string) =>
    stdout
      .split("\n")
      .filter((line) => /^\d{4}-/.test(line))
      .map((line) => line.replace(/^\S+ \S+ UTC {2}/, "").replace(/ {2}by cli$/, ""))

  it("shows the changes to the agent's own memory and the team's, in journal order", () => {
    const { run } = seeded()
    assert.deepStrictEqual(heads(ok(run("journal"))), [
      "add      agents/default/MEMORY.md",
      "add      team/MEMORY.md",
      "add      agents/default/MEMORY.md"
    ])
    assert.deepStrictEqual(heads(ok(run("journal", "--agent", "bob"))), [
      "add      agents/bob/MEMORY.md",
      "add      team/MEMORY.md"
    ])
    const json = JSON.parse(ok(run("journal", "--agent", "bob", "--json")))
    assert.deepStrictEqual(
      json.journal.map((line: { file: string; after: string }) => [line.file, line.after.replace(/ \[added: .*$/, "")]),
      [
        ["agents/bob/MEMORY.md", "- Bob likes trains"],
        ["team/MEMORY.md", "- The team ships on Fridays"]
      ]
    )
  })

  it("--limit counts the agent's changes; --team is the team's only; --all is every agent's", () => {
    const { run } = seeded()
    assert.deepStrictEqual(heads(ok(run("journal", "--limit", "1"))), ["add      agents/default/MEMORY.md"])
    assert.deepStrictEqual(heads(ok(run("journal", "--agent", "bob", "--limit", "1"))), ["add      team/MEMORY.md"])
    assert.deepStrictEqual(heads(ok(run("journal", "--team"))), ["add      team/MEMORY.md"])
    assert.deepStrictEqual(heads(ok(run("journal", "--all"))), [
      "add      agents/default/MEMORY.md",
      "add      agents/bob/MEMORY.md",
      "add      team/MEMORY.md",
      "add      agents/default/MEMORY.md"
    ])
    assertFailure(run("journal", "--team", "--all"), 2, "--team and --all cannot be used together")
  })

  it("an agent with no changes of its own still sees the team's; nothing at all says so", () => {
    const { memory, run } = folder()
    mkdirSync(memory)
    assert.strictEqual(
      ok(run("journal", "--agent", "nobody")),
      'the journal holds no change to the own memory of agent "nobody" or to team memory\n'
    )
    ok(run("remember", "The team ships on Fridays", "--team"))
    assert.deepStrictEqual(heads(ok(run("journal", "--agent", "nobody"))), ["add      team/MEMORY.md"])
  })
})

describe("mneme journal --verbose warns of a damaged line once a run (issue 22 item 19)", () => {
  it("whether it reads the agent's and the team's changes, the team's only, or every agent's", () => {
    const { memory, run } = folder()
    ok(run("remember", "Ada likes maps"))
    ok(run("remember", "The team ships on Fridays", "--team"))
    const journal = join(memory, "journal.jsonl")
    const [first, ...rest] = readFileSync(journal, "utf8").split("\n")
    writeFileSync(journal, [first, "this line is not a change", ...rest].join("\n"))
    const warning = "mneme: journal.jsonl has 1 damaged line(s), skipped (line 2)"
    for (const flags of [[], ["--team"], ["--all"]]) {
      const result = run("journal", "--verbose", ...flags)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr.split(warning).length - 1, 1, `${flags.join(" ")}: ${result.stderr}`)
      assert.include(result.stdout, "team/MEMORY.md")
    }
    // The records on either side of the damaged line are both shown.
    const shown = ok(run("journal"))
    assert.include(shown, "Ada likes maps")
    assert.include(shown, "The team ships on Fridays")
  })
})

describe("a read of a memory folder that does not exist says so (issue 22 item 17)", () => {
  /** Every command that only reads memory. */
  const reads = [["show"], ["recall", "tea"], ["recall", "--topic", "tea"], ["journal"], ["agents"], ["export", "out"]]

  it("names the folder and fails (exit 1), as one JSON error with --json, and creates nothing", () => {
    const { dir, run } = folder()
    const missing = join(dir, "does-not-exist")
    const message = `there is no memory folder at ./does-not-exist (${missing}): check --memory`
    for (const command of reads) {
      const human = run(...command, "--memory", "./does-not-exist")
      assertFailure(human, 1, message)
      assert.strictEqual(human.stdout, "", command.join(" "))
      const json = run(...command, "--memory", "./does-not-exist", "--json")
      assert.strictEqual(json.code, 1, command.join(" "))
      const document = JSON.parse(json.stdout) as { ok: boolean; error: { tag: string; message: string } }
      assert.deepStrictEqual([document.ok, document.error.tag], [false, "NoMemoryFolder"], command.join(" "))
      assert.include(document.error.message, message)
      assert.strictEqual(json.stderr, `mneme: ${document.error.message}\n`)
    }
    // The default ./memory too; nothing was made, not even the export's folder.
    assertFailure(run("show"), 1, `there is no memory folder at ./memory (${join(dir, "memory")})`)
    assert.deepStrictEqual(readdirSync(dir), [])
  })

  it("a typo of a memory folder that exists is not shown as empty memory; a write still makes a new folder", () => {
    const { dir, memory, run } = folder()
    ok(run("remember", "The user likes green tea"))
    assertFailure(run("show", "--memory", "./memroy"), 1, "there is no memory folder at ./memroy")
    assert.include(ok(run("show", "--memory", "./memory")), "The user likes green tea")
    // remember is a write: it makes the folder it is given.
    ok(run("remember", "The user likes maps", "--memory", "./other"))
    assert.include(ownMemory(join(dir, "other")), "The user likes maps")
    assert.include(ownMemory(memory), "The user likes green tea")
  })
})

describe('--agent "" is refused (issue 9)', () => {
  it("by every command, as a usage error (exit 2), before anything is read or written", () => {
    const { dir, memory, run } = folder()
    writeFileSync(join(dir, "t.jsonl"), '{"seq":1,"who":"user","text":"I like tea"}\n')
    const commands = [
      ["review", "t.jsonl", "--model", "replay:none.jsonl"],
      ["show"],
      ["remember", "The user likes tea"],
      ["edit", "tea", "coffee"],
      ["forget", "tea"],
      ["recall", "tea"],
      ["journal"],
      ["undo"],
      ["agents"]
    ]
    const refused = (args: ReadonlyArray<string>) => {
      const result = run(...args)
      assert.strictEqual(result.code, 2, `${args.join(" ")}: ${result.stderr}`)
      assert.strictEqual(result.stdout, "")
      assert.match(result.stderr, /^mneme: .*--agent.*an agent id that is not empty\n/)
      assert.notInclude(result.stderr, "    at ")
    }
    for (const command of commands) refused([...command, "--agent", ""])
    refused(["remember", "The user likes tea", "--agent="])
    refused(["recall", "--agent", "  "])
    assert.isFalse(existsSync(memory))
  })

  it("refuses an agent id that looks like a secret, which would name a folder and be written into the journal", () => {
    const { memory, run } = folder()
    const key = "sk-proj-AbCdEf0123456789AbCdEf0123"
    for (const args of [
      ["remember", "The user likes tea", "--agent", key],
      ["review", "t.jsonl", "--model", "replay:none.jsonl", "--agent", `bot ${key}`],
      ["show", "--json", "--agent", "ghp_0123456789abcdefABCDEF0123456789abcd"]
    ]) {
      const result = run(...args)
      assert.strictEqual(result.code, 2, `${args.join(" ")}: ${result.stderr}`)
      const refusal = /--agent.*an agent id that does not look like a secret \(a key, a token, a password\)/
      assert.match(result.stderr, refusal)
      if (args.includes("--json")) {
        const { ok, error } = JSON.parse(result.stdout)
        assert.deepStrictEqual([ok, error.tag], [false, "InvalidValue"])
        assert.match(error.message, refusal)
      } else assert.strictEqual(result.stdout, "")
      assert.notInclude(result.stderr + result.stdout, key)
      assert.notInclude(result.stderr + result.stdout, "0123456789abcdefABCDEF")
    }
    assert.isFalse(existsSync(memory))
    assert.strictEqual(run("remember", "The user likes tea", "--agent", "sk-team").code, 0)
    assert.isTrue(existsSync(join(memory, "agents", "sk-team", "MEMORY.md")))
  })
})
