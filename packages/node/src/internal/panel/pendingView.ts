/**
 * The panel's list of entries waiting for a person (issue 28, `mneme pending`): on an agent's page, the agent's own
 * then the team's, each quoted as data with where it comes from and why it waits, and Approve / Reject. A form names
 * its entry by its scope, text and the time it was held, so an entry decided elsewhere meanwhile is never another.
 */
import { markup, type Html } from "./html.ts"

/** One entry waiting, as the page shows it. */
export interface PendingRow {
  readonly side: "own" | "team"
  readonly text: string
  readonly topic: string | undefined
  readonly source: string
  readonly why: string
  readonly at: number
}

const hidden = (name: string, value: string): Html => markup`<input type="hidden" name="${name}" value="${value}" />`

/** A form deciding one entry, with the page's token. */
const decision = (token: string, agentId: string, row: PendingRow, action: "approve" | "reject"): Html =>
  markup`<form method="post" action="/pending/${action}" class="inline">${hidden("page", token)}${hidden(
    "agent",
    agentId
  )}${hidden("side", row.side)}${hidden("text", row.text)}${hidden("at", String(row.at))}<button type="submit"${
    action === "approve" ? markup` class="primary"` : ""
  }>${action === "approve" ? "Approve" : "Reject"}</button></form>`

/** The section of the entries waiting for a person; nothing when none waits. */
export const pendingSection = (token: string, agentId: string, rows: ReadonlyArray<PendingRow>): Html | string =>
  rows.length === 0
    ? ""
    : markup`<section class="card" id="pending">
      <h2>Waiting for your approval</h2>
      <p class="dim">A review held these back: they are not in memory until you approve them, vetted again as they are
      written.</p>
      <ol>
        ${rows.map(
          (row) => markup`<li class="pending-entry">
            <div class="line">${JSON.stringify(row.text)}</div>
            <div class="reason">${row.side === "own" ? "own memory" : "team memory"}${
              row.topic === undefined ? "" : `, topic ${row.topic}`
            }, from ${row.source}: ${row.why}</div>
            ${decision(token, agentId, row, "approve")} ${decision(token, agentId, row, "reject")}
          </li>`
        )}
      </ol>
    </section>`
