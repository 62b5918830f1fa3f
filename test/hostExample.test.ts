/**
 * The README's host examples compile (the type-check covers examples/) and work. The Effect host's agent loop runs
 * with a scripted `LanguageModel` that calls `remember`: the fact lands in MEMORY.md as the agent's change, the same
 * conversation's system prompt stays byte-identical, the next conversation's shows the fact, and the background review
 * (a scripted model that proposes the same fact) does not add it again. The host that is not written with Effect
 * declares the tools to its own model client and runs their calls through a `ManagedRuntime`. The README shows both
 * files verbatim.
 */
import { assert, it } from "@effect/vitest"
import { MemorySection } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect, Layer } from "effect"
import type { Prompt } from "effect/ai"
import { TestClock } from "effect/testing"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as AsyncHost from "../examples/asyncHost.ts"
import * as Host from "../examples/host.ts"

const fact = "The user grows tomatoes on a balcony in Lyon"

it("the README shows examples/host.ts and examples/asyncHost.ts verbatim", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
  for (const name of ["host.ts", "asyncHost.ts"]) {
    const example = readFileSync(new URL(`../examples/${name}`, import.meta.url), "utf8")
    assert.include(readme, "```ts\n" + example + "```", name)
  }
})

/** The system message of a prompt the agent's model was sent. */
const systemOf = (prompt: Prompt.Prompt) => {
  const first = prompt.content[0]
  return first?.role === "system" ? first.content : ""
}

it.effect(
  "the agent's remember lands in MEMORY.md; a session's prompt is frozen; the review does not re-add it",
  () => {
    const root = mkdtempSync(join(tmpdir(), "mneme-host-"))
    const agent = Testing.scriptedAgentModel([
      { toolCalls: [{ name: "remember", params: { text: fact } }] },
      "Lovely! Noted for next time.",
      "Cherry tomatoes do well in pots.",
      "Welcome back! How are the tomatoes in Lyon?"
    ])
    const review = Testing.scriptedModel([
      JSON.stringify({ changes: [{ op: "add", text: fact }] }),
      JSON.stringify({ changes: [] }),
      JSON.stringify({ changes: [] })
    ])
    return Effect.gen(function* () {
      assert.strictEqual(
        yield* Host.turn("c1", "I grow tomatoes on my balcony in Lyon"),
        "Lovely! Noted for next time."
      )
      const memory = readFileSync(join(root, "agents", "ada", "MEMORY.md"), "utf8")
      assert.strictEqual(memory.split(fact).length, 2, "the fact is in MEMORY.md once")
      const journal = yield* MemoryStore.MemoryStore.use((store) => store.journal())
      assert.deepStrictEqual(
        journal.map((line) => [line.op, line.actor]),
        [["add", "agent"]]
      )
      assert.deepStrictEqual(
        Host.log.get("c1")?.map((line) => [line.who, line.kind ?? "said"]),
        [
          ["user", "said"],
          ["agent", "tool-call"],
          ["agent", "tool-result"],
          ["agent", "said"]
        ]
      )

      // The background review proposes the same fact: nothing is added, and it never saw the tool lines as new.
      yield* TestClock.adjust("2 seconds")
      const view = yield* Host.shutdown
      assert.deepStrictEqual(
        view.entries.map((entry) => entry.text),
        [fact]
      )
      assert.strictEqual(view.lastReview?.ok, true)
      const [asked] = yield* Effect.flatMap(Testing.ScriptedModel, (model) => model.requests)
      const newLines = asked?.request.slice(asked.request.indexOf("## New lines")) ?? ""
      assert.include(newLines, 'user: "I grow tomatoes on my balcony in Lyon"')
      assert.notInclude(newLines, "(tool")
      assert.notInclude(newLines, fact)
      assert.strictEqual(readFileSync(join(root, "agents", "ada", "MEMORY.md"), "utf8"), memory)

      // The same conversation again: its system prompt is the same bytes, from before the fact was kept.
      yield* Host.turn("c1", "Which variety should I grow?")
      yield* TestClock.adjust("2 seconds")
      // A new conversation is a new session: its prompt shows the fact.
      yield* Host.turn("c2", "Hello!")
      yield* TestClock.adjust("2 seconds")
      yield* Host.shutdown
      const prompts = yield* Effect.flatMap(Testing.ScriptedAgentModel, (model) => model.prompts)
      assert.strictEqual(prompts.length, 4)
      const [first, second, third, fourth] = prompts.map(systemOf)
      assert.include(first, MemorySection.heading)
      assert.notInclude(first, fact)
      assert.strictEqual(second, first)
      assert.strictEqual(third, first)
      assert.include(fourth, `- ${JSON.stringify(fact)} [added: `)
      assert.notStrictEqual(fourth, first)
    }).pipe(
      Effect.provide(Layer.mergeAll(Host.memoryLayer(root, review), review, agent)),
      Effect.ensuring(Effect.sync(() => rmSync(root, { recursive: true, force: true })))
    )
  }
)

it("a host that is not written with Effect declares the tools and runs their calls through a ManagedRuntime", async () => {
  const root = mkdtempSync(join(tmpdir(), "mneme-async-host-"))
  const memory = AsyncHost.open(root)
  try {
    assert.deepStrictEqual(
      AsyncHost.tools.map((tool) => tool.name),
      ["remember", "forget", "recall"]
    )
    const system = await AsyncHost.systemPrompt(memory, "ada")
    assert.include(system, MemorySection.heading)
    // The host's own model client: first a tool call, then (given its result) a reply quoting it.
    const answered = await AsyncHost.answer(memory, "ada", system, "I grow tomatoes", async (request) => {
      assert.strictEqual(request.tools, AsyncHost.tools)
      assert.strictEqual(request.user, "I grow tomatoes")
      return request.results.length === 0
        ? { toolCalls: [{ name: "remember", arguments: { text: fact } }] }
        : { text: JSON.stringify(request.results[0]) }
    })
    const remembered = JSON.parse(answered)
    assert.strictEqual(remembered.isError, false)
    assert.strictEqual(remembered.result.changed, true)
    assert.match(remembered.result.message, /^added to agents\/ada\/MEMORY\.md \(now \d+ of 4,000 characters\)/)
    assert.include(readFileSync(join(root, "agents", "ada", "MEMORY.md"), "utf8"), `- ${fact} [added: `)
    const refused = await AsyncHost.answer(memory, "ada", system, "Forget that", async (request) =>
      request.results.length === 0
        ? { toolCalls: [{ name: "forget", arguments: { match: "coffee" } }] }
        : { text: JSON.stringify(request.results[0]) }
    )
    assert.strictEqual(JSON.parse(refused).isError, true)
    assert.strictEqual(JSON.parse(refused).result.reason, "NoMatch")
    assert.include(readFileSync(join(root, "agents", "ada", "MEMORY.md"), "utf8"), fact)
    // The conversation's prompt was frozen; a new one shows the fact.
    assert.notInclude(system, fact)
    assert.include(await AsyncHost.systemPrompt(memory, "ada"), fact)
  } finally {
    await memory.dispose()
    rmSync(root, { recursive: true, force: true })
  }
})

it.effect("the tool's failure results reach the model marked as failures", () => {
  const root = mkdtempSync(join(tmpdir(), "mneme-host-"))
  const agent = Testing.scriptedAgentModel([
    { toolCalls: [{ name: "forget", params: { match: "coffee" } }] },
    "There was nothing about coffee to forget."
  ])
  return Effect.gen(function* () {
    yield* Host.turn("c3", "Forget that I like coffee")
    const prompts = yield* Effect.flatMap(Testing.ScriptedAgentModel, (model) => model.prompts)
    const results = (prompts[1]?.content ?? []).flatMap((message) =>
      message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : []
    )
    assert.strictEqual(results.length, 1)
    assert.isTrue(results[0]?.isFailure)
    assert.include(JSON.stringify(results[0]?.result), '"_tag":"MemoryToolError","reason":"NoMatch"')
  }).pipe(
    Effect.provide(Layer.merge(Host.memoryLayer(root, Testing.scriptedModel([])), agent)),
    Effect.ensuring(Effect.sync(() => rmSync(root, { recursive: true, force: true })))
  )
})
