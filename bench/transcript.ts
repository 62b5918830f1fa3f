/**
 * The transcript benchmark: `mneme review` of JSONL transcripts of about 12.5, 25 and 50 MB, run as a person runs it
 * (a child process, from source: `node --conditions=@mneme/source packages/node/src/bin.ts`), with the child's peak
 * RSS and its time. Issue 11's goal: under 200 MB at 50 MB, time linear in the transcript's size.
 *
 * Each run is `mneme review FILE --memory ROOT --model replay:ANSWERS --max-calls 0`. A transcript this long needs
 * thousands of model calls (the default --max-calls 50 stops it before the first, once the file is read and the calls
 * estimated: measured too, as its own figure); the recorded answers run out after two, so a run is the reading,
 * checking and estimating of the whole file, two reviews and a third whose model call fails, each review reading the
 * transcript back from its last line to the cursor. Two scenarios: a first review (no cursor: a person's review starts
 * before the first line), and a cursor near the start (a 20-line prefix of the transcript reviewed first, then the
 * rest appended), so most of the file is ahead of it.
 *
 * Baselines measured in the same run: for memory, the same review of the 20-line prefix (what the CLI takes to start);
 * for time, plain Node reading the same file's bytes and `JSON.parse` of each line. The time is the child's own from
 * its modules loaded to its exit, so Node's start-up and the loading of the CLI (a second or more from source, and
 * most of what a busy machine varies) do not hide how the rest grows; the slopes are of that time against the size
 * (log-log: 1 is linear, a fixed cost pulls it below). Each measure is run 3 times: times are medians, RSS the largest.
 */
import { spawn } from "node:child_process"
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type Figure, logLogSlope, type Suite, summarize } from "./Bench.ts"

const repo = fileURLToPath(new URL("..", import.meta.url))

/** The transcript sizes, in MB (10⁶ bytes). */
const sizes = [12.5, 25, 50] as const

/** Lines of the prefix: the start-up's transcript, and what the cursor scenario reviews first. */
const prefixLines = 20

/** Runs of each measure: the times are their medians, the peak RSS their largest. */
const runs = 3

/** The words lines are made of. */
const words = (
  "the billing export ran last night and the garden plan needs soil for raised beds while a piano waits for the " +
  "kitchen before the trip to Kyoto in May with a hotel near the station after the weekly planning meeting on " +
  "Thursday where invoices were late again so we should check the Airflow pool the database connections and retries"
).split(" ")

/** Text that is not ASCII, one piece in about one line in five: Latin-1 letters, dashes and quotes, CJK, emoji. */
const foreign = [
  "Café au lait — a naïve question, déjà vu.",
  "東京の出張は五月です。ホテルは駅の近くです。",
  "Привет, как дела? Всё хорошо.",
  "“Quoted” words and ‘single’ marks…",
  "Straße, Größe und Übermut.",
  "The résumé is in the shared folder 📎 — see 🙂"
]

/** The text of line `seq`: a user line of 80 to 400 characters or an agent line of 150 to 700, the same every run. */
const lineText = (seq: number, user: boolean): string => {
  let state = Math.imul(seq, 2_654_435_761) >>> 0 || 1
  const next = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 4_294_967_296
  }
  const size = user ? 80 + Math.floor(next() * 320) : 150 + Math.floor(next() * 550)
  let text = user ? "" : "Noted. "
  while (text.length < size) {
    text += words[Math.floor(next() * words.length)]
    text += next() < 0.1 ? ". " : " "
  }
  if (seq % 5 === 0) text += foreign[(seq / 5) % foreign.length]
  return text.trimEnd()
}

/** Transcript line `seq`, with its line end: users on odd lines, the agent on even ones. */
const jsonLine = (seq: number): string => {
  const user = seq % 2 === 1
  return JSON.stringify({ seq, who: user ? "user" : "agent", text: lineText(seq, user) }) + "\n"
}

/**
 * Writes transcripts of about `targets` bytes each (one file each, every one a prefix of the next larger) and the
 * first `prefixLines` lines as their own file.
 */
const writeTranscripts = (dir: string, targets: ReadonlyArray<number>) => {
  const files = targets.map((target, i) => ({ target, path: join(dir, `transcript-${i}.jsonl`), size: 0 }))
  const prefix = join(dir, "prefix.jsonl")
  const fds = files.map((file) => openSync(file.path, "w"))
  let pending: Array<string> = []
  let head = ""
  const flush = () => {
    const bytes = Buffer.from(pending.join(""), "utf8")
    files.forEach((file, i) => {
      if (file.size < file.target) {
        writeSync(fds[i]!, bytes)
        file.size += bytes.length
      }
    })
    pending = []
  }
  const largest = files.at(-1)!
  for (let seq = 1; largest.size < largest.target; seq++) {
    const line = jsonLine(seq)
    pending.push(line)
    if (seq <= prefixLines) head += line
    if (pending.length === 200) flush()
  }
  flush()
  fds.forEach((fd) => closeSync(fd))
  writeFileSync(prefix, head)
  return { prefix, files: files.map(({ path, size }) => ({ path, size })) }
}

/** Recorded answers: one adding an entry, one with no changes; a review's third call finds none left. */
const answers = [
  { answer: JSON.stringify({ changes: [{ op: "add", text: "The user is planning a garden with raised beds" }] }) },
  { answer: JSON.stringify({ changes: [] }) }
]

/** How a run must end, and what its stderr must then hold: otherwise the benchmark measured something else. */
const endings = {
  done: { code: 0, says: "" },
  "ran out": { code: 1, says: `no recorded answer left for call ${answers.length + 1}` },
  "too many calls": { code: 1, says: "more than --max-calls 50 allows: nothing was sent" }
} as const

/**
 * The child's program: the CLI from source, run in the child's own process, which writes to the file named by its
 * first argument, as it exits, its peak RSS (KiB, as `process.resourceUsage` gives it) and the milliseconds from its
 * modules loaded to its exit (the command's work, without Node's start-up and the loading of the CLI's modules).
 */
const measuredCli = [
  `import { writeFileSync } from "node:fs"`,
  `const out = process.argv[1]`,
  `process.argv[1] = "mneme"`,
  `let loaded = performance.now()`,
  `process.on("exit", () => writeFileSync(out, JSON.stringify({ maxRss: process.resourceUsage().maxRSS, ms: performance.now() - loaded })))`,
  `await import(${JSON.stringify(pathToFileURL(join(repo, "packages/node/src/bin.ts")).href)})`,
  `loaded = performance.now()`
].join("\n")

/** One run of the CLI: its exit code, its stderr, its wall time, the time of its work and its peak RSS in MB. */
interface Run {
  readonly code: number | null
  readonly stderr: string
  readonly wallMs: number
  readonly workMs: number
  readonly rssMb: number
}

/** Runs `mneme args…` as a child process from source, with no model configured in its environment, and measures it. */
const mneme = (scratch: string, args: ReadonlyArray<string>): Promise<Run> =>
  new Promise((resolve, reject) => {
    const measures = join(scratch, "measures.json")
    rmSync(measures, { force: true })
    const { MNEME_BASE_URL: _url, MNEME_API_KEY: _key, MNEME_MODEL: _model, ...env } = process.env
    const started = performance.now()
    const child = spawn(
      process.execPath,
      ["--conditions=@mneme/source", "--input-type=module", "-e", measuredCli, measures, ...args],
      { cwd: repo, env: { ...env, NO_COLOR: "1" }, stdio: ["ignore", "ignore", "pipe"] }
    )
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => {
      const wallMs = performance.now() - started
      const { maxRss, ms } = JSON.parse(readFileSync(measures, "utf8")) as { maxRss: number; ms: number }
      resolve({ code, stderr, wallMs, workMs: ms, rssMb: (maxRss * 1024) / 1e6 })
    })
  })

/**
 * `mneme review FILE --memory MEMORY --model replay:ANSWERS`, with `--max-calls 0` unless `ending` is the stop of the
 * default limit, checked to end as `ending` says.
 */
const review = async (scratch: string, file: string, memory: string, ending: keyof typeof endings): Promise<Run> => {
  const limit = ending === "too many calls" ? [] : ["--max-calls", "0"]
  const model = `replay:${join(scratch, "answers.jsonl")}`
  const run = await mneme(scratch, ["review", file, "--memory", memory, "--model", model, ...limit])
  const expected = endings[ending]
  if (run.code !== expected.code || !run.stderr.includes(expected.says)) {
    throw new Error(`mneme review ${file} ended with ${run.code}, not as expected (${ending}):\n${run.stderr}`)
  }
  return run
}

/**
 * Milliseconds to read `file`'s bytes and `JSON.parse` each line with plain Node: the median of 5 reads after one
 * not counted (so the parsing is compiled code).
 */
const plainRead = (file: string): number => {
  const read = () => {
    let sum = 0
    for (const row of readFileSync(file).toString("utf8").split("\n")) if (row !== "") sum += JSON.parse(row).seq
    if (sum === 0) throw new Error(`${file} holds no lines`)
  }
  read()
  const samples: Array<number> = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    read()
    samples.push(performance.now() - started)
  }
  return summarize(samples).medianMs
}

/** The median times and the largest peak RSS of some runs of one measure. */
const overall = (measured: ReadonlyArray<Run>) => ({
  wallMs: summarize(measured.map((run) => run.wallMs)).medianMs,
  workMs: summarize(measured.map((run) => run.workMs)).medianMs,
  rssMb: Math.max(...measured.map((run) => run.rssMb))
})

/** Whether `rssMb` meets issue 11's goal. */
const goal = (rssMb: number) => `goal < 200 MB: ${rssMb < 200 ? "met" : "NOT MET"}; largest of ${runs} runs`

export const suite: Suite = async () => {
  const scratch = mkdtempSync(join(tmpdir(), "mneme-bench-"))
  try {
    writeFileSync(join(scratch, "answers.jsonl"), answers.map((answer) => JSON.stringify(answer) + "\n").join(""))
    const { prefix, files } = writeTranscripts(
      scratch,
      sizes.map((mb) => mb * 1e6)
    )
    const largest = files.at(-1)!
    const rest = readFileSync(largest.path).subarray(readFileSync(prefix).length)
    const startUp: Array<Run> = []
    const first: Array<Array<Run>> = files.map(() => [])
    const stopped: Array<Run> = []
    const cursor: Array<Run> = []
    // Each round runs every measure once, so a busy spell of the machine falls on all of them alike.
    for (let turn = 0; turn < runs; turn++) {
      const memory = (name: string) => join(scratch, `memory-${turn}-${name}`)
      startUp.push(await review(scratch, prefix, memory("start-up"), "done"))
      for (const [i, file] of files.entries()) {
        first[i]!.push(await review(scratch, file.path, memory(`first-${i}`), "ran out"))
      }
      stopped.push(await review(scratch, largest.path, memory("stopped"), "too many calls"))
      const appended = join(scratch, `appended-${turn}.jsonl`)
      writeFileSync(appended, readFileSync(prefix))
      await review(scratch, appended, memory("cursor"), "done")
      appendFileSync(appended, rest)
      cursor.push(await review(scratch, appended, memory("cursor"), "ran out"))
      rmSync(appended)
    }
    const base = overall(startUp)
    const firsts = first.map(overall)
    const last = firsts.at(-1)!
    const ahead = overall(cursor)
    const plain = files.map((file) => plainRead(file.path))
    const mb = (bytes: number) => bytes / 1e6
    const rssBaseline = { name: `MB, the same review of the ${prefixLines}-line prefix`, value: base.rssMb }
    const rssAt = files.map((_, i) => `${sizes[i]} MB: ${Math.round(firsts[i]!.rssMb)}`).join(", ")
    const times = (measure: ReturnType<typeof overall>) =>
      `medians of ${runs}: work ${Math.round(measure.workMs)} ms, wall ${Math.round(measure.wallMs)} ms ` +
      `(${Math.round(base.wallMs)} ms for the ${prefixLines}-line prefix)`
    const slope = (from: number, to: number, of: ReadonlyArray<number>) =>
      logLogSlope([
        [files[from]!.size, of[from]!],
        [files[to]!.size, of[to]!]
      ])
    const work = firsts.map((measure) => measure.workMs)
    return [
      {
        suite: "transcript",
        name: `first review, ${sizes.at(-1)} MB: peak RSS`,
        value: last.rssMb,
        unit: "MB",
        baseline: rssBaseline,
        note: `${goal(last.rssMb)}; at ${rssAt}`
      },
      {
        suite: "transcript",
        name: `cursor near the start, ${sizes.at(-1)} MB ahead: peak RSS`,
        value: ahead.rssMb,
        unit: "MB",
        baseline: rssBaseline,
        note: goal(ahead.rssMb)
      },
      {
        suite: "transcript",
        name: `first review, ${sizes.at(-1)} MB, default --max-calls (stops before the first call): peak RSS`,
        value: overall(stopped).rssMb,
        unit: "MB",
        baseline: rssBaseline,
        note: `read, checked and estimated only; ${goal(overall(stopped).rssMb)}`
      },
      ...files.map((file, i): Figure => ({
        suite: "transcript",
        name: `first review, ${sizes[i]} MB: time per MB`,
        value: firsts[i]!.workMs / mb(file.size),
        unit: "ms/MB",
        baseline: { name: "plain read + JSON.parse", value: plain[i]! / mb(file.size) },
        note: times(firsts[i]!)
      })),
      {
        suite: "transcript",
        name: `cursor near the start, ${sizes.at(-1)} MB ahead: time per MB`,
        value: ahead.workMs / mb(largest.size),
        unit: "ms/MB",
        baseline: { name: "plain read + JSON.parse", value: plain.at(-1)! / mb(largest.size) },
        note: times(ahead)
      },
      ...[0, 1].map((i): Figure => ({
        suite: "transcript",
        name: `first review: slope of time against size, ${sizes[i]} → ${sizes[i + 1]} MB`,
        value: slope(i, i + 1, work),
        unit: "log-log",
        note: `linear ≈ 1.0 (a fixed cost pulls it below); plain read + JSON.parse: ${slope(i, i + 1, plain).toFixed(2)}`
      }))
    ]
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
