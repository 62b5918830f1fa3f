/**
 * `mneme review`'s words: the summary of a run for people, each review's progress line, and a failed review's lines
 * for stderr. An outcome is said through the shared rendering (`outcomeText.ts`).
 */
import { Lines } from "@mneme/core"
import { type MemoryReview, ReviewOutcome } from "@mneme/review"
import * as OutcomeText from "../outcomeText.ts"
import * as Txt from "../text.ts"
import type { FileChange } from "./reviewDryRun.ts"

const at = OutcomeText.at

/**
 * Why a review did not succeed, for a person at the command line. The review's note that it "stopped retrying these
 * lines" is about a host's background reviews: `mneme review` tries whenever it is run, so the note says instead how
 * many reviews of these lines have failed in a row.
 */
export const reasonFor = (
  outcome: MemoryReview.Outcome,
  settings: Lines.CutSettings,
  failures: number
): string | null =>
  outcome._tag === "Failed" && outcome.stopped
    ? `${Lines.mask(outcome.error.message, settings)} (${Txt.count(failures)} reviews of these lines have failed in a row)`
    : ReviewOutcome.reasonOf(outcome)

/**
 * A failed review's lines for stderr, one per failure: each change memory refused, with why; otherwise why the
 * review failed, where.
 */
export const failureLines = (
  outcome: MemoryReview.Outcome,
  reason: string | null,
  pass: number,
  last: number | undefined
): Array<string> => {
  const refused = outcome.changes.failed
  if (refused.length > 0) {
    return refused.map(
      (failed) => `mneme: the review could not ${ReviewOutcome.describeChange(failed.change)}: ${failed.reason}`
    )
  }
  const of = last === undefined ? "" : ` of #${last}`
  return [`mneme: the review failed at ${at(outcome.cursor)}${of} (pass ${pass}): ${reason ?? outcome._tag}`]
}

/** One review's progress line. */
export const progress = (outcome: MemoryReview.Outcome, last: number | undefined): string =>
  OutcomeText.render(
    outcome,
    {
      reviewed: (phrase) => `read ${phrase}`,
      nothingNew: (phrase) => `nothing new ${phrase}`,
      noUserLine: (phrase) => `no user line ${phrase}, nothing to keep`,
      notDone: (phrase) => `failed ${phrase}`
    },
    { last, full: true }
  )

/** The human summary of a review. */
export const renderReview = (
  s: {
    readonly transcript: string
    readonly memory: string
    readonly dryRun: boolean
    readonly passes: number
    readonly modelCalls: number
    readonly cursor: number | null
    readonly lastLine: number | null
    readonly added: ReadonlyArray<ReviewOutcome.Applied>
    readonly edited: ReadonlyArray<ReviewOutcome.Edited>
    readonly removed: ReadonlyArray<ReviewOutcome.Applied>
    readonly leftOut: ReadonlyArray<ReviewOutcome.LeftOut>
    readonly secretsDropped: number
    readonly skipped: ReadonlyArray<ReviewOutcome.Skipped>
    readonly sizes: { readonly own: number; readonly team: number }
    readonly limits: { readonly memory: number }
  },
  files: ReadonlyArray<FileChange>,
  p: Txt.Paint
): Array<string> => {
  const where = OutcomeText.where
  const out: Array<string> = [
    p.bold(`Reviewed ${s.transcript}: `) +
      (s.modelCalls === 0
        ? "nothing new to review"
        : `${Txt.plural(s.passes, "pass", "passes")} (${Txt.plural(s.modelCalls, "model call", "model calls")})`) +
      `, cursor at ${at(s.cursor)}${s.lastLine === null ? "" : ` of #${s.lastLine}`}` +
      (s.dryRun ? p.yellow(` — dry run: nothing was written to ${s.memory}`) : "")
  ]
  const nothing =
    s.added.length + s.edited.length + s.removed.length + s.leftOut.length + s.skipped.length + s.secretsDropped === 0
  // A review that changed nothing is one line (a dry run still says what it would write: nothing).
  if (nothing && !s.dryRun) return out
  const section = (title: string, rows: ReadonlyArray<ReadonlyArray<string>>) => {
    if (rows.length > 0) out.push("", p.bold(`${title} (${Txt.count(rows.length)})`), ...Txt.table(rows))
  }
  section(
    "Added",
    s.added.map((a) => [p.green("+"), where(a.scope, a.topic), a.text])
  )
  section(
    "Edited",
    s.edited.map((e) => [p.yellow("~"), where(e.scope, e.topic), `${e.before}\n${" ".repeat(4)}→ ${e.text}`])
  )
  section(
    "Removed",
    s.removed.map((r) => [p.red("-"), where(r.scope, r.topic), r.text])
  )
  section(
    "Left out",
    s.leftOut.map((l) => [p.yellow("!"), `${l.text}  ${p.dim(`(${l.problem})`)}`])
  )
  // Counted as the pass lines count them: a secret dropped is not an entry left out. Its text is never shown.
  if (s.secretsDropped > 0) {
    out.push(
      "",
      p.bold(`Secrets dropped (${Txt.count(s.secretsDropped)})`),
      ...Txt.table([[p.yellow("!"), p.dim("not shown: memory never keeps keys, passwords or ID numbers")]])
    )
  }
  section(
    "Skipped",
    s.skipped.map((k) => [p.yellow("!"), k.reason])
  )
  out.push(
    "",
    `MEMORY.md: own ${Txt.size(s.sizes.own, s.limits.memory)}, team ${Txt.size(s.sizes.team, s.limits.memory)}`
  )
  if (s.dryRun) {
    out.push("", p.bold(`Would change (${Txt.count(files.length)})`))
    if (files.length === 0) out.push("  nothing")
    for (const file of files) {
      out.push(`  ${file.file}${file.status === "changed" ? "" : ` (${file.status})`}`)
      for (const line of file.removed) out.push(p.red(`    - ${line}`))
      for (const line of file.added) out.push(p.green(`    + ${line}`))
    }
  }
  return out
}
