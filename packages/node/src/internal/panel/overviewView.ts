/**
 * The panel's agents overview: each agent's memory against its limits, its last review and what its reviews spent,
 * and the conversations of the review state.
 */
import type { MemoryConfig } from "@mneme/core"
import { ReviewBudget } from "@mneme/review"
import * as Txt from "../text.ts"
import { type Html, markup } from "./html.ts"
import type { Notice, Page, Overview } from "./viewModels.ts"
import { bar, agentLink, layout, lastReviewText, conversationsTable } from "./viewParts.ts"

/** What an agent's reviews spent today and in the last 7 days, against the budget per day. */
const reviewsSpent = (
  reviews: { readonly today: ReviewBudget.Spent; readonly week: ReviewBudget.Spent } | undefined,
  budget: MemoryConfig.ReviewBudget | undefined
): Html => {
  if (reviews === undefined) return markup`<span class="dim">none yet</span>`
  return markup`<div class="spent">Today: ${ReviewBudget.figures(reviews.today, budget, 1)}</div>
    <div class="meta">Last 7 days: ${ReviewBudget.figures(reviews.week, budget, ReviewBudget.weekDays)}</div>`
}

/**
 * The agents overview: each agent's MEMORY.md against its limit, its topics, its last review, what its reviews spent;
 * the conversations.
 */
export const overview = (page: Page, view: Overview, given?: Notice): string => {
  const rows = view.agents.map((agent) =>
    agent.agentId === undefined
      ? markup`<tr>
          <td>
            <span class="dim">(unknown)</span>
            <div class="meta">${agent.dir}</div>
          </td>
          <td colspan="5" class="dim">a folder of unknown origin</td>
        </tr>`
      : markup`<tr class="agent">
          <td>
            ${agentLink(agent.agentId)}
            <div class="meta">${agent.dir}</div>
          </td>
          <td>${bar(agent.size ?? 0, view.limits.memory, "own MEMORY.md")}</td>
          <td>${bar(view.team.size, view.limits.memory, "team MEMORY.md")}</td>
          <td>${bar(agent.topics ?? 0, view.limits.topics, "topics")}</td>
          <td>
            ${lastReviewText(agent.lastReview)}${
              agent.lastReview !== null && !agent.lastReview.ok
                ? markup`<div class="reason">${agent.lastReview.reason ?? "no reason given"}</div>`
                : ""
            }
          </td>
          <td>${reviewsSpent(agent.reviews, view.budget)}</td>
        </tr>`
  )
  const body = markup`<h1>Agents</h1>
    ${
      view.agents.length === 0
        ? markup`<p class="dim">No agent has memory in this folder yet.</p>`
        : markup`<table class="agents">
            <thead>
              <tr>
                <th>Agent</th>
                <th>Own MEMORY.md</th>
                <th>Team MEMORY.md</th>
                <th>Topics</th>
                <th>Last review</th>
                <th>Reviews spent</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
    }
    <p class="dim">Team memory: ${Txt.plural(view.team.topics, "topic", "topics")}, read by every agent.</p>
    <h2>Conversations</h2>
    ${conversationsTable(page, view.conversations, view.transcripts, "")}`
  return layout(page, "Agents", body, given)
}
