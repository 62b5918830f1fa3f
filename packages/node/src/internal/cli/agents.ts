/**
 * `mneme agents`: the agents of the memory root (a folder or a Postgres schema), with their folders, MEMORY.md sizes
 * and topic counts, and what their reviews spent today and in the last 7 days, against the budget per day.
 */
import { MemoryConfig } from "@mneme/core"
import { MemoryStore, ReviewBudget, ReviewState } from "@mneme/review"
import { Clock, Effect } from "effect"
import { Command } from "effect/cli"
import * as Txt from "../text.ts"
import { memoryLocation, output, print, printJson, withMemoryToRead } from "./common.ts"

/** An agent id as a table cell: as it is, or quoted when it holds a control character (a line break, say). */
const shownId = (id: string) => {
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i)
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return JSON.stringify(id)
  }
  return id
}

export const agents = Command.make(
  "agents",
  {},
  Effect.fn("mneme.agents")(function* () {
    const { shown } = yield* memoryLocation
    const out = yield* output
    const settings = yield* MemoryConfig.MemoryConfig
    const store = yield* MemoryStore.MemoryStore
    const folders = yield* store.agents
    const state = yield* (yield* ReviewState.ReviewState).snapshot
    // An agent whose reviews kept nothing yet has no folder, but what they spent is listed.
    const known = new Set(folders.map((agent) => agent.agentId))
    const found = [
      ...folders,
      ...Object.keys(state.usage ?? {})
        .filter((agentId) => !known.has(agentId))
        .map((agentId): MemoryStore.AgentSummary => ({ agentId, dir: "", size: undefined, topics: undefined }))
    ]
    const today = ReviewBudget.dayOf(yield* Clock.currentTimeMillis, settings.timeZone)
    const spent = (agentId: string | undefined) =>
      agentId === undefined ? undefined : ReviewBudget.summary(state, agentId, today)
    const budget = settings.reviewBudget
    if (out.json) {
      return yield* printJson({
        memory: shown,
        limits: { memory: settings.memoryMax, topics: settings.topicsMax },
        budget: { calls: budget?.calls ?? null, tokens: budget?.tokens ?? null, today },
        agents: found.map((agent) => ({
          agent: agent.agentId ?? null,
          dir: agent.dir,
          size: agent.size ?? null,
          topics: agent.topics ?? null,
          reviews: spent(agent.agentId) ?? null
        }))
      })
    }
    const p = out.paint
    if (found.length === 0) return yield* print([p.dim(`no agents in ${shown}`)])
    // The reviews' columns show where there is a budget or something was spent.
    const withReviews = budget !== undefined || state.usage !== undefined
    const reviewColumns = (agentId: string | undefined) => {
      const used = spent(agentId)
      return used === undefined
        ? ["-", "-"]
        : [ReviewBudget.figures(used.today, budget, 1), ReviewBudget.figures(used.week, budget, ReviewBudget.weekDays)]
    }
    yield* print(
      Txt.table(
        [
          ["AGENT", "FOLDER", "MEMORY.md", "TOPICS", ...(withReviews ? ["REVIEWS TODAY", "LAST 7 DAYS"] : [])].map(
            p.bold
          ),
          ...found.map((agent) => [
            agent.agentId === undefined ? p.dim("(unknown)") : shownId(agent.agentId),
            agent.dir === "" ? "-" : agent.dir,
            agent.size === undefined ? "-" : Txt.size(agent.size, settings.memoryMax),
            agent.topics === undefined ? "-" : Txt.size(agent.topics, settings.topicsMax),
            ...(withReviews ? reviewColumns(agent.agentId) : [])
          ])
        ],
        ""
      )
    )
  }, withMemoryToRead)
).pipe(
  Command.withDescription(
    "List the agents of the memory root: their folders, MEMORY.md sizes and topics, and what their reviews spent today and in the last 7 days against the budget (MNEME_REVIEW_CALLS_PER_DAY, MNEME_REVIEW_TOKENS_PER_DAY)"
  )
)
