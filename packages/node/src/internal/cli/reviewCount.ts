/**
 * `mneme review`'s counting: the model calls a review of a transcript's new lines needs before any is made (the
 * estimate, split as the review splits them), where a review starts, the errors of a run that would make too many
 * calls or whose cursor is past the file's end, and the net effect of a run's reviews on memory.
 */
import { Lines, MaskedTaggedError, type MemoryConfig, Text } from "@mneme/core"
import { ReviewOutcome, ReviewState } from "@mneme/review"
import { Effect, Schema } from "effect"
import * as Txt from "../text.ts"
import * as TranscriptIndex from "../transcriptIndex.ts"

/** The conversation's cursor is past the transcript's last line: the file was cut or replaced since its review. */
export class CursorPastEnd extends MaskedTaggedError<CursorPastEnd>()("CursorPastEnd", {
  conversation: Schema.String,
  cursor: Schema.Number,
  lastLine: Schema.Number
}) {
  override get message() {
    return (
      `conversation ${this.conversation} was reviewed up to line #${this.cursor}, but this transcript ends at ` +
      `#${this.lastLine}: the file was cut or replaced since. To review it from its first line, as a new ` +
      `conversation, pass --conversation with a new id`
    )
  }
}

/**
 * The review would make more model calls than `--max-calls` allows: it stops before the first, and says how many it
 * would make and how to allow them.
 */
export class TooManyCalls extends Schema.TaggedError<TooManyCalls>()("TooManyCalls", {
  calls: Schema.Number,
  maxCalls: Schema.Number,
  characters: Schema.Number,
  budget: Schema.Number
}) {
  override get message() {
    return (
      `this review would make about ${Txt.plural(this.calls, "model call", "model calls")} ` +
      `(${Txt.count(this.characters)} characters of lines not reviewed yet, at most ` +
      `${Txt.count(this.budget)} a call), more than --max-calls ${Txt.count(this.maxCalls)} ` +
      `allows: nothing was sent. To make them, pass --max-calls ${this.calls} (or --max-calls 0 for no limit)`
    )
  }
}

/** The model calls a review of the lines after a cursor needs, as far as they can be known before asking. */
export interface Estimate {
  /** The last line of each call's lines, oldest first: one call each. */
  readonly calls: ReadonlyArray<number>
  /** Characters of the lines after the cursor, cut and masked as the model would see them. */
  readonly characters: number
}

/**
 * The model calls reviewing the lines after `cursor` to the end needs, split as the review splits them (docs/spec.md 4.2,
 * `Lines.fitEnd`): each review reads as many of the new lines as fit in `newLinesBudget` characters of cut text (the
 * first always), and asks the model once when they hold a user line; lines with no user line after them are passed
 * without a call. An answer at its cap that changed something earns up to `extraPassesMax` more calls over the same
 * lines; those depend on the answers and are not counted here, so the run checks again between reviews. The lines
 * are read from their index: their seqs, which are the user's own words, and their sizes cut as the review cuts them.
 */
export const estimate = (
  lines: TranscriptIndex.Index,
  cursor: number,
  settings: Pick<MemoryConfig.Settings, "newLinesBudget">
): Estimate => {
  const calls: Array<number> = []
  let characters = 0
  let lastUser = lines.count - 1
  while (lastUser >= 0 && !lines.userAt(lastUser)) lastUser--
  const sizeAt = (index: number) => lines.cutSizeAt(index)
  let start = TranscriptIndex.after(lines, cursor)
  while (start < lines.count) {
    // The lines after the last user line are passed at once, without a call.
    const end = start > lastUser ? lines.count : Lines.fitEnd(sizeAt, start, lines.count, settings.newLinesBudget)
    let user = false
    for (let index = start; index < end; index++) {
      characters += sizeAt(index)
      user ||= lines.userAt(index)
    }
    if (user) calls.push(lines.seqAt(end - 1))
    start = end
  }
  return { calls, characters }
}

/**
 * Where a review of `target` starts (its cursor; for a conversation never reviewed, before the file's first line) and
 * the model calls it needs from there. A cursor past the file's last line fails.
 */
export const planOf = Effect.fnUntraced(function* (
  target: ReviewOutcome.Target,
  lines: TranscriptIndex.Index,
  settings: Pick<MemoryConfig.Settings, "newLinesBudget">
) {
  const cursors = yield* ReviewState.ReviewState
  const first = lines.count === 0 ? undefined : lines.seqAt(0)
  const lastLine = lines.count === 0 ? 0 : lines.seqAt(lines.count - 1)
  const saved = yield* cursors.cursor(ReviewOutcome.targetKey(target))
  if (saved !== undefined && saved > lastLine) {
    return yield* new CursorPastEnd({ conversation: target.conversationId, cursor: saved, lastLine })
  }
  // A person reviewing a file means the whole file: a conversation never reviewed starts before its first line,
  // where a host's first review would read only its last lines.
  const start = saved ?? (first === undefined ? lastLine : first - 1)
  return { saved, start, lastLine, planned: estimate(lines, start, settings) }
})

/** What a run's reviews did to memory, as one net effect (see `net`). */
export interface Net {
  readonly added: ReadonlyArray<ReviewOutcome.Applied>
  readonly edited: ReadonlyArray<ReviewOutcome.Edited>
  readonly removed: ReadonlyArray<ReviewOutcome.Applied>
}

/**
 * The net effect of a run's changes, review after review: an entry added and then edited is one added entry with its
 * final text; an entry added and then removed is neither; an entry edited twice is one edit from its first text to
 * its last; an entry edited and then removed is removed with the text it had before the run. Within one review (its
 * extra passes over the same lines) adds come before edits and edits before removes, as no pass changes an entry a
 * later pass makes. Entries are the same when their scope and topic are, and their texts but for case and spacing.
 */
export const net = (runs: ReadonlyArray<ReviewOutcome.Changes>): Net => {
  const added: Array<ReviewOutcome.Applied> = []
  const edited: Array<ReviewOutcome.Edited> = []
  const removed: Array<ReviewOutcome.Applied> = []
  const at = (entry: ReviewOutcome.Applied, text: string) => (other: ReviewOutcome.Applied) =>
    other.scope === entry.scope && other.topic === entry.topic && Text.sameKey(other.text) === Text.sameKey(text)
  for (const changes of runs) {
    added.push(...changes.added)
    for (const edit of changes.edited) {
      const fresh = added.findIndex(at(edit, edit.before))
      const again = fresh === -1 ? edited.findIndex(at(edit, edit.before)) : -1
      if (fresh !== -1) added[fresh] = { ...added[fresh]!, text: edit.text }
      else if (again === -1) edited.push(edit)
      else if (Text.sameKey(edited[again]!.before) === Text.sameKey(edit.text)) edited.splice(again, 1)
      else edited[again] = { ...edited[again]!, text: edit.text }
    }
    for (const gone of changes.removed) {
      const fresh = added.findIndex(at(gone, gone.text))
      const changed = fresh === -1 ? edited.findIndex(at(gone, gone.text)) : -1
      if (fresh !== -1) added.splice(fresh, 1)
      else if (changed === -1) removed.push(gone)
      else removed.push({ ...gone, text: edited.splice(changed, 1)[0]!.before })
    }
  }
  return { added, edited, removed }
}
