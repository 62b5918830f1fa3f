import { assert, describe, it } from "@effect/vitest"
import { commandOf } from "../src/internal/cli/commandChoice.ts"

const names = new Set(["show", "remember", "review"])

describe("commandOf: the command a command line runs, told before parsing", () => {
  it("is the first word after the global flags before it, in every way they are written", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["show"], "show"],
      [["show", "--help"], "show"],
      [["remember", "--memory", "review"], "remember"],
      [["--memory", "mem", "show", "--json"], "show"],
      [["--memory", "show", "remember", "tea"], "remember"],
      [["--memory=mem", "--agent", "a", "--json", "remember", "tea"], "remember"],
      [["--agent=a", "--verbose", "--no-json", "--no-verbose", "review", "chat.jsonl"], "review"],
      [["--json=yes", "--verbose=false", "show"], "show"]
    ]
    for (const [args, command] of cases) assert.strictEqual(commandOf(args, names), command, args.join(" "))
  })

  it("is none wherever the parser could read the command line otherwise, so every command is loaded", () => {
    const cases: ReadonlyArray<ReadonlyArray<string>> = [
      [],
      ["nope"],
      ["--help"],
      ["-h", "show"],
      ["--version", "show"],
      ["--log-level", "info", "show"],
      ["--no-such-flag", "show"],
      ["--json", "true", "show"],
      ["--memory"],
      ["--memory", "-m", "show"],
      ["--memory", "--", "show"],
      ["--", "show"],
      ["--no-json=yes", "show"],
      ["-", "show"]
    ]
    for (const args of cases) assert.isUndefined(commandOf(args, names), args.join(" "))
  })
})
