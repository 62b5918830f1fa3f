/**
 * A MEMORY.md far past its size (50 MB, written by hand), as the review suite measures it: the peak RSS of `mneme
 * show` and of `mneme review` (one pass, from source, as a child process) over it, each beside the same command over a
 * memory folder whose MEMORY.md is within its size (what the command takes to start). `show` and a review whose
 * answer leaves the file alone read of it only what they show; a review whose answer removes one of its entries reads
 * it whole to change it (measured too: that is the cost of a change to such a file).
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Figure } from "./Bench.ts"

const repo = fileURLToPath(new URL("..", import.meta.url))

/** The size of the file past its size, in bytes. */
const size = 50 * 1000 * 1000

/** A MEMORY.md of entries to about `bytes` bytes. */
const memoryFile = (bytes: number) => {
  const lines = ["# Memory", ""]
  let length = 0
  for (let n = 0; length < bytes; n++) {
    const line = `- Hand-written fact ${String(n).padStart(7, "0")} about the user's habits`
    lines.push(line)
    length += line.length + 1
  }
  return lines.join("\n") + "\n"
}

/** The peak RSS (MB) of `mneme args…` from source, read by a module the child loads first. */
const peakMb = (scratch: string, args: ReadonlyArray<string>): number => {
  const probe = join(scratch, "rss.cjs")
  const out = join(scratch, "rss.out")
  writeFileSync(
    probe,
    'process.on("exit", () => require("node:fs").writeFileSync(process.env.RSS_OUT, String(process.resourceUsage().maxRSS)))'
  )
  const run = spawnSync(
    process.execPath,
    ["--conditions=@mneme/source", `--require=${probe}`, join(repo, "packages/node/src/bin.ts"), ...args],
    { cwd: repo, encoding: "utf8", env: { ...process.env, RSS_OUT: out, NO_COLOR: "1" } }
  )
  if (run.status !== 0) throw new Error(`mneme ${args.join(" ")} failed: ${run.stderr}`)
  return (Number(readFileSync(out, "utf8")) * 1024) / 1e6
}

/** A memory folder in `scratch` named `name` whose own MEMORY.md is `content`. */
const memoryWith = (scratch: string, name: string, content: string) => {
  const own = join(scratch, name, "agents/default")
  mkdirSync(own, { recursive: true })
  writeFileSync(join(own, "MEMORY.md"), content)
  return join(scratch, name)
}

/** The figures: `show`, a review that leaves the file alone, and one that removes an entry of it. */
export const figures = async (): Promise<ReadonlyArray<Figure>> => {
  const scratch = mkdtempSync(join(tmpdir(), "mneme-bench-past-size-"))
  try {
    const large = memoryFile(size)
    const small = memoryFile(2_000)
    const chat = join(scratch, "chat.jsonl")
    writeFileSync(chat, JSON.stringify({ seq: 1, who: "user", text: "I drink green tea every morning." }) + "\n")
    const answers = (name: string, changes: ReadonlyArray<object>) => {
      const file = join(scratch, `${name}.jsonl`)
      writeFileSync(file, JSON.stringify({ answer: JSON.stringify({ changes }) }) + "\n")
      return `replay:${file}`
    }
    const nothing = answers("nothing", [])
    const removal = answers("removal", [{ op: "remove", entry: 1 }])
    const show = (memory: string) => peakMb(scratch, ["show", "--memory", memory])
    const review = (memory: string, model: string) =>
      peakMb(scratch, ["review", chat, "--memory", memory, "--model", model])
    const figure = (name: string, value: number, baseline: number, note: string): Figure => ({
      suite: "review",
      name: `50 MB MEMORY.md, ${name}: peak RSS`,
      value,
      unit: "MB",
      baseline: { name: "MB, the same over a MEMORY.md within its size", value: baseline },
      note: `${Math.round(value - baseline)} MB more; ${note}`
    })
    return [
      figure(
        "mneme show",
        show(memoryWith(scratch, "show", large)),
        show(memoryWith(scratch, "show-small", small)),
        "its first entries, the count of the rest and its size read in pieces"
      ),
      figure(
        "a review that leaves it alone",
        review(memoryWith(scratch, "nothing", large), nothing),
        review(memoryWith(scratch, "nothing-small", small), nothing),
        "the request shows its first entries"
      ),
      figure(
        "a review that removes an entry of it",
        review(memoryWith(scratch, "removal", large), removal),
        review(memoryWith(scratch, "removal-small", small), removal),
        "a change reads the file whole, and keeps every other line"
      )
    ]
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
