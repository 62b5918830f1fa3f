/**
 * What of a vetted answer waits for a person (issue 28, `MemoryConfig.approval`): under `"suspicious"`, a new entry
 * that reads as an instruction to the agent, or whose cited lines hold none of the user's own words (a tool result,
 * another agent, a quoted memory section); under `"all"`, every new entry; under `"off"`, none. Only new entries
 * (`add`) wait; an entry that reads as an instruction and cannot wait (`"off"`, or a backend that keeps no pending
 * entries) stays left out. Pure: the pass holds and writes what this splits.
 */
import { type Answer, Instruction, Lines, type MemoryConfig } from "@mneme/core"
import { cited } from "./reviewSource.ts"

/** A new entry of the answer that waits for a person, and why. */
export interface Waiting {
  readonly change: Extract<Answer.Change, { op: "add" }>
  readonly why: string
}

/** A vetted answer split: what applies, what waits for a person, and what is left out. */
export interface Split {
  readonly apply: ReadonlyArray<Answer.Change>
  readonly waiting: ReadonlyArray<Waiting>
  readonly leftOut: Answer.Vetted["leftOut"]
}

/** Why an entry whose lines are not the user's waits. */
export const notTheUsers = "it comes from lines that are not the user's own words (a tool result, another agent)"

/** Why every entry waits under `"all"`. */
export const everyEntry = "every new entry waits for a person (approval: all)"

/** Whether an entry cites, among the `shown` lines, only lines that are not the user's own words. */
const fromOthers = (change: Answer.Change, shown: ReadonlyArray<Lines.Line>): boolean => {
  const { lines } = cited(change, shown.length)
  return lines.length > 0 && !lines.some((number) => Lines.isUserWords(shown[number - 1]!))
}

/** Splits `vetted` by `approval`, holding nothing where the backend keeps no pending entries (`canHold` false). */
export const split = (
  vetted: Answer.Vetted,
  shown: ReadonlyArray<Lines.Line>,
  approval: MemoryConfig.Approval,
  canHold: boolean
): Split => {
  if (!canHold || approval === "off") return { apply: vetted.apply, waiting: [], leftOut: vetted.leftOut }
  const waiting: Array<Waiting> = []
  const leftOut: Array<Answer.Vetted["leftOut"][number]> = []
  for (const left of vetted.leftOut) {
    if (left.change.op === "add" && left.problem._tag === "Instruction") {
      waiting.push({ change: left.change, why: Instruction.describe(left.problem) })
    } else leftOut.push(left)
  }
  const apply: Array<Answer.Change> = []
  for (const change of vetted.apply) {
    if (change.op === "add" && approval === "all") waiting.push({ change, why: everyEntry })
    else if (change.op === "add" && fromOthers(change, shown)) waiting.push({ change, why: notTheUsers })
    else apply.push(change)
  }
  return { apply, waiting, leftOut }
}

/** How the outcome lists an entry that waits. */
export const asLeftOut = (waiting: Waiting): { readonly text: string; readonly problem: string } => ({
  text: waiting.change.text,
  problem: `${waiting.why}; it waits for a person's approval (mneme pending)`
})
