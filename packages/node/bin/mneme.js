#!/usr/bin/env node
// The installed `mneme` command: checks the Node it runs on, then runs the bundled command line (dist/cli/, built by
// the package's build). Kept in plain JavaScript that any Node parses, so an older Node gets one line that says what
// to do instead of a crash inside Effect; the bundle is imported only after the check.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `mneme: needs Node.js 22.19 or newer, and this is ${process.version}: ` +
      "install Node.js 22.19 or newer (https://nodejs.org) and put it first on PATH\n"
  )
  process.exit(2)
}
try {
  await import("../dist/cli/mneme.js")
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist")) throw error
  process.stderr.write(
    "mneme: the command is not built yet: run pnpm build in the checkout (or bash scripts/main.sh)\n"
  )
  process.exit(2)
}
