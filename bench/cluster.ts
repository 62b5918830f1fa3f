/**
 * The review on a cluster (issue 16): reviews per second with 1, 2 and 3 runner processes sharing one Postgres
 * database, an instant model, and a host process ending one turn of 150 conversations through the entity clients;
 * each figure with its ratio to one runner. The runners and the host are the cluster test's (packages/sql/test/
 * fixtures); each count of runners gets a database of its own, dropped afterwards.
 *
 * And how long the conversations of a machine that dies wait (issue 22): a runner that also ends turns ends one turn of
 * 12 conversations and is killed (SIGKILL) as soon as the last `turnEnded` returns; the figure is the time from its
 * death to the surviving runner's model call for the last of the turns whose entities were on the dead runner (the
 * takeover, the review delay of 200 ms, and the reading of the stored message), with the cluster's default sharding
 * settings and with the README's `quickTakeover`; the smallest, median and largest of a few runs.
 */
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { withClient } from "../packages/sql/test/fixtures/postgres.ts"
import { freePort, start, until } from "../packages/sql/test/fixtures/processes.ts"
import type { Takeover } from "../packages/sql/test/fixtures/clusterPorts.ts"
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

/** The runs of each takeover measure. */
const takeoverRuns = 3

/**
 * Milliseconds from the death of a runner right after its turn ends to the survivor's model call for the last of the
 * turns whose entities were on it, with `takeover`'s sharding settings.
 */
const takeoverAfterDeath = async (takeover: Takeover): Promise<number> => {
  const database = `mneme_bench_${randomUUID().replaceAll("-", "")}`
  const dir = mkdtempSync(join(tmpdir(), "mneme-bench-takeover-"))
  const transcripts = join(dir, "conversations")
  const calls = join(dir, "calls.jsonl")
  const report = join(dir, "report.json")
  mkdirSync(transcripts)
  await statement(`CREATE DATABASE ${database}`)
  const children: Array<ChildProcess> = []
  try {
    const survivor = await started(
      "clusterRunner.ts",
      [database, String(await freePort()), transcripts, calls, "0", takeover],
      /ready/
    )
    children.push(survivor.child)
    const replica = start("clusterReplica.ts", [
      database,
      String(await freePort()),
      transcripts,
      calls,
      "12",
      report,
      takeover
    ])
    children.push(replica.child)
    // A replica that never comes to hold one of its conversations' shards would wait for ever: give it 300 s.
    await until(
      () => replica.child.exitCode !== null || replica.child.signalCode !== null,
      300_000,
      () => `the replica to hold one of its conversations' shards and end: ${replica.output.text}`
    )
    if (!existsSync(report)) throw new Error(`the replica died before its turns: ${replica.output.text}`)
    const { mine, at } = JSON.parse(readFileSync(report, "utf8")) as { mine: Array<string>; at: number }
    const end = Date.now() + 300_000
    for (;;) {
      const begun = existsSync(calls)
        ? readFileSync(calls, "utf8")
            .split("\n")
            .filter((row) => row !== "")
            .map((row) => JSON.parse(row) as { pid: number; conversation: string; event: string; at: number })
            .filter(
              (call) => call.pid === survivor.child.pid && call.event === "start" && mine.includes(call.conversation)
            )
        : []
      if (mine.every((id) => begun.some((call) => call.conversation === id))) {
        return Math.max(...begun.map((call) => call.at)) - at
      }
      if (Date.now() > end) throw new Error(`no takeover of ${mine.join(", ")} within 300 s`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } finally {
    for (const child of children) child.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
    await statement(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  }
}

/** The takeover figure of `takeover`'s settings, over a few runs. */
const takeoverFigure = async (takeover: Takeover, name: string): Promise<Figure> => {
  const runs: Array<number> = []
  for (let i = 0; i < takeoverRuns; i++) runs.push(await takeoverAfterDeath(takeover))
  const sorted = runs.toSorted((a, b) => a - b)
  const seconds = (ms: number) => (ms / 1000).toFixed(1)
  return {
    suite: "cluster",
    name: `takeover after a runner dies, ${name}`,
    value: sorted[Math.floor(sorted.length / 2)]! / 1000,
    unit: "s",
    note: `median of ${runs.length}, from ${seconds(sorted[0]!)} to ${seconds(sorted.at(-1)!)} s; death to the last of its turns in the model`
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
  figures.push(
    await takeoverFigure("defaults", "the cluster's default settings"),
    await takeoverFigure("readme", "the README's quickTakeover")
  )
  return figures
}
