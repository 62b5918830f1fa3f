/**
 * Secrets through the built command: a password given in a sentence, a line or a user / password pair never reaches
 * the model (`--show-prompt` shows what is sent) nor memory (`remember` refuses it), and only the value is masked, the
 * user's other words kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertFailure, mneme, mnemeIn, scratch } from "./cliKit.ts"

const password = "Tr0ub4dor&3-fennel"

/** A transcript of `texts`, the user's, one a line. */
const userLines = (file: string, texts: ReadonlyArray<string>) =>
  writeFileSync(file, texts.map((text, i) => JSON.stringify({ seq: i + 1, who: "user", text })).join("\n") + "\n")

/** A replay model that answers each call with no change. */
const nothingToKeep = (dir: string) => {
  const file = join(dir, "answers.jsonl")
  writeFileSync(file, [1, 2].map(() => JSON.stringify({ answer: JSON.stringify({ changes: [] }) })).join("\n"))
  return `replay:${file}`
}

describe("a password given with its value", () => {
  it("is masked in what the review sends the model, the value alone", () => {
    const { dir } = scratch()
    userLines(join(dir, "chat.jsonl"), [
      `Good idea. Here is the read-only DB password for staging if you want to check: ${password}.`,
      `Log in as marco / ${password} please`,
      "I use purple monkey as my password lately"
    ])
    const run = mnemeIn(dir, [
      "review",
      "chat.jsonl",
      "--model",
      nothingToKeep(dir),
      "--memory",
      "memory",
      "--show-prompt"
    ])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stderr, "--- model call 1: request text")
    assert.notInclude(run.stderr, password)
    assert.notInclude(run.stderr, "purple monkey")
    assert.include(run.stderr, "Here is the read-only DB password for staging if you want to check: [secret].")
    assert.include(run.stderr, "Log in as marco / [secret] please")
    assert.include(run.stderr, "I use [secret] as my password lately")
  })

  it("is not stored by remember, and nothing is written", () => {
    const { memory } = scratch()
    for (const text of [
      `Staging DB read-only credential: ${password}`,
      "I use purple monkey as my password lately",
      "I use purple monkey as my password hint"
    ]) {
      const run = mneme(["remember", text, "--memory", memory])
      assertFailure(run, 1, "it looks like a secret")
      assert.isFalse(existsSync(join(memory, "agents/default/MEMORY.md")), text)
    }
  })

  it("is not found in a sentence that only mentions passwords, which remember keeps", () => {
    const { memory } = scratch()
    for (const text of ["I reset my password yesterday", "password managers are useful"]) {
      const run = mneme(["remember", text, "--memory", memory])
      assert.strictEqual(run.code, 0, run.stderr)
    }
    const kept = readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8")
    assert.include(kept, "- I reset my password yesterday [")
    assert.include(kept, "- password managers are useful [")
  })
})

describe("a failure that quotes what was given", () => {
  const card = "4111111111111111"

  it("keeps no secret in its message or its JSON: a match no entry holds", () => {
    const { memory } = scratch()
    assert.strictEqual(mneme(["remember", "Dana drinks oolong tea", "--memory", memory]).code, 0)
    const before = readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8")
    const run = mneme(["forget", `card ${card}`, "--memory", memory, "--json"])
    assert.strictEqual(run.code, 1, run.stderr)
    assert.deepStrictEqual(JSON.parse(run.stdout), {
      ok: false,
      error: { tag: "NoMatch", message: 'no entry in agents/default/MEMORY.md holds "card [secret]"' }
    })
    assert.notInclude(run.stdout + run.stderr, card)
    assert.strictEqual(readFileSync(join(memory, "agents/default/MEMORY.md"), "utf8"), before)
  })

  it("keeps no secret in a failed review's error, its JSON or the review state: a topic that is a card number", () => {
    const { dir } = scratch()
    userLines(join(dir, "chat.jsonl"), ["I drink oolong tea"])
    const answers = join(dir, "answers.jsonl")
    const change = { op: "add", topic: card, text: "Dana drinks oolong tea" }
    writeFileSync(answers, JSON.stringify({ answer: JSON.stringify({ changes: [change] }) }) + "\n")
    const run = mnemeIn(dir, ["review", "chat.jsonl", "--model", `replay:${answers}`, "--memory", "memory", "--json"])
    assert.strictEqual(run.code, 1, run.stderr)
    const out = JSON.parse(run.stdout)
    assert.strictEqual(out.error.tag, "BadTopic")
    assert.isTrue(out.error.message.startsWith('"[secret]" is not a topic name'), out.error.message)
    assert.notInclude(run.stdout + run.stderr, card)
    assert.notInclude(readFileSync(join(dir, "memory/reviewed.json"), "utf8"), card)
    assert.isFalse(existsSync(join(dir, "memory/agents/default/MEMORY.md")))
  })
})
