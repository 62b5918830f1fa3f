/**
 * The memory section of an agent's system prompt (issue 12) over a real temporary memory root: what it shows, that a
 * session's section is frozen while memory changes underneath and the next session sees the change, and the budget.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type MemoryConfig, MemoryScope, MemorySection, Text } from "@mneme/core"
import { Effect, FileSystem, Layer, Path } from "effect"
import { MemoryPrompt } from "../src/MemoryPrompt.ts"
import { MemoryRoot } from "../src/MemoryRoot.ts"
import { MemoryStore } from "../src/MemoryStore.ts"
import * as MemoryTools from "../src/MemoryTools.ts"
import * as Testing from "../src/testing.ts"

const layer = (settings: Partial<MemoryConfig.Settings> = {}) =>
  Testing.layer({ settings }).pipe(Layer.provideMerge(NodeServices.layer))

const setUp = Effect.gen(function* () {
  const host = yield* Testing.TranscriptMemory
  yield* host.addAgent({ id: "ada", name: "Ada", mayWriteTeam: true })
  yield* host.addAgent({ id: "bob", name: "Bob" })
  const store = yield* MemoryStore
  yield* store.add({ scope: MemoryScope.own("ada"), text: "The user likes green tea", actor: "test" })
  yield* store.add({ scope: MemoryScope.own("ada"), topic: "travel", text: "Kyoto in spring", actor: "test" })
  yield* store.add({ scope: MemoryScope.team, text: "The team ships on Fridays", actor: "test" })
})

describe("MemoryPrompt.section", () => {
  it.effect("shows the agent's MEMORY.md and the team's, each topic with its size, and how to use the tools", () =>
    Effect.gen(function* () {
      yield* setUp
      const prompt = yield* MemoryPrompt
      const section = yield* prompt.section("ada")
      assert.isTrue(section.startsWith(`${MemorySection.howTo(true, 300)}\n\n### Your memory: agents/ada/MEMORY.md, `))
      assert.match(section, /\n- "The user likes green tea" \[added: [\d-]+\]\n/)
      assert.match(section, /\n- \[\[travel\]\] \(1 entry, \d+ characters\)\n/)
      assert.match(section, /\n### Team memory: team\/MEMORY\.md, \d+ of 4,000 characters\n```markdown\n/)
      assert.include(section, '- "The team ships on Fridays"')
      assert.notInclude(section, "Kyoto", "a topic's entries are for recall")
      // An agent that may not write team memory is not offered it.
      assert.include(yield* prompt.section("bob"), "(you may read it, not change it)")
    }).pipe(Effect.provide(layer()))
  )

  it.effect("masks what a person wrote by hand that looks secret", () =>
    Effect.gen(function* () {
      yield* setUp
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const file = path.join((yield* MemoryRoot).root, "team", "MEMORY.md")
      const key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
      yield* fs.writeFileString(file, `# Memory\n\nShared token: ${key}\n- The team ships on Fridays\n`)
      const section = yield* (yield* MemoryPrompt).section("ada")
      assert.notInclude(section, key)
      assert.include(section, "Shared token: [secret]")
    }).pipe(Effect.provide(layer()))
  )

  it.effect("stays within memorySectionBudget", () =>
    Effect.gen(function* () {
      yield* setUp
      const store = yield* MemoryStore
      for (let i = 0; i < 30; i++) {
        yield* store.add({
          scope: MemoryScope.own("ada"),
          text: `The user's fact number ${i} is worth keeping`,
          actor: "test"
        })
      }
      const section = yield* (yield* MemoryPrompt).section("ada")
      assert.isAtMost(Text.length(section), 1_500)
      assert.include(section, "more lines not shown: recall finds their entries")
    }).pipe(Effect.provide(layer({ memorySectionBudget: 1_500 })))
  )
})

describe("MemoryPrompt.session", () => {
  it.effect("is frozen: byte-identical while memory changes underneath; the next session sees the change", () =>
    Effect.gen(function* () {
      yield* setUp
      const prompt = yield* MemoryPrompt
      const session = yield* prompt.session("ada")
      const before = `${session.section}`
      assert.strictEqual(session.section, yield* prompt.section("ada"))
      const turn = yield* MemoryTools.startTurn("ada")
      const result = yield* MemoryTools.call(turn, "remember", { text: "The user moved to Lyon" })
      assert.isFalse(result.isError)
      assert.strictEqual(session.section, before)
      assert.isTrue(Object.isFrozen(session))
      assert.throws(() => {
        ;(session as { section: string }).section = "changed"
      })
      const now = yield* prompt.section("ada")
      assert.include(now, '- "The user moved to Lyon"')
      assert.notInclude(session.section, "Lyon")
      const next = yield* prompt.session("ada")
      assert.strictEqual(next.section, now)
      assert.strictEqual(next.agentId, "ada")
      // A person's edit of the team's file shows in the next section too.
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const team = path.join((yield* MemoryRoot).root, "team", "MEMORY.md")
      yield* fs.writeFileString(team, "# Memory\n\n- The team ships on Thursdays\n")
      const edited = yield* prompt.section("ada")
      assert.include(edited, '- "The team ships on Thursdays"')
      assert.notInclude(edited, "Fridays")
      assert.strictEqual(next.section, now)
    }).pipe(Effect.provide(layer()))
  )
})
