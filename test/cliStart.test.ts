/**
 * The command starts at once without changing what it does: `--version` is answered before the parser is loaded,
 * and a command line that names its command loads that command alone; each prints what the parser with every command
 * loaded prints (a command line the quick ways leave alone is the measure: `--verbose` before `--version`,
 * `--log-level` before the command). How fast it starts, `pnpm bench cli` measures.
 */
import { assert, describe, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
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
