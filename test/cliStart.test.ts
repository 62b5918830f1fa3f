/**
 * The command starts at once without changing what it does: `--version` is answered before the parser is loaded,
 * and a command line that names its command loads that command alone; each prints what the parser with every command
 * loaded prints (a command line the quick ways leave alone is the measure: `--verbose` before `--version`,
 * `--log-level` before the command); with the code bin/mneme.js keeps from an earlier run, or none, or some it
 * cannot use, it does the same. How fast it starts, `pnpm bench cli` measures.
 */
import { assert, describe, it } from "@effect/vitest"
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { mneme, mnemeIn, scratch } from "./cliKit.ts"

describe("mneme --version, answered before the parser is loaded", () => {
  it("prints what the parser prints, in colour where it would be, and as JSON with --json", () => {
    const colours: ReadonlyArray<Record<string, string>> = [
      { NO_COLOR: "1" },
      { NO_COLOR: "", FORCE_COLOR: "1" },
      { NO_COLOR: "", FORCE_COLOR: "1", TERM: "dumb" },
      { NO_COLOR: "", FORCE_COLOR: "false" },
      { NO_COLOR: "1", FORCE_COLOR: "1" }
    ]
    const requests = [["--version"], ["-v"], ["--version", "--json"], ["--json", "-v"]]
    const seen = new Set<string>()
    for (const env of colours) {
      for (const args of requests) {
        const quick = mneme(args, env)
        const parsed = mneme(["--verbose", ...args], env)
        assert.strictEqual(quick.code, 0, quick.stderr)
        assert.deepStrictEqual(quick, parsed, `${JSON.stringify(env)} ${args.join(" ")}`)
        seen.add(quick.stdout)
      }
    }
    assert.deepStrictEqual(
      [...seen].sort(),
      [
        "\x1b[1mmneme\x1b[0m \x1b[2mv\x1b[0m\x1b[1m0.1.0\x1b[0m\n",
        `${JSON.stringify({ name: "mneme", version: "0.1.0" }, null, 2)}\n`,
        "mneme v0.1.0\n"
      ].sort()
    )
  })
})

describe("a command line that names its command loads that command alone", () => {
  it("prints what it prints with every command loaded: help, usage errors, output and failures", () => {
    // Two working folders that go through the same changes, one for each way.
    const [alone, all] = [scratch().dir, scratch().dir]
    for (const dir of [alone, all]) writeFileSync(join(dir, "afile"), "not a folder")
    const commandLines: ReadonlyArray<ReadonlyArray<string>> = [
      ["show", "--help"],
      ["remember", "--help"],
      ["review", "--help"],
      ["export", "--help"],
      ["show", "--no-such-flag"],
      ["show", "--json", "--no-such-flag"],
      ["recall"],
      ["journal", "--limit", "0", "--json"],
      ["remember", "Dana drinks oolong tea", "--memory", "memory"],
      ["--memory", "memory", "show", "--json"],
      ["show", "--memory", "afile"],
      ["--json", "recall", "tea", "--memory", "memory"],
      ["forget", "coffee", "--memory", "memory"]
    ]
    /** A run in `dir`, with that folder's path written as DIR. */
    const run = (dir: string, args: ReadonlyArray<string>) => {
      const { code, stdout, stderr } = mnemeIn(dir, args)
      return { code, stdout: stdout.replaceAll(dir, "DIR"), stderr: stderr.replaceAll(dir, "DIR") }
    }
    for (const args of commandLines) {
      assert.deepStrictEqual(run(alone, args), run(all, ["--log-level", "none", ...args]), args.join(" "))
    }
  })
})

describe("the code bin/mneme.js keeps from run to run", () => {
  /** The files of kept code under `base` (NODE_COMPILE_CACHE), each with its bytes. */
  const keptUnder = (base: string): Map<string, Buffer> => {
    const files = new Map<string, Buffer>()
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) walk(path)
        else files.set(path.slice(base.length), readFileSync(path))
      }
    }
    walk(base)
    return files
  }

  it("is kept per command after a run, and used, remade where damaged, or left off, without changing the output", () => {
    const { dir } = scratch()
    const memory = join(dir, "memory")
    const base = join(dir, "cache")
    assert.strictEqual(
      mneme(["remember", "Dana drinks oolong tea", "--memory", memory], { NODE_COMPILE_CACHE: base }).code,
      0
    )
    const show = (env: Record<string, string>) => mneme(["show", "--memory", memory, "--json"], env)
    const without = show({ NODE_DISABLE_COMPILE_CACHE: "1", NODE_COMPILE_CACHE: base })
    assert.strictEqual(without.code, 0, without.stderr)
    const before = keptUnder(base)
    assert.isTrue([...before.keys()].some((file) => /[\\/]remember[\\/]main-[^/\\]+\.cjs\.\d+\.bin$/.test(file)))
    assert.isFalse(
      [...before.keys()].some((file) => /[\\/]show[\\/]/.test(file)),
      "nothing is kept with it off"
    )

    assert.deepStrictEqual(show({ NODE_COMPILE_CACHE: base }), without, "the run that keeps it")
    const kept = keptUnder(base)
    const ofShow = [...kept.keys()].filter((file) => /[\\/]show[\\/]/.test(file))
    assert.isTrue(
      ofShow.some((file) => /[\\/]main-[^/\\]+\.cjs\.\d+\.bin$/.test(file)),
      ofShow.join(", ")
    )
    assert.isTrue(
      ofShow.some((file) => /[\\/]show-[^/\\]+\.cjs\.\d+\.bin$/.test(file)),
      ofShow.join(", ")
    )
    assert.deepStrictEqual(show({ NODE_COMPILE_CACHE: base }), without, "a run over the kept code")
    assert.deepStrictEqual(keptUnder(base), kept, "kept code that was used is left as it is")

    // Damaged: V8 refuses it, the file is compiled afresh and its code kept again.
    for (const file of ofShow) writeFileSync(join(base, file), "not V8's code")
    assert.deepStrictEqual(show({ NODE_COMPILE_CACHE: base }), without, "a run over damaged kept code")
    for (const file of ofShow) assert.notStrictEqual(readFileSync(join(base, file), "utf8"), "not V8's code", file)
  })

  it("is neither read nor written where others could write to its folder", () => {
    const { dir } = scratch()
    const memory = join(dir, "memory")
    const base = join(dir, "cache")
    assert.strictEqual(
      mneme(["remember", "Dana drinks oolong tea", "--memory", memory], { NODE_COMPILE_CACHE: base }).code,
      0
    )
    const [folder] = readdirSync(base)
    const mine = join(base, folder!)
    assert.strictEqual(statSync(mine).mode & 0o777, 0o700)
    const [install] = readdirSync(mine)
    rmSync(join(mine, install!), { recursive: true })
    chmodSync(mine, 0o777)
    const run = mneme(["show", "--memory", memory], { NODE_COMPILE_CACHE: base })
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, "Dana drinks oolong tea")
    assert.deepStrictEqual(keptUnder(mine), new Map())

    // Its own folder kept to this user, but in one where others could rename it.
    chmodSync(mine, 0o700)
    chmodSync(base, 0o777)
    const again = mneme(["show", "--memory", memory], { NODE_COMPILE_CACHE: base })
    assert.strictEqual(again.code, 0, again.stderr)
    assert.include(again.stdout, "Dana drinks oolong tea")
    assert.deepStrictEqual(keptUnder(mine), new Map())
    chmodSync(base, 0o700)
  })
})
