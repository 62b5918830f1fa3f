/**
 * The panel's journal page, newest first with undo where a change can be undone, and the pages of a request
 * without the access token or refused before it reaches the panel.
 */
import { type Html, markup } from "./html.ts"
import type { Notice, Page, JournalRow } from "./viewModels.ts"
import { when, agentLink, undoForm, layout } from "./viewParts.ts"

/** A line a change took out (`-`, struck through) or put in (`+`); nothing where the change has none. */
const changedLine = (sign: "-" | "+", text: string | undefined): Html | string =>
  text === undefined
    ? ""
    : markup`<div class="line">${sign} ${sign === "-" ? markup`<del>${text}</del>` : markup`<ins>${text}</ins>`}</div>`

/** The journal of the agent's own and team memory, newest first, with undo where a change can be undone. */
export const journalPage = (page: Page, agentId: string, rows: ReadonlyArray<JournalRow>, given?: Notice): string => {
  const lines = rows.map(
    (row) =>
      markup`<tr class="change" data-op="${row.op}">
        <td class="dim">${when(row.time)}</td>
        <td>${row.op}</td>
        <td>${row.file}</td>
        <td>${row.actor}${row.auto ? markup` <span class="dim">(auto)</span>` : ""}</td>
        <td>
          ${changedLine("-", row.before)}${changedLine("+", row.after)}
        </td>
        <td>
          ${
            row.undo._tag === "Undoable" && row.id !== undefined
              ? undoForm(page, agentId, row.undo.side, row.id)
              : row.undo._tag === "Blocked"
                ? markup`<span class="dim blocked">cannot be undone now: ${row.undo.reason}</span>`
                : ""
          }
        </td>
      </tr>`
  )
  const body = markup`<h1>Journal of ${agentLink(agentId)}</h1>
    <p class="dim">The latest changes to the agent's own memory and to team memory, newest first.</p>
    ${
      rows.length === 0
        ? markup`<p class="dim">The journal holds no change to this memory.</p>`
        : markup`<table class="journal">
            <thead>
              <tr>
                <th>When</th>
                <th>Change</th>
                <th>File</th>
                <th>By</th>
                <th>Line</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${lines}
            </tbody>
          </table>`
    }`
  return layout(page, `Journal of ${agentId}`, body, given)
}

/** A page of its own, outside the panel's layout, that says only `body`. */
const bare = (body: Html): string =>
  markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>mneme panel</title>
      </head>
      <body>
        ${body}
      </body>
    </html>`.source

/** The page a request without the access token gets: what to do, and nothing of memory. */
export const unauthorized = (): string =>
  bare(
    markup`<p>
      This panel needs its access link: open the link <code>mneme panel</code> printed when it started (it holds the
      access token).
    </p>`
  )

/** The page of a request that is refused before it reaches the panel (a wrong Host, another site, a stale page). */
export const refused = (reason: string): string => bare(markup`<p>${reason}</p>`)
