/**
 * What `mneme watch` says as it goes: its events, as one JSON object a line for scripts or as lines for people. A
 * review's lines are its outcome said through the shared rendering (`outcomeText.ts`).
 */
import { type MemoryReview, type ReviewOutcome } from "@mneme/review"
import * as TranscriptFormat from "../../TranscriptFormat.ts"
import * as OutcomeText from "../outcomeText.ts"
import * as Txt from "../text.ts"

/** What watch says as it goes: a line for people, or one JSON object a line for scripts. */
export type Event =
  | { readonly event: "watching"; readonly folder: string; readonly memory: string; readonly files: number }
  | {
      readonly event: "review"
      readonly file: string
      readonly conversation: string
      readonly outcome: MemoryReview.Outcome["_tag"]
      readonly cursor: number | null
      readonly lastLine: number | null
      readonly modelCalls: number
      readonly added: ReadonlyArray<ReviewOutcome.Applied>
      readonly edited: ReadonlyArray<ReviewOutcome.Edited>
      readonly removed: ReadonlyArray<ReviewOutcome.Applied>
      readonly leftOut: ReadonlyArray<ReviewOutcome.LeftOut>
      readonly reason: string | null
    }
  | { readonly event: "held"; readonly file: string; readonly conversation: string; readonly reason: string }
  | { readonly event: "unreadable"; readonly file: string; readonly reason: string }
  | { readonly event: "error"; readonly file: string | null; readonly reason: string }
  | { readonly event: "replaced"; readonly file: string; readonly conversation: string }
  | { readonly event: "renamed"; readonly from: string; readonly to: string }
  | { readonly event: "stopping"; readonly reviewing: string | null; readonly grace: number }
  | { readonly event: "stopped"; readonly abandoned: string | null }

/** Lines for people, and whether they are for stderr (a problem, or watch itself) rather than stdout. */
export interface Said {
  readonly lines: ReadonlyArray<string>
  readonly stderr: boolean
}

/** What an entry's change looks like under a review's line. */
const entryLine = (sign: string, entry: ReviewOutcome.Applied) =>
  `  ${sign} ${OutcomeText.where(entry.scope, entry.topic)}: ${entry.text}`

/**
 * A review of `file` as lines for people: what it changed, entry by entry (nothing when there was nothing new), or
 * why it did not succeed, its reason masked by `mask`.
 */
export const reviewed = (
  file: string,
  outcome: MemoryReview.Outcome,
  lastLine: number | null,
  mask: (reason: string) => string
): Said =>
  OutcomeText.render<Said>(
    outcome,
    {
      reviewed: (phrase) => ({
        stderr: false,
        lines: [
          `${file}: reviewed ${phrase}`,
          ...outcome.changes.added.map((entry) => entryLine("+", entry)),
          ...outcome.changes.edited.map((entry) => entryLine("~", entry)),
          ...outcome.changes.removed.map((entry) => entryLine("-", entry))
        ]
      }),
      nothingNew: () => ({ stderr: false, lines: [] }),
      noUserLine: (phrase) => ({ stderr: false, lines: [`${file}: no user line ${phrase}, nothing to keep`] }),
      notDone: (phrase) => ({ stderr: true, lines: [`${file}: not reviewed ${phrase}`] })
    },
    { last: lastLine, mask }
  )

/** Any other event as lines for people. */
export const render = (event: Exclude<Event, { readonly event: "review" }>): Said => {
  switch (event.event) {
    case "watching":
      return {
        stderr: true,
        lines: [
          `mneme watch: following ${Txt.plural(event.files, "file", "files")} in ${event.folder} into ${event.memory}` +
            " (Ctrl-C stops)"
        ]
      }
    case "held":
    case "unreadable":
      return { stderr: true, lines: [`${event.file}: ${event.reason}`] }
    case "error":
      return { stderr: true, lines: [`mneme watch: ${event.file === null ? "" : `${event.file}: `}${event.reason}`] }
    case "replaced":
      return {
        stderr: true,
        lines: [`${event.file}: cut or replaced since its review; reviewed as a new conversation from its first line`]
      }
    case "renamed":
      return { stderr: true, lines: [`${event.from}: moved to ${event.to}, which goes on from its cursor`] }
    case "stopping":
      return {
        stderr: true,
        lines: [
          event.reviewing === null
            ? "mneme watch: stopping"
            : `mneme watch: stopping once the review of ${event.reviewing} finishes (at most ` +
              `${Txt.plural(event.grace, "second", "seconds")}; Ctrl-C again abandons it)`
        ]
      }
    case "stopped":
      return {
        stderr: true,
        lines: [
          event.abandoned === null
            ? "mneme watch: stopped"
            : `mneme watch: stopped; the review of ${event.abandoned} was abandoned, its lines are reviewed when ` +
              "watch runs again"
        ]
      }
  }
}

/**
 * Why a file could not be read, without its path (the line names it): a file of no transcript shape is said in
 * short, as a folder may hold other files (`mneme review FILE` says what is wrong with it at length).
 */
export const unreadable = (reason: string, file: string): string =>
  reason.includes(TranscriptFormat.fitsNone)
    ? "not a transcript in a shape mneme reads (mneme review FILE says why); skipped until it changes"
    : `${reason.startsWith(file) ? reason.slice(file.length).replace(/^:? /, "") : reason}; tried again when it changes`
