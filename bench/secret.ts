/**
 * The secret benchmarks: `looksSecret` over ordinary memory entries, and `looksSecret` and `redact` on hostile texts
 * of 1k to 1M characters, with the log-log slope of time against size for each shape, over every size and from 100k
 * to 1M alone (1 is linear; docs/spec.md 2 asks for at most 1.2, and every 1M input under 1 s).
 *
 * Every figure carries a baseline measured in the same run: a plain loop reading each character of the same text,
 * so a figure from a busy machine can still be read. The rows of issue 11's table also carry the original host's
 * figure and the ratio (1 or more: mneme is ahead). The original's code is not here: its figures are the issue's,
 * measured on a quiet machine of this kind. For `x`+spaces+`y` and digit runs with spaces the issue gives only the
 * ratio of the original to mneme before this work (0.56–0.74), so those rows compare with the figure of the landed
 * main before it, measured here on a quiet machine (load 0.02), with the goal of at least 1/0.56 times as fast.
 */
import { Secret } from "@mneme/core"
import { type Figure, flat, logLogSlope, type Suite, time } from "./Bench.ts"

/** Hostile shapes: a pattern repeated to the size asked, or two halves of it split by a middle (every pattern is BMP
 * only, so any cut is whole). */
const SHAPES: ReadonlyArray<readonly [name: string, pattern: string, middle?: string]> = [
  ["password words", "password is password for password as my password "],
  ["chinese password words", "密码是密码：我用密码当密码验证码是"],
  ["digits and spaces", "4 1 1 1 "],
  ["mixed-case run", "aB3"],
  ["eyJ fragments", "eyJhbGciOiJ."],
  ["unclosed [key: brackets", "[key: "],
  ["unclosed [a: brackets", "[a:"],
  ["spaces", " "],
  ["sk- repeated", "sk-"],
  ["hyphenated digit groups", "123-"],
  ["URL-ish run", "http://a.co/"],
  ["unclosed quotes", 'password is "'],
  ["use … as my password", "I use x as my password, "],
  ["picked … for the router password", "picked x for the router password "],
  ["ID labels and digits", "ssn passport 1 2 3 4 5 6 7 8 9 0 "],
  ["PEM headers", "-----BEGIN RSA "],
  ["chinese use-as", "我用用用用当密码"],
  ["chinese use-as through ASCII punctuation", "我用a.b!c.当密码"],
  ["chinese use-as with ! ending values", "用a!用b!用c!当密码"],
  ["as repeated before a password", "as as as as as as as as the password. "],
  ["picked repeated", "picked picked picked x for the password, "],
  ["for the repeated", "for the for the for the router password "],
  ["the same … as the root password", "uses the same password as the root password. "],
  ["full-width digits and invisible marks", "９\u200b１\u00ad"],
  ["user / password pairs", "m / Tr0ub4dor&3 "],
  ["a colon late in a password's sentence", "password a b c d e f g h i j k : "],
  ["JSON strings after a password", '"password","'],
  ["a dash after a password", "password - "],
  ["credential: repeated", "credential: "],
  ["two digit-and-space runs split by x", "1 2 3 4 5 6 7 8 9 0 ", "x"],
  ["two digit-and-space runs split by /", "1 2 3 4 5 6 7 8 9 0 ", "/"],
  ["two digit-and-space runs split by ://", "1 2 3 4 5 6 7 8 9 0 ", "://"]
]

const SIZES: ReadonlyArray<readonly [label: string, size: number]> = [
  ["1k", 1_000],
  ["10k", 10_000],
  ["100k", 100_000],
  ["1M", 1_000_000]
]

/** The original host's `looksSecret` figures from issue 11's table, in ms per call, by shape and size. */
const ORIGINAL: Record<string, Record<string, number>> = {
  "mixed-case run": { "1k": 0.0034, "10k": 0.036, "100k": 0.31 },
  "unclosed [a: brackets": { "1k": 0.01, "100k": 0.97 }
}

/** `looksSecret` on the landed main before this work, ms per call (quiet machine), for the rows the issue gives
 * only as a ratio (0.56–0.74) against the original. */
const BEFORE: Record<string, Record<string, number>> = {
  spaces: { "1k": 0.0264, "10k": 0.3314, "100k": 3.129 },
  "digits and spaces": { "1k": 0.07815, "10k": 0.9431, "100k": 7.534 }
}
/** The goal for those rows: at least this many times as fast as before (1 / 0.56). */
const BEFORE_GOAL = 1 / 0.56

/** The original host's figure for 5,000 ordinary entries, entries per second. */
const ORIGINAL_ENTRIES_PER_SEC = 775_000

/** Ordinary memory entries, as the review and the tools vet them: plain facts, some with dates, numbers or talk
 * about passwords and keys that gives none, some in Chinese. */
const FACTS: ReadonlyArray<string> = [
  "The user prefers green tea without sugar in the morning",
  "Lives in Lyon with two cats, Miso and Tofu",
  "Works as a backend engineer at a logistics company since 2019",
  "The weekly planning meeting is on Mondays at 10:00",
  "Keeps every password in a password manager and never reuses one",
  "用户喜欢喝乌龙茶，不加糖",
  "Their daughter's birthday is on 14 March",
  "Is training for the Berlin marathon in September 2026",
  "Prefers short answers with code examples in TypeScript",
  "Allergic to peanuts; always asks about ingredients",
  "Uses Neovim with a custom Lua config on a Linux laptop",
  "Plays the cello in a community orchestra on Thursdays",
  "Their manager is Priya and the skip-level is Tom",
  "Prefers metric units and the 24-hour clock",
  "The API keys for the staging project are kept in the team vault",
  "Drives a 2019 Toyota Corolla and parks at the north garage",
  "Is learning Japanese and practises with flashcards every evening",
  "用户在上海工作，周末喜欢爬山",
  "Reads science fiction; favourite author is Ursula K. Le Guin",
  "Wants a reminder to stretch during long coding sessions",
  "The user's project ships a release every second Thursday",
  "Is vegetarian but eats fish once a week",
  "Moved the family photos to the NAS in the study",
  "The user's flight to Lisbon leaves on 2026-12-03 at 07:45"
]

const entries: ReadonlyArray<string> = Array.from({ length: 5_000 }, (_, i) => FACTS[i % FACTS.length]!)

const input = (pattern: string, size: number, middle: string | undefined): string => {
  if (pattern === " ") return "entry" + " ".repeat(size - 6) + "x"
  const repeated = (length: number) => pattern.repeat(Math.ceil(length / pattern.length)).slice(0, length)
  if (middle === undefined) return repeated(size)
  const half = (size - middle.length) / 2
  return flat(repeated(Math.floor(half)) + middle + repeated(Math.ceil(half)))
}

/** Where the baseline leaves what it read, so the reads are kept. */
let sink = 0

/** The baseline: read every character of `text`, and nothing else. */
const plainLoop = (text: string): void => {
  let sum = 0
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i)
  sink ^= sum
}

/**
 * Milliseconds per call of `fn` on a text of `size`. Calls on small texts are batched to 100k characters per sample,
 * so every size is timed over samples of similar length: on a busy machine a long sample is interrupted more often
 * than a short one, which would tilt the slope without any fault of the code. Sampling goes on for 50 ms at least,
 * so the median is of compiled code, not of the first runs.
 */
const perCall = async (fn: () => unknown, size: number): Promise<number> => {
  const batch = Math.max(1, Math.round(100_000 / size))
  const timing = await time(
    () => {
      for (let k = 0; k < batch; k++) fn()
    },
    { minMs: 50, minRuns: 7 }
  )
  return timing.medianMs / batch
}

const ms = (value: number) =>
  value < 1 ? `${Number((value * 1000).toPrecision(3))} µs` : `${Number(value.toPrecision(3))} ms`
const times = (value: number) => `${Number(value.toPrecision(2))}×`

export const suite: Suite = async () => {
  const figures: Array<Figure> = []
  const figure = (name: string, value: number, unit: string, note: string) =>
    figures.push({ suite: "secret", name, value, unit, note })
  const verdict = (slope: number) => (slope <= 1.2 ? "linear (≤ 1.2)" : "OVER 1.2")

  const entriesMs = (await time(() => entries.forEach((entry) => Secret.looksSecret(entry)))).medianMs
  const entriesBaseline = (await time(() => entries.forEach(plainLoop))).medianMs
  const perSec = (5_000 / entriesMs) * 1000
  figure(
    "looksSecret 5,000 ordinary entries",
    perSec,
    "entries/s",
    `baseline ${Math.round((5_000 / entriesBaseline) * 1000)}/s (plain loop); original 775k/s, ratio ${(perSec / ORIGINAL_ENTRIES_PER_SEC).toFixed(2)} (goal ≥ 1)`
  )

  for (const [shape, pattern, middle] of SHAPES) {
    const detect: Array<readonly [number, number]> = []
    const mask: Array<readonly [number, number]> = []
    const plain: Array<readonly [number, number]> = []
    for (const [label, size] of SIZES) {
      const text = input(pattern, size, middle)
      const baseline = await perCall(() => plainLoop(text), size)
      const looks = await perCall(() => Secret.looksSecret(text), size)
      const redacted = await perCall(() => Secret.redact(text), size)
      detect.push([size, looks])
      mask.push([size, redacted])
      plain.push([size, baseline])
      const within = (value: number) => (size < 1_000_000 ? "" : value < 1000 ? "; under 1 s" : "; OVER 1 s")
      const against = (value: number) => `baseline ${ms(baseline)} (plain loop), ${times(value / baseline)} it`
      const original = ORIGINAL[shape]?.[label]
      const before = BEFORE[shape]?.[label]
      const compared =
        original !== undefined
          ? `; original ${ms(original)}, ratio ${(original / looks).toFixed(2)} (goal ≥ 1)`
          : before !== undefined
            ? `; before ${ms(before)}, ${times(before / looks)} as fast (goal ≥ ${BEFORE_GOAL.toFixed(2)}×)`
            : ""
      figure(`looksSecret ${shape} ${label}`, looks, "ms", against(looks) + compared + within(looks))
      figure(`redact ${shape} ${label}`, redacted, "ms", against(redacted) + within(redacted))
    }
    // The slope over every size, and from 100k to 1M alone, where a quadratic cost shows most (beside the plain
    // loop's over the same sizes: on a busy machine a long sample is interrupted more often, which tilts both).
    const slope = (name: string, points: ReadonlyArray<readonly [number, number]>) => {
      const all = logLogSlope(points)
      const large = logLogSlope(points.slice(-2))
      const note = `${verdict(all)}; 100k–1M ${large.toFixed(2)}, ${verdict(large)} (the plain loop's ${logLogSlope(plain.slice(-2)).toFixed(2)})`
      figure(name, all, "log-log", note)
    }
    slope(`slope ${shape}`, detect)
    slope(`redact slope ${shape}`, mask)
  }
  return figures
}
