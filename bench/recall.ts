/**
 * The recall benchmark (`pnpm bench recall --locomo FILE`): how well the agent's `recall` finds what was said, on a
 * conversation of LoCoMo (long conversations, with questions and the turns that answer them), beside a textbook BM25
 * over the same entries in the same run; and how long one recall takes there and over a full scope.
 *
 * Each turn is stored as one entry through the memory store, one topic a session (`session-N`): `<speaker>: <text>`,
 * with the caption of a photo the turn shares, and `[source: <conversation>/<dia id>; added: <session date>]`. A turn
 * with its caption runs to about 600 characters, past an entry's 300: the memory here allows entries of 1,000; the
 * rest of the settings are the defaults (a session's topic stays within 16,000 characters, 19 sessions within 40
 * topics). Every question is asked verbatim through the agent's `recall` tool with the default limits. A question
 * counts as found at k when one of its evidence turns is among the first k entries given; MRR is over the entries
 * given (0 when none is an evidence turn). The characters returned are those of the entries' text. BM25 (k1 1.2,
 * b 0.75, words of letters and digits in lower case, nothing stemmed or left out) ranks every entry sharing a word
 * with the question, cut to the same limits.
 *
 * The full scope is a memory of the agent's own: MEMORY.md of 4,000 characters and 40 topics of 16,000, filled with
 * the conversation's turns again and again (each copy numbered, so no two entries are the same), asked every question.
 * Beside each tool call's time (end to end: both scopes loaded through the store, searched, the result encoded), the
 * search alone (`Recall.search` over the files' indexes) tells what of it is the ranking's.
 *
 * The review's choice of topic entries (`Selection`) is measured on the same memory, each question taken as the user's
 * new lines: how often an evidence turn is among the entries it shows, and how often it would be with recall's ranking.
 * And, with or without a LoCoMo file, hostile queries and a hostile entry of 1k to 1M characters, with the slope.
 */
import { NodeServices } from "@effect/platform-node"
import { Entry, Lines, MemoryConfig, MemoryScope, Recall, Selection, Text } from "@mneme/core"
import { NodePlatform } from "@mneme/node"
import { Memory, MemoryStore, MemoryTools, ReviewModel } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect, Layer, Logger, ManagedRuntime, Schema } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { performance } from "node:perf_hooks"
import { type Figure, flat, logLogSlope, type Options, type Suite, time } from "./Bench.ts"

// ---------------------------------------------------------------------------------------------------------------------
// The conversation file

const Turn = Schema.Struct({
  speaker: Schema.String,
  dia_id: Schema.String,
  text: Schema.String,
  blip_caption: Schema.optionalKey(Schema.String)
})

const Question = Schema.Struct({
  question: Schema.String,
  evidence: Schema.Array(Schema.String),
  category: Schema.Number
})

/** A LoCoMo conversation: its sessions (`session_N`, `session_N_date_time`) and questions, other keys aside. */
const Conversation = Schema.Struct({ qa: Schema.Array(Question) })

const decodeTurns = Schema.decodeUnknownSync(Schema.Array(Turn))
const decodeConversation = Schema.decodeUnknownSync(Conversation)
const decodeRecalled = Schema.decodeUnknownSync(MemoryTools.RecallResult)

/** A session's date (`1:56 pm on 8 May, 2023`) as `YYYY-MM-DD`. */
const dateOf = (written: string): string => {
  const match = /(\d{1,2}) ([A-Za-z]+),? (\d{4})/.exec(written)
  const day = match === null ? Number.NaN : Date.parse(`${match[1]} ${match[2]} ${match[3]} UTC`)
  if (Number.isNaN(day)) throw new Error(`locomo: a session date that is not a date: ${written}`)
  return new Date(day).toISOString().slice(0, 10)
}

/** A session: its number, date, and turns as entry texts with their dia ids. */
interface Session {
  readonly number: number
  readonly added: string
  readonly turns: ReadonlyArray<{ readonly id: string; readonly text: string }>
}

/** The sessions and questions of a LoCoMo conversation file. */
const read = (file: string) => {
  const raw: unknown = JSON.parse(readFileSync(file, "utf8"))
  const { qa } = decodeConversation(raw)
  const fields = raw as Record<string, unknown>
  const sessions: Array<Session> = Object.keys(fields)
    .flatMap((key) => {
      const match = /^session_(\d+)$/.exec(key)
      return match === null ? [] : [Number(match[1])]
    })
    .toSorted((a, b) => a - b)
    .map((number) => ({
      number,
      added: dateOf(String(fields[`session_${number}_date_time`])),
      turns: decodeTurns(fields[`session_${number}`]).map((turn) => ({
        id: turn.dia_id,
        text: `${turn.speaker}: ${turn.text}${turn.blip_caption === undefined ? "" : ` (shares ${turn.blip_caption})`}`
      }))
    }))
  return { conversation: basename(file).replace(/\.json$/, ""), sessions, questions: qa }
}

// ---------------------------------------------------------------------------------------------------------------------
// Measures

const categories: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial"
}

/** What one ranking gave for one question: the rank of its first evidence turn (from 1), and the characters given. */
interface Answer {
  readonly category: number
  readonly rank: number | undefined
  readonly chars: number
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
}

/** Hit@1, @5, @10 (shares), MRR and the median characters of the answers. */
const measure = (answers: ReadonlyArray<Answer>) => {
  const hit = (k: number) => answers.filter((a) => a.rank !== undefined && a.rank <= k).length / answers.length
  return {
    questions: answers.length,
    hit1: hit(1),
    hit5: hit(5),
    hit10: hit(10),
    mrr: answers.reduce((sum, a) => sum + (a.rank === undefined ? 0 : 1 / a.rank), 0) / answers.length,
    chars: median(answers.map((a) => a.chars))
  }
}

/** The rank of the first entry of `given` (their sources) among `evidence`, from 1. */
const rankOf = (given: ReadonlyArray<string | undefined>, evidence: ReadonlySet<string>) => {
  const at = given.findIndex((id) => id !== undefined && evidence.has(id))
  return at < 0 ? undefined : at + 1
}

/** The dia ids a question's evidence names (`"D8:6; D9:17"` names two). */
const evidenceOf = (evidence: ReadonlyArray<string>): ReadonlySet<string> =>
  new Set(evidence.flatMap((item) => item.split(/[;,\s]+/).filter((id) => id !== "")))

// ---------------------------------------------------------------------------------------------------------------------
// Textbook BM25, the baseline

const bm25Words = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** A BM25 index of `texts` (k1 1.2, b 0.75, Lucene's idf): `rank(query)` gives the indices sharing a word, best first. */
const bm25 = (texts: ReadonlyArray<string>) => {
  const k1 = 1.2
  const b = 0.75
  const counts = texts.map((text) => {
    const count = new Map<string, number>()
    for (const word of bm25Words(text)) count.set(word, (count.get(word) ?? 0) + 1)
    return count
  })
  const lengths = texts.map((text) => bm25Words(text).length)
  const average = lengths.reduce((a, b) => a + b, 0) / texts.length
  const frequency = new Map<string, number>()
  for (const count of counts) for (const word of count.keys()) frequency.set(word, (frequency.get(word) ?? 0) + 1)
  const idf = (word: string) => {
    const n = frequency.get(word) ?? 0
    return Math.log(1 + (texts.length - n + 0.5) / (n + 0.5))
  }
  return (query: string): Array<number> => {
    const words = [...new Set(bm25Words(query))]
    const scored = counts.flatMap((count, i) => {
      let score = 0
      for (const word of words) {
        const tf = count.get(word) ?? 0
        if (tf > 0) score += (idf(word) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[i]!) / average))
      }
      return score > 0 ? [{ i, score }] : []
    })
    return scored.toSorted((x, y) => y.score - x.score || x.i - y.i).map(({ i }) => i)
  }
}

/** The first of `texts` (in rank order) that fit `limits` as recall cuts them: the first always, however long. */
const withinLimits = (ranked: ReadonlyArray<number>, texts: ReadonlyArray<string>, settings: MemoryConfig.Settings) => {
  const given: Array<number> = []
  let used = 0
  for (const i of ranked) {
    used += Text.length(texts[i]!)
    if (given.length >= settings.recallResultsMax || (given.length > 0 && used > settings.recallBudget)) break
    given.push(i)
  }
  return given
}

// ---------------------------------------------------------------------------------------------------------------------
// The memory

/** A runtime of mneme over a memory root, with agent `a1`, and a turn of it for the tools. */
const open = async (root: string, settings: Partial<MemoryConfig.Settings>) => {
  const runtime = ManagedRuntime.make(
    Memory.layer({ root, settings }).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          Testing.transcriptMemory,
          ReviewModel.layer(() => Effect.succeed({ text: `{"changes":[]}` })),
          NodeServices.layer,
          NodePlatform.layer
        )
      ),
      Layer.provideMerge(Logger.layer([]))
    )
  )
  const turn = await runtime.runPromise(
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "a1", name: "Ada", mayWriteTeam: true })
      return yield* MemoryTools.startTurn("a1")
    })
  )
  /** The agent's `recall` of `query`, as the model reads it, and how long it took in ms. */
  const recall = async (query: string) => {
    const started = performance.now()
    const result = await runtime.runPromise(MemoryTools.call(turn, "recall", { query }))
    const ms = performance.now() - started
    if (result.isError) throw new Error(`recall failed: ${JSON.stringify(result.result)}`)
    return { recalled: decodeRecalled(result.result), ms }
  }
  return { runtime, recall }
}

/**
 * Each question asked once to warm up, then again, timed: the answers of the timed pass, the times in ms, and the
 * process's CPU time per question (a steadier figure on a busy machine).
 */
const askAll = async (
  recall: (query: string) => Promise<{ recalled: typeof MemoryTools.RecallResult.Type; ms: number }>,
  questions: ReadonlyArray<{ readonly question: string }>
) => {
  for (const { question } of questions) await recall(question)
  const results: Array<typeof MemoryTools.RecallResult.Type> = []
  const times: Array<number> = []
  const before = process.cpuUsage()
  for (const { question } of questions) {
    const { recalled, ms } = await recall(question)
    results.push(recalled)
    times.push(ms)
  }
  const cpu = process.cpuUsage(before)
  return { results, times, cpuMs: (cpu.user + cpu.system) / 1_000 / questions.length }
}

/** The times in ms of the search alone (`Recall.search` over each file's index, built once) for each question. */
const searchAlone = async (
  runtime: Awaited<ReturnType<typeof open>>["runtime"],
  questions: ReadonlyArray<{ readonly question: string }>
) => {
  const views = await runtime.runPromise(
    Effect.flatMap(MemoryStore.MemoryStore, (store) =>
      Effect.all([store.load(MemoryScope.own("a1")), store.load(MemoryScope.team)])
    )
  )
  const indexes = views.flatMap((view) =>
    view.files.map((file) =>
      Recall.index(
        file.parsed.entries.map((entry) => ({
          scope: MemoryScope.side(view.scope),
          topic: file.topic,
          text: entry.text,
          meta: entry.meta
        }))
      )
    )
  )
  const limits = { resultsMax: MemoryConfig.defaults.recallResultsMax, budget: MemoryConfig.defaults.recallBudget }
  for (const { question } of questions) Recall.search({ indexes }, question, limits)
  return questions.map(({ question }) => {
    const started = performance.now()
    Recall.search({ indexes }, question, limits)
    return performance.now() - started
  })
}

/** A full scope of `a1` written as files: MEMORY.md of 4,000 characters, 40 topics of 16,000, from `texts` again. */
const writeFullScope = (root: string, texts: ReadonlyArray<string>, added: string) => {
  const dir = join(root, "agents", "a1")
  mkdirSync(dir, { recursive: true })
  const topics = Array.from({ length: 40 }, (_, i) => `topic-${i}`)
  const index = ["", "## Index", ...topics.map((topic) => `- [[${topic}]]`)]
  let n = 0
  const fill = (head: ReadonlyArray<string>, size: number) => {
    const lines = [...head]
    let used = lines.join("\n").length
    for (;;) {
      const text = texts[n % texts.length]!
      const line = Entry.format(`${text} (copy ${Math.floor(n / texts.length) + 1})`, [["added", added]])
      if (used + 1 + line.length > size) return lines
      lines.push(line)
      used += 1 + line.length
      n++
    }
  }
  const memory = fill(["# Memory", ""], 4_000 - index.join("\n").length - 1)
  writeFileSync(join(dir, "MEMORY.md"), [...memory, ...index, ""].join("\n"))
  for (const topic of topics)
    writeFileSync(join(dir, `${topic}.md`), [...fill([`# ${topic}`, ""], 15_999), ""].join("\n"))
  return n
}

// ---------------------------------------------------------------------------------------------------------------------
// Hostile inputs

/** Hostile queries of about `size` characters. */
const hostileQueries: Record<string, (size: number) => string> = {
  "one Latin word": (size) => "a".repeat(size),
  "distinct words": (size) => Array.from({ length: size / 7 }, (_, i) => `w${i.toString(36)}x`).join(" "),
  "dates and months": (size) => "in May 2023, 2024-06-01 or last October ".repeat(size / 40),
  "one Han run": (size) => "茶".repeat(size),
  "stop words only": (size) => "the of and ".repeat(size / 11)
}
const hostileSizes = [1_000, 10_000, 100_000, 1_000_000]

/**
 * One search over 200 entries for each hostile query of 1k to 1M characters, and the index of one hostile entry of
 * that size (a file edited by hand): the time at 1M, with the log-log slope (about 1 means linear).
 */
const hostileFigures = async (): Promise<Array<Figure>> => {
  const entries = Array.from({ length: 200 }, (_, i): Recall.Candidate => ({
    scope: "own",
    topic: undefined,
    text: `Entry ${i}: the user works on project w${i.toString(36)}x with a team in Lyon since May 2023`,
    meta: [["added", `2023-05-${String((i % 28) + 1).padStart(2, "0")}`]]
  }))
  const memory = { indexes: [Recall.index(entries)] }
  const limits = { resultsMax: 20, budget: 4_000 }
  const slope = async (name: string, run: (text: string) => unknown, make: (size: number) => string) => {
    const points: Array<readonly [number, number]> = []
    for (const size of hostileSizes) {
      const text = flat(make(size))
      points.push([text.length, (await time(() => run(text), { minMs: 200, minRuns: 3 })).medianMs])
    }
    return {
      suite: "recall",
      name: `${name} 1M`,
      value: points[points.length - 1]![1],
      unit: "ms",
      note: `log-log slope ${logLogSlope(points).toFixed(2)}`
    }
  }
  const figures: Array<Figure> = []
  for (const [shape, make] of Object.entries(hostileQueries)) {
    figures.push(await slope(`search, query: ${shape},`, (query) => Recall.search(memory, query, limits), make))
  }
  const entry = (text: string): Recall.Candidate => ({ scope: "own", topic: undefined, text, meta: [] })
  figures.push(
    await slope(
      "index, one entry: words and Han",
      (text) => Recall.index([entry(text)]),
      (size) => "word 中文 ".repeat(size / 8)
    )
  )
  return figures
}

// ---------------------------------------------------------------------------------------------------------------------
// The review's choice

/**
 * How often the review's choice of topic entries (`Selection.choose`: those sharing the most words first, then the
 * newest, within 16,000 characters) shows an evidence turn of a question taken as the user's new lines; and the same
 * for recall's ranking there (the relevant entries by score, then the others newest first, within the same budget).
 */
const reviewChoice = (
  lists: ReadonlyArray<ReadonlyArray<Recall.Candidate>>,
  questions: ReadonlyArray<{ readonly question: string; readonly evidence: ReadonlySet<string> }>,
  idOf: (text: string) => string | undefined
) => {
  const budget = MemoryConfig.defaults.shownTopicsBudget
  const indexes = { indexes: lists.map(Recall.index) }
  const all = lists.flat()
  const newest = all.toSorted((a, b) =>
    (Entry.metaValue(b.meta, "added") ?? "").localeCompare(Entry.metaValue(a.meta, "added") ?? "")
  )
  const shown = {
    selection: (question: string) =>
      Selection.choose({ own: [], team: [], topics: { lists }, userText: question }, { shownTopicsBudget: budget })
        .shown,
    recall: (question: string) => {
      const relevant = Recall.search(indexes, question, Recall.unlimited).entries.map((e) => e.text)
      const taken = new Set(relevant)
      const order = [...relevant, ...newest.map((e) => e.text).filter((text) => !taken.has(text))]
      const fitting: Array<{ readonly text: string }> = []
      let used = 0
      for (const text of order) {
        used += Text.length(text)
        if (used > budget) break
        fitting.push({ text })
      }
      return fitting
    }
  }
  const share = (choose: (question: string) => ReadonlyArray<{ readonly text: string }>) =>
    questions.filter((q) => choose(q.question).some((e) => q.evidence.has(idOf(e.text) ?? ""))).length /
    questions.length
  return { selection: share(shown.selection), recall: share(shown.recall), shown }
}

// ---------------------------------------------------------------------------------------------------------------------
// The suite

const percent = (share: number) => Math.round(share * 1_000) / 10

export const suite: Suite = async (options: Options) => {
  const hostile = await hostileFigures()
  if (options.locomo === undefined) {
    process.stderr.write("bench: recall measures on LoCoMo with --locomo FILE: only its hostile inputs were run\n")
    return hostile
  }
  const { conversation, sessions, questions } = read(options.locomo)
  const settings = MemoryConfig.make({ entryMax: 1_000 })
  const roots = [mkdtempSync(join(tmpdir(), "mneme-bench-")), mkdtempSync(join(tmpdir(), "mneme-bench-"))] as const
  const memory = await open(roots[0], { entryMax: settings.entryMax })
  const full = await (async () => {
    const texts = sessions.flatMap((session) => session.turns.map((turn) => turn.text))
    const entries = writeFullScope(roots[1], texts, sessions.at(-1)?.added ?? "2026-01-01")
    return { entries, ...(await open(roots[1], {})) }
  })()
  try {
    // Every turn through the store; a turn the store keeps already (the same text) or cannot keep is counted.
    const notKept: Array<string> = []
    await memory.runtime.runPromise(
      Effect.gen(function* () {
        const store = yield* MemoryStore.MemoryStore
        for (const session of sessions) {
          for (const turn of session.turns) {
            const outcome = yield* store
              .add({
                scope: MemoryScope.own("a1"),
                topic: `session-${session.number}`,
                text: turn.text,
                meta: [
                  ["source", `${conversation}/${turn.id}`],
                  ["added", session.added]
                ],
                actor: "bench"
              })
              .pipe(Effect.catch((error) => Effect.succeed({ changed: false, message: error.message })))
            if (!outcome.changed) notKept.push(`${turn.id}: ${outcome.message}`)
          }
        }
      })
    )
    const stored = await memory.runtime.runPromise(
      Effect.flatMap(MemoryStore.MemoryStore, (store) => store.load(MemoryScope.own("a1")))
    )
    const entries = stored.files.flatMap((file) => file.parsed.entries)
    const idOf = new Map<string, string>()
    for (const entry of entries) {
      const id = (Entry.metaValue(entry.meta, "source") ?? "").slice(conversation.length + 1)
      idOf.set(entry.text, id)
      idOf.set(Lines.mask(entry.text, settings), id)
    }
    const texts = entries.map((entry) => entry.text)
    const baseline = bm25(texts)

    const asked = await askAll(memory.recall, questions)
    const mneme: Array<Answer> = []
    const textbook: Array<Answer> = []
    questions.forEach((q, i) => {
      const evidence = evidenceOf(q.evidence)
      const given = asked.results[i]!.entries
      const unknown = given.find((entry) => !idOf.has(entry.text))
      if (unknown !== undefined) throw new Error(`recall gave an entry that was not stored: ${unknown.text}`)
      mneme.push({
        category: q.category,
        rank: rankOf(
          given.map((entry) => idOf.get(entry.text)),
          evidence
        ),
        chars: given.reduce((sum, entry) => sum + Text.length(entry.text), 0)
      })
      const ranked = withinLimits(baseline(q.question), texts, settings)
      textbook.push({
        category: q.category,
        rank: rankOf(
          ranked.map((e) => idOf.get(texts[e]!)),
          evidence
        ),
        chars: ranked.reduce((sum, e) => sum + Text.length(texts[e]!), 0)
      })
    })
    const fullAsked = await askAll(full.recall, questions)
    const searched = await searchAlone(memory.runtime, questions)
    const fullSearched = await searchAlone(full.runtime, questions)
    const lists = stored.files.map((file) =>
      file.parsed.entries.map((entry): Recall.Candidate => ({ scope: "own", topic: file.topic, ...entry }))
    )
    const answerable = questions
      .filter((q) => q.category <= 4)
      .map((q) => ({ question: q.question, evidence: evidenceOf(q.evidence) }))
    const choice = reviewChoice(lists, answerable, (text) => idOf.get(text))
    const choosing = await time(() => choice.shown.selection(answerable[0]!.question), { minMs: 300 })
    const ranking = await time(() => choice.shown.recall(answerable[0]!.question), { minMs: 300 })

    const groups = [
      { name: "1–4", in: (c: number) => c >= 1 && c <= 4 },
      ...[1, 2, 3, 4, 5].map((c) => ({ name: `${c} ${categories[c]}`, in: (category: number) => category === c }))
    ]
    const table = groups.flatMap((group) =>
      (
        [
          ["mneme", mneme],
          ["BM25", textbook]
        ] as const
      ).map(([ranking, answers]) => {
        const m = measure(answers.filter((a) => group.in(a.category)))
        return {
          categories: group.name,
          ranking,
          questions: m.questions,
          "hit@1 %": percent(m.hit1),
          "hit@5 %": percent(m.hit5),
          "hit@10 %": percent(m.hit10),
          MRR: Math.round(m.mrr * 1_000) / 1_000,
          "median chars": m.chars
        }
      })
    )
    console.log(
      `recall on ${conversation}: ${entries.length} entries of ${sessions.reduce((n, s) => n + s.turns.length, 0)} ` +
        `turns (${notKept.length} not kept${notKept.length === 0 ? "" : `: ${notKept.join("; ")}`}), ` +
        `${questions.length} questions`
    )
    console.table(table)

    const headline = (answers: ReadonlyArray<Answer>) => measure(answers.filter((a) => a.category <= 4))
    const ours = headline(mneme)
    const theirs = headline(textbook)
    const figure = (name: string, value: number, unit: string, other: number | undefined, note: string): Figure => ({
      suite: "recall",
      name,
      value,
      unit,
      note,
      ...(other === undefined ? {} : { baseline: { name: "BM25", value: other } })
    })
    const goal = (met: boolean, text: string) => `goal ${text}${met ? "" : ", NOT MET"}`
    const perCategory = [1, 2, 3, 4, 5].map((c) => {
      const a = measure(mneme.filter((x) => x.category === c))
      const b = measure(textbook.filter((x) => x.category === c))
      return figure(
        `hit@5, category ${c} (${categories[c]})`,
        percent(a.hit5),
        "%",
        percent(b.hit5),
        c === 5 ? `${a.questions} questions, unanswerable` : goal(a.hit5 > b.hit5, "ahead of BM25")
      )
    })
    const p95 = percentile(asked.times, 0.95)
    const fullP95 = percentile(fullAsked.times, 0.95)
    return [
      figure("hit@1, categories 1–4", percent(ours.hit1), "%", percent(theirs.hit1), goal(ours.hit1 >= 0.4, "≥ 40%")),
      figure("hit@5, categories 1–4", percent(ours.hit5), "%", percent(theirs.hit5), goal(ours.hit5 >= 0.65, "≥ 65%")),
      figure("hit@10, categories 1–4", percent(ours.hit10), "%", percent(theirs.hit10), `${ours.questions} questions`),
      figure(
        "MRR, categories 1–4",
        Math.round(ours.mrr * 1_000) / 1_000,
        "MRR",
        Math.round(theirs.mrr * 1_000) / 1_000,
        "over the entries given"
      ),
      ...perCategory,
      figure(
        "median characters returned, categories 1–4",
        ours.chars,
        "chars",
        theirs.chars,
        goal(ours.chars <= 2_500, "≤ 2,500")
      ),
      figure(
        "recall p50, LoCoMo memory",
        percentile(asked.times, 0.5),
        "ms",
        undefined,
        `${entries.length} entries, the agent's tool end to end; CPU ${asked.cpuMs.toPrecision(3)} ms per call`
      ),
      figure(
        "recall p95, LoCoMo memory",
        p95,
        "ms",
        undefined,
        `${entries.length} entries; ${goal(p95 <= 5, "≤ 5 ms")}`
      ),
      figure(
        "of which: the search, p95, LoCoMo memory",
        percentile(searched, 0.95),
        "ms",
        undefined,
        `Recall.search over the files' indexes, built once; p50 ${percentile(searched, 0.5).toPrecision(3)} ms`
      ),
      figure(
        "recall p50, full scope",
        percentile(fullAsked.times, 0.5),
        "ms",
        undefined,
        `${full.entries} entries in 40 topics of 16,000 characters; CPU ${fullAsked.cpuMs.toPrecision(3)} ms per call`
      ),
      figure(
        "recall p95, full scope",
        fullP95,
        "ms",
        undefined,
        `${full.entries} entries; ${goal(fullP95 <= 20, "≤ 20 ms")}`
      ),
      figure(
        "of which: the search, p95, full scope",
        percentile(fullSearched, 0.95),
        "ms",
        undefined,
        `Recall.search over the files' indexes, built once; p50 ${percentile(fullSearched, 0.5).toPrecision(3)} ms`
      ),
      figure(
        "review's choice shows an evidence turn, categories 1–4",
        percent(choice.selection),
        "%",
        undefined,
        `Selection.choose, the question as the user's lines, 16,000 characters; by recall's ranking ${percent(choice.recall)}%`
      ),
      figure(
        "review's choice, one question, LoCoMo memory",
        choosing.medianMs,
        "ms",
        undefined,
        `Selection.choose; by recall's ranking ${ranking.medianMs.toPrecision(3)} ms`
      ),
      ...hostile
    ]
  } finally {
    await memory.runtime.dispose()
    await full.runtime.dispose()
    for (const root of roots) rmSync(root, { recursive: true, force: true })
  }
}
