/**
 * A MEMORY.md far past its size (50 MB, written by hand): `mneme show` and a review read of it only what they show
 * (its first entries within its size, how many are left out, its size, every index link, down to its last line), in
 * memory that grows by about its bytes, not by its text, lines and entries; and a change to it still reads it whole:
 * one that makes it shorter keeps every other line, one that makes it longer is refused and changes nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { mneme, scratch } from "./cliKit.ts"

/** An entry line of the file; one in eight is not ASCII (none outside the BMP, so a character is a UTF-16 unit). */
const entry = (n: number) =>
  `- Hand-written fact ${String(n).padStart(7, "0")} about the user's ${n % 8 === 0 ? "café in 東京" : "habits"}`

/** A title, a note, entries to about `bytes` bytes, and the index at the very end linking `travel`; CRLF line ends. */
const handWritten = (bytes: number) => {
  const lines = ["# What I know", "", "A note I keep by hand."]
  let size = 0
  for (let n = 0; size < bytes; n++) {
    lines.push(entry(n))
    size += entry(n).length + 2
  }
  return [...lines, "", "## Index", "- [[travel]]", ""].join("\r\n")
}

/** The peak resident memory (bytes) of `mneme args…`, from a module the child loads first; with its run. */
const peakOf = (dir: string, name: string, args: ReadonlyArray<string>) => {
  const probe = join(dir, "rss.cjs")
  writeFileSync(
    probe,
    'process.on("exit", () => require("node:fs").writeFileSync(process.env.RSS_OUT, String(process.resourceUsage().maxRSS)))'
  )
  const out = join(dir, `${name}.rss`)
  const run = mneme(args, { NODE_OPTIONS: `--require=${probe}`, RSS_OUT: out })
  return { run, bytes: Number(readFileSync(out, "utf8")) * 1024 }
}

/** A memory folder whose own MEMORY.md is `content`, with a linked topic `travel` and an unlinked one `orphan`. */
const memoryWith = (memory: string, content: string) => {
  const own = join(memory, "agents/default")
  mkdirSync(own, { recursive: true })
  writeFileSync(join(own, "MEMORY.md"), content)
  writeFileSync(join(own, "travel.md"), "# travel\n\n- The user flies to Kyoto in May\n")
  writeFileSync(join(own, "orphan.md"), "# orphan\n\n- A fact no index links\n")
  return join(own, "MEMORY.md")
}

const size = 50 * 1000 * 1000

describe("a MEMORY.md far past its size", () => {
  it("mneme show reads of it what it prints, down to its last link, in memory that grows by about its bytes", () => {
    const { dir, memory } = scratch()
    const content = handWritten(size)
    memoryWith(memory, content)
    const entries = content.split("\r\n").filter((line) => line.startsWith("- Hand-written")).length
    const small = scratch()
    memoryWith(small.memory, handWritten(1_000))

    const before = peakOf(dir, "small", ["show", "--memory", small.memory])
    assert.strictEqual(before.run.code, 0, before.run.stderr)
    const shown = peakOf(dir, "large", ["show", "--memory", memory])
    assert.strictEqual(shown.run.code, 0, shown.run.stderr)
    // Read whole, its text, lines and entries took six times its size (320 MB more for 50 MB).
    assert.isBelow(shown.bytes - before.bytes, 2 * size, `${before.bytes} → ${shown.bytes}`)

    const json = JSON.parse(mneme(["show", "--memory", memory, "--json"]).stdout)
    const [own] = json.scopes
    const [file] = own.files
    assert.strictEqual(file.size, content.length)
    assert.strictEqual(file.entries[0].text, "Hand-written fact 0000000 about the user's café in 東京")
    const listed = file.entries.length
    assert.isAbove(listed, 50)
    assert.strictEqual(file.entries[listed - 1].text, entry(listed - 1).slice(2))
    assert.strictEqual(file.notShown, entries - listed)
    // The index at its very end was read: `travel` is linked, `orphan` is not.
    assert.deepStrictEqual(own.unlinked, ["agents/default/orphan.md"])
    assert.include(shown.run.stdout, `… ${(entries - listed).toLocaleString("en-US")} more entries past its size`)
    assert.include(shown.run.stdout, `${content.length.toLocaleString("en-US")} / 4,000`)
  }, 180_000)

  it("a review that changes nothing of it reads it as far as its request shows, in memory that grows by its bytes", () => {
    const { dir, memory } = scratch()
    memoryWith(memory, handWritten(size))
    const small = scratch()
    memoryWith(small.memory, handWritten(1_000))
    const chat = join(dir, "chat.jsonl")
    writeFileSync(chat, JSON.stringify({ seq: 1, who: "user", text: "I drink green tea every morning." }) + "\n")
    const answers = join(dir, "answers.jsonl")
    const nothing = JSON.stringify({ answer: JSON.stringify({ changes: [] }) }) + "\n"
    writeFileSync(answers, nothing + nothing)
    const review = (name: string, root: string) =>
      peakOf(dir, name, ["review", chat, "--memory", root, "--model", `replay:${answers}`, "--json"])

    const before = review("small", small.memory)
    assert.strictEqual(before.run.code, 0, before.run.stderr)
    const reviewed = review("large", memory)
    assert.strictEqual(reviewed.run.code, 0, reviewed.run.stderr)
    // Read whole for its request, it took ten times its size (490 MB more for 50 MB).
    assert.isBelow(reviewed.bytes - before.bytes, 2 * size, `${before.bytes} → ${reviewed.bytes}`)
    assert.strictEqual(JSON.parse(reviewed.run.stdout).sizes.own, handWritten(size).length)
  }, 180_000)

  it("a change that makes it shorter keeps every other line; one that makes it longer is refused, changing nothing", () => {
    const { memory } = scratch()
    const content = handWritten(size)
    const file = memoryWith(memory, content)
    // Shown first, so what `show` read of it is there to be (wrongly) taken for the file.
    assert.strictEqual(mneme(["show", "--memory", memory]).code, 0)

    const far = content
      .split("\r\n")
      .filter((line) => line.startsWith("- Hand-written"))
      .at(-5)!
      .slice(2)
    const forgot = mneme(["forget", far, "--memory", memory])
    assert.strictEqual(forgot.code, 0, forgot.stderr)
    const expected = content.split("\r\n").filter((line) => line !== `- ${far}`)
    const after = readFileSync(file, "utf8")
    assert.isTrue(after === expected.join("\n"), "every other line kept, in order, with LF line ends")

    const added = mneme(["remember", "The user likes jazz", "--memory", memory])
    assert.strictEqual(added.code, 1, added.stderr)
    assert.include(added.stderr, "MEMORY.md")
    assert.isTrue(readFileSync(file, "utf8") === after, "nothing changed")
  }, 180_000)
})
