#!/usr/bin/env node
/**
 * The `mneme` executable: runs the command line on Node with the process's arguments. Exit codes: 0 done, 1 an
 * operation failed, 2 usage or configuration (see `Cli`). A command line that asks only for the version is answered
 * here, before effect is loaded; any other turns on Node's compile cache, then loads the command line and the one
 * command it runs.
 */
import { enableCompileCache } from "node:module"
import { versionOutput } from "./internal/cli/version.ts"

const args = process.argv.slice(2)
const versionAsked = versionOutput(args, {
  noColor: process.env["NO_COLOR"],
  forceColor: process.env["FORCE_COLOR"],
  term: process.env["TERM"],
  stdoutIsTerminal: process.stdout.isTTY === true
})
if (versionAsked !== undefined) process.stdout.write(versionAsked)
else {
  // Node's compile cache (in the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off) spares the
  // command compiling again on every run after the first the modules Node loads: all of them unbundled; bundled, those
  // from outside the bundle (the Postgres backend), as bin/mneme.js keeps the code of the bundle's own.
  enableCompileCache()
  void import("./internal/cli/main.ts").then(({ main }) => main(args))
}
