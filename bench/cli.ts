/**
 * How long the `mneme` command takes to start and end, as a person runs it (bin/mneme.js, over the bundle `pnpm
 * build` makes): `mneme --version`, and `mneme show` on a small memory folder, each as the median of cold processes
 * taken in turns with `node -e 0` (the baseline: what starting Node alone takes on this machine right now), so a
 * change in the machine's load falls on both alike. A busy machine still stretches a longer process more than
 * `node -e 0`: each note gives the load average, and the goals are for a quiet machine: `--version` within 2× of the
 * baseline, `show` within 3.5×. Beside them, for what each way in pays: `show` without the code kept from earlier
 * runs (NODE_DISABLE_COMPILE_CACHE=1: neither V8's code bin/mneme.js keeps nor Node's compile cache), and over the
 * unbundled modules `tsc` writes (Node's compile cache on). The suite builds the command first.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Figure, summarize, type Suite } from "./Bench.ts"

const repo = fileURLToPath(new URL("..", import.meta.url))
const pkg = join(repo, "packages/node")

/** How many cold processes each figure is the median of. */
const runs = 11

/** One way to run a process: its name in the table, its arguments to Node, and what it adds to the environment. */
interface Way {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
}

/** Builds the command as `pnpm build` does: the compiled modules, then the bundle. */
const build = () => {
  for (const [cwd, args] of [
    [repo, [join(repo, "node_modules/typescript/bin/tsc"), "-b", "packages/node/tsconfig.build.json"]],
    [pkg, [join(pkg, "node_modules/rolldown/bin/cli.mjs"), "-c", "rolldown.config.ts", "--logLevel", "warn"]]
  ] as const) {
    const done = spawnSync(process.execPath, args, { cwd, encoding: "utf8" })
    if (done.status !== 0) throw new Error(`building the command failed: ${done.stdout}${done.stderr}`)
  }
}

/** Runs `way` once from `cwd` and gives the milliseconds from spawn to exit; a failed run ends the suite. */
const timed = (way: Way, cwd: string, env: Record<string, string>): number => {
  const started = performance.now()
  const done = spawnSync(process.execPath, way.args, { cwd, encoding: "utf8", env: { ...env, ...way.env } })
  const ms = performance.now() - started
  if (done.status !== 0) throw new Error(`${way.name} failed (exit ${done.status}): ${done.stderr}`)
  return ms
}

export const suite: Suite = async () => {
  build()
  const scratch = mkdtempSync(join(tmpdir(), "mneme-bench-cli-"))
  try {
    const bin = join(pkg, "bin/mneme.js")
    // The code the command keeps where it keeps it, made by the first run of each way, as after a person's first run.
    const env = { ...process.env, NO_COLOR: "1" }
    const mneme = (name: string, args: ReadonlyArray<string>, extra?: Record<string, string>): Way => ({
      name,
      args: [bin, ...args],
      ...(extra === undefined ? {} : { env: extra })
    })
    for (const fact of ["Dana drinks oolong tea", "Dana's team plans on Mondays", "Dana deploys with make ship"]) {
      timed(mneme("remember", ["remember", fact, "--memory", "memory"]), scratch, env)
    }
    const baseline: Way = { name: "node -e 0", args: ["-e", "0"] }
    const measured: ReadonlyArray<{ readonly way: Way; readonly goal?: number; readonly note: string }> = [
      { way: mneme("mneme --version", ["--version"]), goal: 2, note: "answered before effect is loaded" },
      {
        way: mneme("mneme show (3 entries)", ["show", "--memory", "memory"]),
        goal: 3.5,
        note: "the bundle's scripts, the show command's chunk only, V8's code kept from earlier runs"
      },
      {
        way: mneme("mneme show, no kept code", ["show", "--memory", "memory"], { NODE_DISABLE_COMPILE_CACHE: "1" }),
        note: "what the code kept from earlier runs saves"
      },
      {
        way: { name: "mneme show, unbundled", args: [join(pkg, "dist/bin.js"), "show", "--memory", "memory"] },
        note: "the modules tsc writes, loaded one by one (compile cache on): what the bundle saves"
      }
    ]
    const ways = [baseline, ...measured.map(({ way }) => way)]
    for (const way of ways) timed(way, scratch, env)
    // In turns, so a change in the machine's load falls on every way alike.
    const samples = ways.map(() => [] as Array<number>)
    for (let run = 0; run < runs; run++) ways.forEach((way, i) => samples[i]!.push(timed(way, scratch, env)))
    const [base, ...rest] = samples.map((times) => summarize(times).medianMs)
    const load = loadavg()[0]!.toFixed(1)
    return measured.map(({ way, goal, note }, i): Figure => {
      const value = rest[i]!
      const ratio = value / base!
      const verdict = goal === undefined ? "" : `goal ≤ ${goal}× node -e 0${ratio <= goal ? "" : ", NOT MET"}; `
      return {
        suite: "cli",
        name: way.name,
        value,
        unit: "ms",
        baseline: { name: "ms, node -e 0 (median)", value: base! },
        note: `${verdict}median of ${runs} cold processes at a load average of ${load}; ${note}`
      }
    })
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
