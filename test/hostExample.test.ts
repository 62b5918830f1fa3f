/**
 * The README's host example compiles (the type-check covers examples/) and works: a turn ends, the review runs
 * after its delay with a scripted model, and the host sees the entry in memory. The README shows the file verbatim.
 */
import { assert, it } from "@effect/vitest"
import * as Testing from "@mneme/review/testing"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Host from "../examples/host.ts"

const answer = JSON.stringify({ changes: [{ op: "add", text: "The user grows tomatoes on a balcony in Lyon" }] })

it("the README shows examples/host.ts verbatim", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
  const example = readFileSync(new URL("../examples/host.ts", import.meta.url), "utf8")
  assert.include(readme, "```ts\n" + example + "```")
})

it.effect("the host example reviews a turn after its delay and shows what memory keeps", () => {
  const root = mkdtempSync(join(tmpdir(), "mneme-host-"))
  return Effect.gen(function* () {
    yield* Host.turn("c1", "I grow tomatoes on my balcony in Lyon", "Lovely! Which variety?")
    yield* TestClock.adjust("2 seconds")
    const view = yield* Host.shutdown
    assert.deepStrictEqual(
      view.entries.map((entry) => [entry.scope, entry.text, entry.source]),
      [["own", "The user grows tomatoes on a balcony in Lyon", "c1 #1"]]
    )
    assert.strictEqual(view.lastReview?.ok, true)
    assert.include(readFileSync(join(root, "agents", "ada", "MEMORY.md"), "utf8"), "tomatoes on a balcony")
  }).pipe(
    Effect.provide(Host.memoryLayer(root, Testing.scriptedModel([answer]))),
    Effect.ensuring(Effect.sync(() => rmSync(root, { recursive: true, force: true })))
  )
})
