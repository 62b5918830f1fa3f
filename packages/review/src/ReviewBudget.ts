/**
 * The review's cost budget per agent per day (`MemoryConfig.reviewBudget`): what each agent's reviews spend — model
 * calls, and tokens as the model reports them, else estimated at a token per 3 characters — is counted in the review
 * state per day (in the host's time zone), across its conversations. Past the budget, a review the host schedules
 * waits for the next day; a person's review still runs. This module holds the pure parts: days, estimates, the state's
 * changes, what a day and a week spent, and whether a budget is spent; and the model that counts its calls.
 */
import { type MemoryConfig, Text } from "@mneme/core"
import { DateTime, Effect, Option } from "effect"
import type { DayUsage, ReviewStateDocument, StateChange } from "./MemoryRoot.ts"
import type { Answer, Request, ReviewModel } from "./ReviewModel.ts"

/** Days of usage the review state keeps per agent: today and the 7 before. */
export const daysKept = 8

/** Days a week's figure adds up: today and the 6 before. */
export const weekDays = 7

/** What reviews spent. */
export interface Spent {
  readonly calls: number
  readonly tokens: number
}

/** Nothing spent. */
export const nothing: Spent = { calls: 0, tokens: 0 }

const zoned = (millis: number, timeZone: string) => {
  const now = DateTime.makeUnsafe(millis)
  const zone = DateTime.zoneMakeNamed(timeZone)
  return Option.isSome(zone) ? DateTime.setZone(now, zone.value) : DateTime.setZone(now, DateTime.zoneMakeOffset(0))
}

/** The day (`YYYY-MM-DD`) of `millis` in `timeZone` (an IANA zone; UTC when it is none). */
export const dayOf = (millis: number, timeZone: string): string => DateTime.formatIsoDate(zoned(millis, timeZone))

/** When the day after that of `millis` starts in `timeZone`, epoch ms. */
export const nextDayAt = (millis: number, timeZone: string): number =>
  DateTime.toEpochMillis(DateTime.add(DateTime.startOf(zoned(millis, timeZone), "day"), { days: 1 }))

/** The day `count` days before `day` (`YYYY-MM-DD`). */
export const daysBefore = (day: string, count: number): string =>
  DateTime.formatIsoDateUtc(DateTime.subtract(DateTime.makeUnsafe(`${day}T00:00:00Z`), { days: count }))

/** Tokens estimated for `characters` of text, where the model reports none: one per 3 characters. */
export const estimateTokens = (characters: number): number => Math.ceil(characters / 3)

/** The tokens of one call: as the model reports them, each side it does not estimated from its text. */
export const tokensOf = (request: Request, answer: Answer | undefined): number => {
  const input = answer?.usage?.inputTokens ?? estimateTokens(Text.length(request.system) + Text.length(request.request))
  const output = answer === undefined ? 0 : (answer.usage?.outputTokens ?? estimateTokens(Text.length(answer.text)))
  return input + output
}

const lookup = <A>(record: Readonly<Record<string, A>> | undefined, key: string): A | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined

/** What the agent's reviews spent on `day`. */
export const usageOn = (state: ReviewStateDocument, agentId: string, day: string): DayUsage =>
  lookup(lookup(state.usage, agentId), day) ?? { calls: 0, tokens: 0 }

/** The state with the agent's `day` changed by `change`, the days before the last `daysKept` dropped. */
const withDay =
  (agentId: string, day: string, change: (usage: DayUsage) => DayUsage): StateChange =>
  (state) => {
    const oldest = daysBefore(day, daysKept - 1)
    const days = lookup(state.usage, agentId) ?? {}
    const kept = Object.entries(days).filter(([other]) => other >= oldest && other !== day)
    const entries: Array<readonly [string, DayUsage]> = [...kept, [day, change(usageOn(state, agentId, day))]]
    const next = Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)))
    return { ...state, usage: { ...state.usage, [agentId]: next } }
  }

/** The state with `spent` added to what the agent's reviews spent on `day`. */
export const withSpent = (agentId: string, day: string, spent: Spent): StateChange =>
  withDay(agentId, day, (usage) => ({
    ...usage,
    calls: usage.calls + spent.calls,
    tokens: usage.tokens + spent.tokens
  }))

/** The state with the agent's stop on `day` marked as warned (the same state when it was). */
export const withWarned =
  (agentId: string, day: string): StateChange =>
  (state) =>
    usageOn(state, agentId, day).warned === true
      ? state
      : withDay(agentId, day, (usage) => ({ ...usage, warned: true }))(state)

/** What the agent's reviews spent on `today`, and in the week up to it. */
export const summary = (state: ReviewStateDocument, agentId: string, today: string): { today: Spent; week: Spent } => {
  const oldest = daysBefore(today, weekDays - 1)
  const week = Object.entries(lookup(state.usage, agentId) ?? {})
    .filter(([day]) => day >= oldest && day <= today)
    .reduce((sum, [, usage]) => ({ calls: sum.calls + usage.calls, tokens: sum.tokens + usage.tokens }), nothing)
  const { calls, tokens } = usageOn(state, agentId, today)
  return { today: { calls, tokens }, week }
}

/** Why `spent` is past `budget`, for people; `undefined` while it is within. */
export const overBudget = (
  spent: Spent,
  budget: MemoryConfig.ReviewBudget | undefined,
  day: string
): string | undefined => {
  const calls = budget?.calls !== undefined && spent.calls >= budget.calls
  const tokens = budget?.tokens !== undefined && spent.tokens >= budget.tokens
  if (!calls && !tokens) return undefined
  const what = [
    ...(calls ? [`${Text.count(spent.calls)} of ${Text.count(budget!.calls!)} model calls`] : []),
    ...(tokens ? [`${Text.count(spent.tokens)} of ${Text.count(budget!.tokens!)} tokens`] : [])
  ].join(" and ")
  return `the agent's review budget for ${day} is spent (${what}): its reviews wait for the next day, or a person's review`
}

/** A budget figure for people: `spent/limit`, or `spent` where there is no limit. */
const shown = (spent: number, limit: number | undefined): string =>
  limit === undefined ? Text.count(spent) : `${Text.count(spent)}/${Text.count(limit)}`

/**
 * What `days` days' reviews spent for people, against `days` times the budget per day where there is one:
 * `2/5 calls, 1,234/100,000 tokens`.
 */
export const figures = (used: Spent, budget: MemoryConfig.ReviewBudget | undefined, days: number): string =>
  `${shown(used.calls, budget?.calls === undefined ? undefined : budget.calls * days)} calls, ` +
  `${shown(used.tokens, budget?.tokens === undefined ? undefined : budget.tokens * days)} tokens`

/** The model `model`, each call (answered or failed) counted by `count`, whose own failure does not fail the call. */
export const metered = (
  model: ReviewModel["Service"],
  count: (spent: Spent) => Effect.Effect<void>
): ReviewModel["Service"] => ({
  generate: (request) =>
    model.generate(request).pipe(
      Effect.tap((answer) => count({ calls: 1, tokens: tokensOf(request, answer) })),
      Effect.tapError(() => count({ calls: 1, tokens: tokensOf(request, undefined) }))
    )
})
