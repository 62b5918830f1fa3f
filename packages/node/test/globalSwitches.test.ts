import { assert, describe, it } from "@effect/vitest"
import { globalSwitches } from "../src/internal/cli/globalSwitches.ts"

describe("globalSwitches: --json and --verbose, read before the command line is parsed", () => {
  it("reads each as the parser reads a boolean flag, the last one winning", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, { json: boolean; verbose: boolean }]> = [
      [["show"], { json: false, verbose: false }],
      [["show", "--json", "--verbose"], { json: true, verbose: true }],
      [["--json=yes", "--verbose=on", "show"], { json: true, verbose: true }],
      [["show", "--json", "false", "--verbose", "no"], { json: false, verbose: false }],
      [["show", "--json", "--no-json", "--verbose", "--no-verbose"], { json: false, verbose: false }],
      [["show", "--no-json", "--json"], { json: true, verbose: false }],
      [["show", "--json=off", "--verbose=TRUE"], { json: false, verbose: true }],
      [["show", "--json"], { json: true, verbose: false }]
    ]
    for (const [args, switches] of cases) assert.deepStrictEqual(globalSwitches(args), switches, args.join(" "))
  })

  it("takes no argument after -- for a switch: those are values", () => {
    assert.deepStrictEqual(globalSwitches(["remember", "--", "--json", "--verbose"]), { json: false, verbose: false })
    assert.deepStrictEqual(globalSwitches(["remember", "--json", "--", "false"]), { json: true, verbose: false })
  })
})
