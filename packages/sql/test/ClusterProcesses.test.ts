/**
 * The review on a cluster of processes, on loopback: three runner processes sharing one Postgres database (the
 * cluster's message and runner storage, and memory), and a host process that ends two turns of 100 conversations
 * through the entity clients with a scripted model. One runner is killed (`kill -9`) in the middle of a review: its
 * shards move, every turn end is still reviewed, no entry is lost or doubled, no conversation ever has two reviews
 * running at once (checked from the model calls' logged times), and the model calls per turn end stay within one
 * retry of the review the kill cut short. And a runner that is a host's replica too, killed as soon as its last
 * `turnEnded` returns, loses none of those turns: each was stored before `turnEnded` answered, so another runner reviews
 * it, the turns whose entities were on the dead runner once their shards move. And a runner stopped (`SIGSTOP`, as a
 * frozen machine is) past its shard lease while its reviews ask the model keeps none of them when it resumes: another
 * runner has reviewed those lines meanwhile, and the stopped runner's commits are refused (`StaleCursor`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agentOf, type Call, client, entryOf } from "./fixtures/clusterPorts.ts"
import { withClient } from "./fixtures/postgres.ts"
import { freePort, start, until } from "./fixtures/processes.ts"

const conversations = 100
const turns = 2

/** The exit code of a child once it has ended (`null` when a signal ended it). */
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode)
      : child.once("exit", (code) => resolve(code))
  )

const callsIn = (file: string): ReadonlyArray<Call> =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((row) => row !== "")
        .map((row) => JSON.parse(row) as Call)
    : []

/** Runs a statement in the test database (to make and drop the run's own database). */
const inTest = (statement: string) => Effect.runPromise(withClient((sql) => sql.unsafe(statement)))

/** Runs a query in the run's database. */
const inRun = <A extends object>(database: string, query: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(query)).pipe(Effect.provide(client(database)))
  )

describe("the review on a cluster of processes", () => {
  it("a runner killed mid-review: every turn end reviewed once its shards move, nothing lost or doubled", async () => {
    const database = `mneme_cluster_${randomUUID().replaceAll("-", "")}`
    const dir = mkdtempSync(join(tmpdir(), "mneme-cluster-"))
    const transcripts = join(dir, "conversations")
    mkdirSync(transcripts)
    const calls = join(dir, "calls.jsonl")
    await inTest(`CREATE DATABASE ${database}`)
    const children: Array<ChildProcess> = []
    try {
      const runner = async () => {
        const port = await freePort()
        const started = start("clusterRunner.ts", [database, String(port), transcripts, calls])
        children.push(started.child)
        await until(
          () => started.output.text.includes("ready"),
          60_000,
          () => `runner ${port}: ${started.output.text}`
        )
        return started.child
      }
      // The first runner migrates the cluster's tables and memory's; the others start beside it.
      const first = await runner()
      const [second, third] = await Promise.all([runner(), runner()])
      const host = start("clusterHost.ts", [database, transcripts, String(conversations), String(turns)])
      children.push(host.child)

      // Kill a runner while one of its reviews is asking the model.
      const victim = second!
      await until(
        () => {
          const mine = callsIn(calls).filter((call) => call.pid === victim.pid)
          return mine.filter((call) => call.event === "start").length > mine.filter((c) => c.event === "end").length
        },
        60_000,
        () => "a review on the runner to kill"
      )
      victim.kill("SIGKILL")
      const killedAt = Date.now()
      const code = await Promise.race([
        exited(host.child),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(host.output.text)), 150_000))
      ])
      assert.strictEqual(code, 0, host.output.text)
      assert.include(host.output.text, "done")

      // Every turn's entry is in its conversation's agent's memory, once.
      const rows = await inRun<{ content: string }>(database, `SELECT content FROM mneme.memory_files`)
      const entries = rows.flatMap((row) => row.content.split("\n").filter((line) => line.startsWith("- ")))
      for (let c = 1; c <= conversations; c++) {
        for (let t = 1; t <= turns; t++) {
          const text = entryOf(`c${c}`, t)
          const found = entries.filter((line) => line.startsWith(`- ${text} [`))
          assert.strictEqual(found.length, 1, `${agentOf(`c${c}`)}: ${text}`)
        }
      }
      assert.strictEqual(entries.length, conversations * turns)

      // No conversation ever had two reviews asking the model at once; the killed runner's ended when it died.
      const all = callsIn(calls)
      const byConversation = Map.groupBy(all, (call) => call.conversation)
      let cut = 0
      for (const [conversation, events] of byConversation) {
        const open = new Map<number, number>()
        let count = 0
        for (const call of events.toSorted((a, b) => a.at - b.at)) {
          for (const [pid, at] of open) {
            if (pid === victim.pid && at <= killedAt && call.at >= killedAt) open.delete(pid)
          }
          if (call.event === "start") {
            assert.strictEqual(open.size, 0, `${conversation}: two reviews at once at ${call.at}`)
            open.set(call.pid, call.at)
            count++
          } else open.delete(call.pid)
        }
        const cutShort = events.some(
          (call) =>
            call.pid === victim.pid &&
            call.event === "start" &&
            !events.some((end) => end.pid === victim.pid && end.event === "end" && end.at >= call.at)
        )
        if (cutShort) cut++
        // One call per turn at most, and one more where the kill cut a review short.
        assert.isAtMost(count, turns + (cutShort ? 1 : 0), conversation)
      }
      assert.isAbove(cut, 0)
      assert.isTrue(all.some((call) => call.pid === first.pid) && all.some((call) => call.pid === third!.pid))
    } finally {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      await Promise.all(children.map(exited))
      rmSync(dir, { recursive: true, force: true })
      await inTest(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    }
  }, 300_000)

  it("a runner stopped past its shard lease mid-review keeps nothing of those reviews once it resumes (issue 22 item 7)", async () => {
    const conversations = 16
    const database = `mneme_cluster_${randomUUID().replaceAll("-", "")}`
    const dir = mkdtempSync(join(tmpdir(), "mneme-cluster-"))
    const transcripts = join(dir, "conversations")
    mkdirSync(transcripts)
    const calls = join(dir, "calls.jsonl")
    await inTest(`CREATE DATABASE ${database}`)
    const children: Array<ChildProcess> = []
    try {
      // Each runner words its entries its own way, so a turn kept by both would show as two entries.
      const runner = async (delay: number, wording: string) => {
        const port = await freePort()
        const args = [database, String(port), transcripts, calls, String(delay), "test", wording]
        const started = start("clusterRunner.ts", args)
        children.push(started.child)
        await until(
          () => started.output.text.includes("ready"),
          60_000,
          () => `runner ${port}: ${started.output.text}`
        )
        return started
      }
      const paused = await runner(4_000, "stopped runner")
      const other = await runner(300, "other runner")
      const host = start("clusterHost.ts", [database, transcripts, String(conversations), "1"])
      children.push(host.child)

      // Stop the first runner while its reviews ask the model.
      let asking: ReadonlyArray<string> = []
      await until(
        () => {
          const mine = callsIn(calls).filter((call) => call.pid === paused.child.pid)
          const ended = new Set(mine.filter((call) => call.event === "end").map((call) => call.conversation))
          asking = mine
            .filter((call) => call.event === "start" && !ended.has(call.conversation))
            .map((c) => c.conversation)
          return asking.length > 0
        },
        60_000,
        () => "a review asking the model on the runner to stop"
      )
      paused.child.kill("SIGSTOP")
      try {
        // Past its lease (4 s), the other runner takes its shards and reviews those conversations.
        await until(
          () => {
            const done = callsIn(calls).filter((call) => call.pid === other.child.pid && call.event === "end")
            return asking.every((conversation) => done.some((call) => call.conversation === conversation))
          },
          90_000,
          () => `the other runner's reviews of ${asking.join(", ")}: ${other.output.text}`
        )
        const reviewed = async () => {
          const rows = await inRun<{ content: string }>(database, `SELECT content FROM mneme.memory_files`)
          const kept = rows.flatMap((row) => row.content.split("\n"))
          return asking.every((c) => kept.some((line) => line.startsWith(`- ${entryOf(c, 1)} (other runner)`)))
        }
        const end = Date.now() + 30_000
        while (!(await reviewed()) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 200))
        assert.isTrue(await reviewed(), other.output.text)
      } finally {
        paused.child.kill("SIGCONT")
      }

      // Resumed, each of those reviews either gets its model's answer and has its commit refused, or is interrupted by
      // the runner once it sees its shards gone (its model call then never ends): either way it keeps nothing.
      const refused = (c: string) => paused.output.text.includes(`the review of chat:${c} read its cursor at line 0`)
      const answered = (c: string) =>
        callsIn(calls).some((call) => call.pid === paused.child.pid && call.conversation === c && call.event === "end")
      await until(
        () =>
          asking.every(
            (c) => refused(c) || (paused.output.text.includes("Shard lock storage is unhealthy") && !answered(c))
          ),
        60_000,
        () => `the stopped runner's reviews of ${asking.join(", ")}: ${paused.output.text}`
      )
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      for (const c of asking) if (answered(c)) assert.isTrue(refused(c), `${c}: ${paused.output.text}`)
      const code = await Promise.race([
        exited(host.child),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(host.output.text)), 120_000))
      ])
      assert.strictEqual(code, 0, host.output.text)

      // Every turn is in memory once: no turn is kept by both runners.
      const rows = await inRun<{ content: string }>(database, `SELECT content FROM mneme.memory_files`)
      const entries = rows.flatMap((row) => row.content.split("\n").filter((line) => line.startsWith("- ")))
      for (let c = 1; c <= conversations; c++) {
        const text = entryOf(`c${c}`, 1)
        assert.strictEqual(entries.filter((line) => line.startsWith(`- ${text} (`)).length, 1, text)
      }
      assert.strictEqual(entries.length, conversations)
    } finally {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGCONT")
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      }
      await Promise.all(children.map(exited))
      rmSync(dir, { recursive: true, force: true })
      await inTest(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    }
  }, 300_000)

  it("a runner killed right after turnEnded returns: another runner reviews every one of its turns", async () => {
    const conversations = 12
    const database = `mneme_cluster_${randomUUID().replaceAll("-", "")}`
    const dir = mkdtempSync(join(tmpdir(), "mneme-cluster-"))
    const transcripts = join(dir, "conversations")
    mkdirSync(transcripts)
    const calls = join(dir, "calls.jsonl")
    const report = join(dir, "report.json")
    await inTest(`CREATE DATABASE ${database}`)
    const children: Array<ChildProcess> = []
    try {
      const survivor = start("clusterRunner.ts", [database, String(await freePort()), transcripts, calls])
      children.push(survivor.child)
      await until(
        () => survivor.output.text.includes("ready"),
        60_000,
        () => `the runner: ${survivor.output.text}`
      )
      const replica = start("clusterReplica.ts", [
        database,
        String(await freePort()),
        transcripts,
        calls,
        String(conversations),
        report
      ])
      children.push(replica.child)
      await Promise.race([
        exited(replica.child),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(replica.output.text)), 120_000))
      ])
      assert.strictEqual(replica.child.signalCode, "SIGKILL", replica.output.text)
      const { pid, mine } = JSON.parse(readFileSync(report, "utf8")) as { pid: number; mine: Array<string> }
      // Some of the turns were for entities on the runner that died: those wait for their shards to move.
      assert.isAbove(mine.length, 0)

      const entries = async () => {
        const rows = await inRun<{ content: string }>(database, `SELECT content FROM mneme.memory_files`)
        return rows.flatMap((row) => row.content.split("\n").filter((line) => line.startsWith("- ")))
      }
      const expected = Array.from({ length: conversations }, (_, i) => entryOf(`c${i + 1}`, 1))
      let kept: ReadonlyArray<string> = []
      const end = Date.now() + 90_000
      while (Date.now() < end) {
        kept = await entries()
        if (expected.every((text) => kept.some((line) => line.startsWith(`- ${text} [`)))) break
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      const missing = expected.filter((text) => !kept.some((line) => line.startsWith(`- ${text} [`)))
      assert.deepStrictEqual(missing, [], `turns lost; the dead runner's own: ${mine.join(", ")}`)
      for (const text of expected) {
        assert.strictEqual(kept.filter((line) => line.startsWith(`- ${text} [`)).length, 1, text)
      }
      assert.strictEqual(kept.length, conversations)
      // The survivor reviewed them all: the replica died before any review of its own.
      const all = callsIn(calls)
      assert.isTrue(
        all.every((call) => call.pid === survivor.child.pid),
        JSON.stringify(all.filter((call) => call.pid === pid))
      )
    } finally {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      await Promise.all(children.map(exited))
      rmSync(dir, { recursive: true, force: true })
      await inTest(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    }
  }, 300_000)
})
