/**
 * Builds the CLI's `dist/` once before the tests (vitest's global set-up), as `pnpm build` does (the compiled modules,
 * then the bundle bin/mneme.js runs), so the tests run the command as a person does, and no two test files build it
 * at once.
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
  const pkg = join(repo, "packages/node")
  execFileSync(
    process.execPath,
    [join(pkg, "node_modules/rolldown/bin/cli.mjs"), "-c", "rolldown.config.ts", "--logLevel", "warn"],
    { cwd: pkg, stdio: ["ignore", "ignore", "inherit"] }
  )
}
