/**
 * Builds the CLI's `dist/` once before the tests (vitest's global set-up), so the tests run the command as a person
 * does, and no two test files build it at once.
 */
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const repo = fileURLToPath(new URL("..", import.meta.url))

export default function setup() {
  execFileSync(
    process.execPath,
    [join(repo, "node_modules/typescript/bin/tsc"), "-b", "packages/node/tsconfig.build.json"],
    {
      cwd: repo,
      stdio: "inherit"
    }
  )
}
