/**
 * The review on a cluster (issue 16): reviews per second with 1, 2 and 3 runner processes sharing one Postgres
 * database, an instant model, and a host process ending one turn of 150 conversations through the entity clients;
 * each figure with its ratio to one runner. The runners and the host are the cluster test's (packages/sql/test/
 * fixtures); each count of runners gets a database of its own, dropped afterwards.
 */
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { withClient } from "../packages/sql/test/fixtures/postgres.ts"
import { freePort, start } from "../packages/sql/test/fixtures/processes.ts"
import type { Figure, Suite } from "./Bench.ts"

const conversations = 150

/** Starts a fixture script; resolves with the child once its output matches `mark`, and the match. */
const started = (script: string, args: ReadonlyArray<string>, mark: RegExp) =>
  new Promise<{ readonly child: ChildProcess; readonly match: RegExpExecArray }>((resolve, reject) => {
    const { child, output } = start(script, args)
    const seen = () => {
      const match = mark.exec(output.text)
      if (match !== null) resolve({ child, match })
    }
    child.stdout?.on("data", seen)
    child.stderr?.on("data", seen)
    child.on("exit", () => reject(new Error(`${script} ended: ${output.text}`)))
  })

const statement = (sql: string) => Effect.runPromise(withClient((client) => client.unsafe(sql)))

/** Reviews per second with `runners` runners: the host's time from its first turn end to the last answer. */
const measure = async (runners: number): Promise<number> => {
  const database = `mneme_bench_${randomUUID().replaceAll("-", "")}`
  const dir = mkdtempSync(join(tmpdir(), "mneme-bench-cluster-"))
  mkdirSync(join(dir, "conversations"))
  await statement(`CREATE DATABASE ${database}`)
  const children: Array<ChildProcess> = []
  try {
    const runner = async () => {
      const args = [database, String(await freePort()), join(dir, "conversations"), join(dir, "calls.jsonl"), "0"]
      const { child } = await started("clusterRunner.ts", args, /ready/)
      children.push(child)
    }
    await runner()
    await Promise.all(Array.from({ length: runners - 1 }, runner))
    const host = await started(
      "clusterHost.ts",
      [database, join(dir, "conversations"), String(conversations), "1"],
      /done in (\d+) ms/
    )
    children.push(host.child)
    return (conversations * 1000) / Number(host.match[1])
  } finally {
    for (const child of children) child.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
    await statement(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  }
}

export const suite: Suite = async () => {
  const one = await measure(1)
  const figures: Array<Figure> = [
    {
      suite: "cluster",
      name: "reviews/s, 1 runner",
      value: one,
      unit: "reviews/s",
      note: "instant model; 150 turn ends"
    }
  ]
  for (const runners of [2, 3]) {
    const value = await measure(runners)
    figures.push({
      suite: "cluster",
      name: `reviews/s, ${runners} runners`,
      value,
      unit: "reviews/s",
      note: `${(value / one).toFixed(2)}× one runner`,
      baseline: { name: "1 runner", value: one }
    })
  }
  return figures
}
