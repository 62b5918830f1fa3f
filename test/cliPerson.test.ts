/**
 * The `mneme` command as a person uses it (issue 9): the launcher run from a working folder of its own, with relative
 * paths; `--json` as exactly one JSON document on stdout, failures included; failures in the user's terms, never the
 * platform's internal names; numbers written one way; and the Node check of `bin/mneme.js`.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cli } from "@mneme/node"
import { Console, Effect, FileSystem, PlatformError } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { answers, assertFailure, mnemeIn, repo, type Run, scratch, transcript } from "./cliKit.ts"

/** The platform's and the libraries' own names and phrases, which a message for people never shows. */
const internalNames =
  /BadResource|NotFound:|AlreadyExists|PermissionDenied|PlatformError|SystemError|FileSystem\.|Expected a valid JSON|unexpected error|\bat \S+ \(|mneme-dry-run-/

/** A failure in the user's terms: one line on stderr with `parts`, no internal name, and nothing on stdout. */
const assertWorded = (run: Run, code: number, ...parts: ReadonlyArray<string>) => {
  assertFailure(run, code, ...parts)
  assert.notMatch(run.stderr, internalNames)
  assert.strictEqual(run.stdout, "")
}

/**
 * A failure with `--json`: the whole of stdout is one JSON document, `{"ok": false, "error": {tag, message}}`, whose
 * message is the first line on stderr (a usage error adds a pointer to the help there), and the exit code.
 */
const assertJsonFailure = (run: Run, code: number, tag: string, ...parts: ReadonlyArray<string>) => {
  assert.strictEqual(run.code, code, run.stderr)
  const first = run.stderr.split("\n")[0]!
  assert.isTrue(first.startsWith("mneme: "), run.stderr)
  const document = JSON.parse(run.stdout) as unknown
  assert.deepStrictEqual(document, { ok: false, error: { tag, message: first.slice("mneme: ".length) } })
  for (const part of parts) assert.include(first, part)
  assert.notMatch(run.stderr, internalNames)
}

/** A working folder with the example transcript and its recorded answers in it, under relative names. */
const workingFolder = () => {
  const { dir } = scratch()
  mkdirSync(join(dir, "chats"))
  writeFileSync(join(dir, "chats/tea.jsonl"), readFileSync(transcript))
  writeFileSync(join(dir, "answers.jsonl"), readFileSync(answers))
  return dir
}

describe("--json: exactly one JSON document on stdout, failures included", () => {
  it("each command's failure, the parser's usage errors and a bare mneme are one document, with the line on stderr", () => {
    const dir = workingFolder()
    writeFileSync(join(dir, "afile"), "x\n")
    const json = (...args: ReadonlyArray<string>) => mnemeIn(dir, [...args, "--json"])
    assertJsonFailure(
      json("review", "nope.jsonl", "--model", "replay:answers.jsonl"),
      1,
      "TranscriptError",
      "nope.jsonl"
    )
    assertJsonFailure(json("review", "chats/tea.jsonl"), 2, "UsageError", "no model configured")
    assertJsonFailure(json("review", "chats/tea.jsonl", "--model", "replay:none.jsonl"), 1, "ModelError", "none.jsonl")
    assertJsonFailure(json("review"), 2, "MissingArgument", "transcript")
    assertJsonFailure(json("show", "--memory", "afile"), 1, "StorageError", "is not a folder")
    assertJsonFailure(json("remember", "Dana drinks tea", "--memory", "afile"), 1, "StorageError", "is not a folder")
    assertJsonFailure(json("remember", "x".repeat(400)), 1, "Denied", "over the limit of 300")
    assertJsonFailure(json("forget", "coffee"), 1, "NoMatch", "coffee")
    assertJsonFailure(json("recall", "tea", "--memory", "afile"), 1, "StorageError", "is not a folder")
    assertJsonFailure(json("journal", "--memory", "afile"), 1, "StorageError", "is not a folder")
    assertJsonFailure(json("journal", "--limit", "0"), 2, "UsageError", "--limit")
    assertJsonFailure(json("journal", "--limit", "many"), 2, "InvalidValue", "--limit")
    assertJsonFailure(json("nope"), 2, "UnknownSubcommand", "nope")
    assertJsonFailure(json(), 2, "UsageError", "no command given", "review")
  })

  it("every command in the help, given a flag it does not know, fails as one JSON document (exit 2)", () => {
    const { dir } = scratch()
    const help = mnemeIn(dir, ["--help"])
    assert.strictEqual(help.code, 0, help.stderr)
    const commands = [
      ...help.stdout.slice(help.stdout.indexOf("SUBCOMMANDS")).matchAll(/^ {2}([a-z][a-z-]*) {2,}\S/gm)
    ].map((match) => match[1]!)
    for (const command of ["review", "show", "remember", "forget", "recall", "journal"]) {
      assert.include(commands, command, help.stdout)
    }
    for (const command of commands) {
      assertJsonFailure(mnemeIn(dir, [command, "--json", "--no-such-flag"]), 2, "UnrecognizedOption", "--no-such-flag")
    }
  })

  it("--json=yes and --json false are read as the parser reads them; --version prints its document", () => {
    const { dir } = scratch()
    assertJsonFailure(mnemeIn(dir, ["journal", "--limit", "0", "--json=yes"]), 2, "UsageError", "--limit")
    const plain = mnemeIn(dir, ["journal", "--limit", "0", "--json", "false"])
    assertWorded(plain, 2, "--limit")
    const version = mnemeIn(dir, ["--version", "--json"])
    assert.strictEqual(version.code, 0, version.stderr)
    assert.deepStrictEqual(JSON.parse(version.stdout), { name: "mneme", version: "0.1.0" })
  })

  it("a review that fails with --json prints its summary as the one document (ok false, exit 1)", () => {
    const dir = workingFolder()
    writeFileSync(join(dir, "empty.jsonl"), "")
    const run = mnemeIn(dir, ["review", "chats/tea.jsonl", "--model", "replay:empty.jsonl", "--json"])
    assert.strictEqual(run.code, 1, run.stderr)
    const summary = JSON.parse(run.stdout)
    assert.strictEqual(summary.ok, false)
    assert.include(summary.reason, "empty.jsonl holds no recorded answers")
    assert.deepStrictEqual(summary.error, { tag: "ModelError", message: summary.reason })
  })
})

describe("what a person might mistype", () => {
  it("an empty --memory is refused (exit 2), never the working folder taken for the memory folder", () => {
    const dir = workingFolder()
    const run = mnemeIn(dir, ["remember", "The user likes tea", "--memory", ""])
    assert.strictEqual(run.code, 2, run.stderr)
    assert.include(
      run.stderr,
      "mneme: Missing value for flag --memory. Expected: a memory folder (or a postgres:// URL) that is not empty"
    )
    assert.deepStrictEqual(readdirSync(dir).sort(), ["answers.jsonl", "chats"])
  })

  it("a dry run over a --memory that is a file says so in the user's terms, naming no temporary folder", () => {
    const dir = workingFolder()
    writeFileSync(join(dir, "afile"), "not a folder")
    const run = mnemeIn(dir, [
      "review",
      "chats/tea.jsonl",
      "--dry-run",
      "--memory",
      "afile",
      "--model",
      "replay:answers.jsonl"
    ])
    assertWorded(run, 1, `mneme: ${dir}/afile is not a folder`)
    assert.strictEqual(readFileSync(join(dir, "afile"), "utf8"), "not a folder")
  })

  it("a transcript line that is text, not JSON, is named with its number and what a line is", () => {
    const dir = workingFolder()
    writeFileSync(join(dir, "notes.jsonl"), '{"seq":1,"who":"user","text":"hi"}\nthe user likes tea\n')
    const run = mnemeIn(dir, ["review", "notes.jsonl", "--model", "replay:answers.jsonl"])
    assertWorded(
      run,
      1,
      'mneme: the transcript could not be read: notes.jsonl line 2: not a transcript line: each line is one JSON object, {"seq": 1, "who": "user", "text": "…"}'
    )
    assert.isFalse(existsSync(join(dir, "memory")))
  })
})

describe("failures in the user's terms, never the platform's names", () => {
  it("a transcript that is a folder, missing, binary, not UTF-8, under a file, a link loop or an empty path", () => {
    const dir = workingFolder()
    mkdirSync(join(dir, "adir"))
    writeFileSync(join(dir, "afile"), "x\n")
    writeFileSync(join(dir, "binary.jsonl"), Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x89, 0x50, 0x4e, 0x47, 0x0a]))
    writeFileSync(join(dir, "latin1.jsonl"), Buffer.from('{"seq":1,"who":"user","text":"caf\xe9"}\n', "latin1"))
    writeFileSync(join(dir, "nul.jsonl"), '{"seq":1,"who":"user","text":"tea"}\n\u0000\u0000\n')
    symlinkSync("loop-b", join(dir, "loop-a"))
    symlinkSync("loop-a", join(dir, "loop-b"))
    const review = (file: string) => mnemeIn(dir, ["review", file, "--model", "replay:answers.jsonl"])
    const cannot = "the transcript could not be read: "
    assertWorded(review("adir"), 1, `${cannot}adir is a folder, not a transcript file`)
    assertWorded(review("adir/"), 1, `${cannot}adir/ is a folder, not a transcript file`)
    assertWorded(review("nope.jsonl"), 1, `${cannot}nope.jsonl does not exist (looked for ${join(dir, "nope.jsonl")})`)
    assertWorded(review("binary.jsonl"), 1, `${cannot}binary.jsonl is not a text file`)
    assertWorded(review("latin1.jsonl"), 1, `${cannot}latin1.jsonl is not a text file`, "not UTF-8 text")
    assertWorded(review("nul.jsonl"), 1, `${cannot}nul.jsonl is not a text file`, "NUL bytes")
    assertWorded(review("afile/t.jsonl"), 1, "afile/t.jsonl cannot be read: a part of the path is a file, not a folder")
    assertWorded(review("loop-a"), 1, "loop-a cannot be read: too many links on the way")
    assertWorded(review(""), 1, `${cannot}"" names no transcript file: the path is empty`)
    assert.isFalse(existsSync(join(dir, "memory")), "a transcript that cannot be read changes no memory")
  })

  it("an empty transcript has nothing to review (exit 0)", () => {
    const dir = workingFolder()
    writeFileSync(join(dir, "empty.jsonl"), "")
    const run = mnemeIn(dir, ["review", "empty.jsonl", "--model", "replay:answers.jsonl"])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, "nothing new to review")
  })

  it("recorded answers that are missing, a folder, binary, of another shape, or empty", () => {
    const dir = workingFolder()
    mkdirSync(join(dir, "adir"))
    writeFileSync(join(dir, "binary.jsonl"), Buffer.from([0x00, 0x01, 0xff, 0x0a]))
    writeFileSync(join(dir, "shape.jsonl"), '{"answer":"{\\"changes\\":[]}"}\n{"text":"hello"}\n')
    writeFileSync(join(dir, "empty.jsonl"), "\n\n")
    const review = (file: string) => mnemeIn(dir, ["review", "chats/tea.jsonl", "--model", `replay:${file}`])
    const cannot = "the model failed: cannot read recorded answers"
    assertWorded(review("none.jsonl"), 1, `${cannot} none.jsonl: it does not exist (looked for ${dir}/none.jsonl)`)
    assertWorded(review("adir"), 1, `${cannot} adir: it is a folder, not a file`)
    assertWorded(review("binary.jsonl"), 1, `${cannot} binary.jsonl: it is not a text file`)
    assertWorded(review("shape.jsonl"), 1, 'shape.jsonl line 2 is not a recorded answer: each line is {"answer": "…"}')
    const empty = review("empty.jsonl")
    assertFailure(empty, 1, 'empty.jsonl holds no recorded answers: each line is {"answer": "…"} or {"error": "…"}')
    assert.notMatch(empty.stderr, internalNames)
  })

  it("a memory folder that is a file, under a file, or whose files are folders", () => {
    const dir = workingFolder()
    writeFileSync(join(dir, "afile"), "x\n")
    mkdirSync(join(dir, "odd/agents/default/MEMORY.md"), { recursive: true })
    mkdirSync(join(dir, "odd/journal.jsonl"), { recursive: true })
    const review = ["review", "chats/tea.jsonl", "--model", "replay:answers.jsonl"]
    assertWorded(mnemeIn(dir, ["show", "--memory", "afile"]), 1, `${dir}/afile is not a folder`)
    assertWorded(mnemeIn(dir, [...review, "--memory", "afile"]), 1, `${dir}/afile is not a folder`)
    assertWorded(mnemeIn(dir, ["remember", "Dana drinks tea", "--memory", "afile"]), 1, "afile is not a folder")
    assertWorded(mnemeIn(dir, ["show", "--memory", "afile/memory"]), 1, "a part of the path is a file, not a folder")
    assertWorded(
      mnemeIn(dir, [...review, "--dry-run", "--memory", "afile/memory"]),
      1,
      "afile/memory: a part of the path is a file, not a folder"
    )
    assertWorded(
      mnemeIn(dir, ["show", "--memory", "odd"]),
      1,
      "agents/default/MEMORY.md: could not read it: it is a folder, not a file"
    )
    assertWorded(mnemeIn(dir, ["journal", "--memory", "odd"]), 1, "journal.jsonl: could not read it: it is a folder")
  })

  it("a memory folder that cannot be made, as a file is in its way, is named beside that file (issue 22 item 18)", () => {
    const dir = workingFolder()
    writeFileSync(join(dir, "afile"), "x\n")
    const root = `the memory root ${dir}/afile/sub cannot be used`
    const blocked = `its folder cannot be made: ${dir}/afile is not a folder`
    assertWorded(mnemeIn(dir, ["remember", "Dana drinks tea", "--memory", "afile/sub"]), 1, `${root}: ${blocked}`)
    // A review reads the root's state first, and says the same of the root from there.
    assertWorded(
      mnemeIn(dir, ["review", "chats/tea.jsonl", "--model", "replay:answers.jsonl", "--memory", "afile/sub"]),
      1,
      `${root}: a part of the path is a file, not a folder`
    )
    assertJsonFailure(
      mnemeIn(dir, ["remember", "Dana drinks tea", "--memory", "afile/sub", "--json"]),
      1,
      "StorageError",
      `${root}: ${blocked}`
    )
    assert.strictEqual(readFileSync(join(dir, "afile"), "utf8"), "x\n")
    assert.deepStrictEqual(readdirSync(dir).sort(), ["afile", "answers.jsonl", "chats"])
  })
})

describe("failures the commands do not word themselves, as report words them", () => {
  /**
   * Runs the command line in this process, its output captured, over the real file system except for a path ending
   * in "trap": asking whether it exists (the first thing a dry run asks of its memory folder), or reading it, gives
   * `trapped`.
   */
  const runTrapped = (
    args: ReadonlyArray<string>,
    trapped: (path: string) => Effect.Effect<never, PlatformError.PlatformError>
  ) =>
    Effect.gen(function* () {
      const stdout: Array<string> = []
      const stderr: Array<string> = []
      const console: Console.Console = {
        ...globalThis.console,
        log: (...parts: ReadonlyArray<unknown>) => stdout.push(parts.join(" ")),
        error: (...parts: ReadonlyArray<unknown>) => stderr.push(parts.join(" "))
      }
      const real = yield* FileSystem.FileSystem
      const fs = FileSystem.FileSystem.of({
        ...real,
        exists: (path) => (path.endsWith("trap") ? trapped(path) : real.exists(path)),
        stat: (path) => (path.endsWith("trap") ? trapped(path) : real.stat(path)),
        readFile: (path) => (path.endsWith("trap") ? trapped(path) : real.readFile(path))
      })
      const exit = yield* Cli.run(args).pipe(
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provideService(Console.Console, console),
        Effect.flip
      )
      return {
        code: exit.code,
        stdout: stdout.length === 0 ? "" : `${stdout.join("\n")}\n`,
        stderr: `${stderr.join("\n")}\n`
      }
    }).pipe(Effect.provide(NodeServices.layer))

  it.live("the platform's failure names its path and says what is wrong in words, also with --json", () =>
    Effect.gen(function* () {
      const { dir } = scratch()
      const args = ["review", transcript, "--model", `replay:${answers}`, "--dry-run", "--memory", join(dir, "trap")]
      const denied = (path: string) =>
        Effect.fail(
          PlatformError.systemError({
            _tag: "PermissionDenied",
            module: "FileSystem",
            method: "stat",
            pathOrDescriptor: path
          })
        )
      assertWorded(yield* runTrapped(args, denied), 1, `mneme: ${join(dir, "trap")}: permission denied`)
      assertJsonFailure(yield* runTrapped([...args, "--json"], denied), 1, "PlatformError", "permission denied")
    })
  )

  it.live("a transcript the system will not let mneme read says so, by its name", () =>
    Effect.gen(function* () {
      const locked = (path: string) =>
        Effect.fail(
          PlatformError.systemError({
            _tag: "PermissionDenied",
            module: "FileSystem",
            method: "readFile",
            pathOrDescriptor: path,
            cause: Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: "EACCES" })
          })
        )
      const { memory } = scratch()
      const run = yield* runTrapped(["review", "chat.trap", "--model", `replay:${answers}`, "--memory", memory], locked)
      assertWorded(run, 1, "mneme: the transcript could not be read: chat.trap cannot be read: permission denied")
      const answersLocked = yield* runTrapped(
        ["review", transcript, "--model", "replay:answers.trap", "--memory", memory],
        locked
      )
      assertWorded(answersLocked, 1, "cannot read recorded answers answers.trap: it cannot be read: permission denied")
    })
  )

  it.live("a defect says it is a bug and how to see more, never a bare stack", () =>
    Effect.gen(function* () {
      const { dir } = scratch()
      const args = ["review", transcript, "--model", `replay:${answers}`, "--dry-run", "--memory", join(dir, "trap")]
      const boom = () => Effect.die(new TypeError("boom"))
      const run = yield* runTrapped(args, boom)
      assertFailure(
        run,
        1,
        "mneme itself failed, which is a bug (run again with --verbose to see where, and report it): boom"
      )
      assert.notInclude(run.stderr, "unexpected error")
      assertJsonFailure(yield* runTrapped([...args, "--json"], boom), 1, "TypeError", "which is a bug")
    })
  )
})

describe("numbers are written one way: 4,000", () => {
  it("sizes and limits in failures and in show", () => {
    const { dir } = scratch()
    const long = mnemeIn(dir, ["remember", "a".repeat(1500)], { env: { MNEME_ENTRY_MAX: "1000" } })
    assertWorded(long, 1, "the entry is 1,500 characters, over the limit of 1,000")
    const full = mnemeIn(dir, ["remember", `Dana ${"b".repeat(200)}`], { env: { MNEME_MEMORY_MAX: "10" } })
    assertWorded(full, 1, "of its 10 characters")
    assert.match(full.stderr, /would hold \d{3} of its 10 characters \(\d,\d{3}%\)/)
    const shown = mnemeIn(dir, ["show"], { env: { MNEME_MEMORY_MAX: "12000", MNEME_TOPIC_MAX: "25000" } })
    assert.strictEqual(shown.code, 0, shown.stderr)
    assert.include(shown.stdout, "0 / 12,000")
    assert.notMatch(shown.stdout, /\d{4}/)
  })
})

describe("the launcher, packages/node/bin/mneme", () => {
  it("resolves a relative transcript, recorded answers and --memory from the caller's working folder", () => {
    const dir = workingFolder()
    mkdirSync(join(dir, "deeper"))
    const run = mnemeIn(join(dir, "deeper"), [
      "review",
      "../chats/tea.jsonl",
      "--model",
      "replay:../answers.jsonl",
      "--memory",
      "mem",
      "--json"
    ])
    assert.strictEqual(run.code, 0, run.stderr)
    const summary = JSON.parse(run.stdout)
    assert.strictEqual(summary.transcript, "tea")
    assert.strictEqual(summary.memory, "mem")
    assert.include(readFileSync(join(dir, "deeper/mem/agents/default/MEMORY.md"), "utf8"), "Dana drinks oolong tea")
    assert.isFalse(existsSync(join(repo, "mem")), "nothing is written beside the launcher")
    const again = mnemeIn(join(dir, "deeper"), ["recall", "oolong", "--memory", "mem"])
    assert.strictEqual(again.code, 0, again.stderr)
    assert.include(again.stdout, "Dana drinks oolong tea")
  })

  it("prints --version and --help from any folder", () => {
    const { dir } = scratch()
    for (const cwd of [dir, "/"]) {
      const version = mnemeIn(cwd, ["--version"])
      assert.strictEqual(version.code, 0, version.stderr)
      assert.strictEqual(version.stdout.trim(), "mneme v0.1.0")
      const help = mnemeIn(cwd, ["--help"])
      assert.strictEqual(help.code, 0, help.stderr)
      assert.include(help.stdout, "USAGE")
      assert.include(help.stdout, "review")
      assert.strictEqual(help.stderr, "")
    }
  })
})

describe("bin/mneme.js checks the Node it runs on", () => {
  const script = join(repo, "packages/node/bin/mneme.js")
  /** mneme.js under this machine's Node, made to say it is `version` (an `--import` that runs before it). */
  const under = (version: string, args: ReadonlyArray<string>) => {
    const pretend =
      `Object.defineProperty(process, "versions", { value: { ...process.versions, node: ${JSON.stringify(version)} } });` +
      `Object.defineProperty(process, "version", { value: ${JSON.stringify(`v${version}`)} })`
    const result = spawnSync(process.execPath, ["--import", `data:text/javascript,${pretend}`, script, ...args], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" }
    })
    return { code: result.status, stdout: result.stdout, stderr: result.stderr }
  }

  it("a Node older than 22.19 gets one line that says what to do, wherever mneme is installed, and exit 2", () => {
    for (const version of ["20.11.1", "22.18.0", "18.0.0"]) {
      const run = under(version, ["--version"])
      assertWorded(run, 2, `needs Node.js 22.19 or newer, and this is v${version}`, "install Node.js 22.19 or newer")
      // The installed command has no checkout around it: the line names nothing of one.
      assert.notMatch(run.stderr, /checkout|toolchain|packages\//)
    }
  })

  it("Node 22.19 and newer run the command", () => {
    for (const version of ["22.19.0", "23.1.0", "24.0.0"]) {
      const run = under(version, ["--version"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout.trim(), "mneme v0.1.0")
    }
  })
})
