/**
 * The pieces every panel page is made of: the layout around a body, its notice, size bars, times, forms with the
 * page's token and undo, the last review, and the table of conversations with their state and what was lost.
 */
import { type MemoryRoot } from "@mneme/review"
import * as Txt from "../text.ts"
import { type Html, markup, query, type Value } from "./html.ts"
import type { Notice, ConversationView, Page } from "./viewModels.ts"

/** How full a file is: near its limit (amber) from 90%, full (red) at it. */
export const level = (size: number, limit: number): "ok" | "near" | "full" =>
  size >= limit ? "full" : size >= limit * 0.9 ? "near" : "ok"

/** A size against its limit, as a bar that turns amber near the limit and red at it, and the numbers. */
export const bar = (size: number, limit: number, what: string): Html =>
  markup`<meter
      min="0"
      max="${limit}"
      low="${limit * 0.9}"
      high="${limit - 0.5}"
      optimum="0"
      value="${Math.min(size, limit)}"
      title="${what}: ${Txt.size(size, limit)}"
      data-level="${level(size, limit)}"
    ></meter
    ><span class="size ${level(size, limit)}">${Txt.size(size, limit)}</span>`

/**
 * A time, as `2026-12-02 14:03:11 UTC` for a page read without script; the panel's script shows it in the browser's
 * own time zone, from its `datetime`.
 */
export const when = (epochMillis: number): Html =>
  markup`<time datetime="${new Date(epochMillis).toISOString()}">${Txt.time(epochMillis)}</time>`

export const agentLink = (agentId: string, label?: Value): Html =>
  markup`<a href="/agent${query({ id: agentId })}">${label ?? agentId}</a>`

export const hidden = (name: string, value: string): Html =>
  markup`<input type="hidden" name="${name}" value="${value}" />`

/** A form that changes something, with the page's token. */
export const form = (page: Page, action: string, body: Value, attributes: Html = markup``): Html =>
  markup`<form method="post" action="${action}" ${attributes}>${hidden("page", page.token)}${body}</form>`

/** The form that undoes a change from the journal: back to the journal, or to the agent's page with `back`. */
export const undoForm = (page: Page, agentId: string, side: "own" | "team", id: string, back?: "agent"): Html =>
  form(
    page,
    "/journal/undo",
    markup`${hidden("agent", agentId)}${hidden("side", side)}${hidden("id", id)}${
      back === undefined ? "" : hidden("back", back)
    }<button type="submit">Undo</button>`,
    markup`class="inline"`
  )

export const notice = (page: Page, given: Notice | undefined): Html =>
  given === undefined
    ? markup``
    : markup`<div class="notice ${given.kind}" role="status"><span class="said">${given.text}</span>${
        given.undo === undefined ? "" : undoForm(page, given.undo.agentId, given.undo.side, given.undo.id, "agent")
      }</div>`

/** The page around a body: the header with the root and its links, then the body. */
export const layout = (page: Page, title: string, body: Value, given?: Notice): string =>
  markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${title} · mneme</title>
        <link rel="stylesheet" href="/panel.css" />
      </head>
      <body>
        <header>
          <strong>mneme</strong><span class="dim">${page.root}</span>
          <nav><a href="/">Agents</a></nav>
        </header>
        <main>${notice(page, given)} ${body}</main>
        <script src="/panel.js"></script>
      </body>
    </html> `.source

export const lastReviewText = (review: MemoryRoot.LastReview | null): Html =>
  review === null
    ? markup`<span class="dim">never</span>`
    : review.ok
      ? markup`<span class="ok">ok</span> <span class="dim">${when(review.at)}</span>`
      : markup`<span class="failed">failed</span> <span class="dim">${when(review.at)}</span>`

// ---------------------------------------------------------------------------------------------------------------------
// Conversations

/** The lines a host dropped before the review saw them, said plainly: a loss is never silent. */
export const droppedText = (conversation: ConversationView): Html =>
  conversation.dropped.length === 0
    ? markup``
    : markup`<div class="reason">
        lines lost before review:
        ${conversation.dropped.map(
          ({ after, upto, at }, i) =>
            markup`${i === 0 ? "" : "; "}${after === null ? "" : `after #${after} `}up to #${upto} (${when(at)})`
        )}
      </div>`

export const conversationState = (conversation: ConversationView): Html =>
  markup`${failureState(conversation)}${droppedText(conversation)}`

export const failureState = (conversation: ConversationView): Html => {
  if (conversation.failures === 0) return markup`<span class="dim">no failed review</span>`
  const tries = Txt.plural(conversation.failures, "failed review", "failed reviews")
  const at = conversation.cursor === undefined ? "" : ` after #${conversation.cursor}`
  if (conversation.stopped === undefined) return markup`<span class="near">${tries}${at}</span>`
  const again =
    conversation.stopped.until === undefined
      ? `a user line newer than #${conversation.newestUserSeq ?? 0}, or a review that succeeds (review now), starts them again`
      : markup`the next try is allowed from ${when(conversation.stopped.until)}`
  return markup`<span class="failed">retries stopped</span> after ${tries}${at}: <span class="dim">${again}</span>`
}

export const conversationsTable = (
  page: Page,
  conversations: ReadonlyArray<ConversationView>,
  transcripts: string | undefined,
  back: string
): Html => {
  if (conversations.length === 0) return markup`<p class="dim">No conversation reviewed yet.</p>`
  const rows = conversations.map(
    (conversation) =>
      markup`<tr data-key="${conversation.key}">
        <td>
          ${conversation.label}
          <div class="meta">${conversation.key}</div>
        </td>
        <td>
          ${conversation.agentId === undefined ? markup`<span class="dim">?</span>` : agentLink(conversation.agentId)}
        </td>
        <td>${conversation.cursor === undefined ? markup`<span class="dim">-</span>` : `#${conversation.cursor}`}</td>
        <td>${conversationState(conversation)}</td>
        <td>
          ${
            conversation.canReview
              ? form(
                  page,
                  "/review",
                  markup`${hidden("key", conversation.key)}${hidden("back", back)}<button type="submit">Review now</button
                    ><span class="busy">reviewing…</span>`,
                  markup`class="inline" data-busy`
                )
              : markup`<span class="dim"
                  >${transcripts === undefined ? "no transcript" : "not in the transcripts folder"}</span
                >`
          }
        </td>
      </tr>`
  )
  const note =
    transcripts === undefined
      ? markup`<p class="dim">
          To review a conversation from here, start the panel with <code>--transcripts DIR</code>, the folder of the
          JSONL transcripts <code>mneme review</code> read.
        </p>`
      : markup`<p class="dim">Transcripts from ${transcripts}.</p>`
  return markup`<table class="conversations">
      <thead>
        <tr>
          <th>Conversation</th>
          <th>Agent</th>
          <th>Reviewed to</th>
          <th>Failures</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    ${note}`
}
