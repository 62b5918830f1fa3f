/**
 * The panel's pages, as pure functions from what the server read to HTML: the agents overview, an agent's memory
 * (its files with their sizes against the limits, each entry with its source and date and its edit and remove
 * controls, notes by hand as they are, a form to add an entry beside each file's entries), its last review and
 * conversations, the ask or change box with its preview, and the journal with undo. Every text from memory, a person
 * or a model goes in through `markup`, escaped.
 */
import type { MemoryConfig } from "@mneme/core"
import { type MemoryRoot, ReviewBudget } from "@mneme/review"
import * as Txt from "../text.ts"
import type { Proposal } from "./ask.ts"
import { type Html, markup, query, type Value } from "./html.ts"

// ---------------------------------------------------------------------------------------------------------------------
// What the pages show

/** A message at the top of a page: a change done, refused, or something to know. */
export interface Notice {
  readonly kind: "ok" | "refused" | "info"
  readonly text: string
  /** The change just made, offered to be undone at once: its journal id, in an agent's own or team memory. */
  readonly undo?: { readonly agentId: string; readonly side: "own" | "team"; readonly id: string } | undefined
}

/** One line of a memory file as the page shows it. */
export type Row =
  | {
      readonly _tag: "Entry"
      /** The entry's text, secrets masked. */
      readonly text: string
      readonly meta: ReadonlyArray<readonly [string, string]>
      readonly looksSecret: boolean
      /** Why the entry reads as an instruction to the agent rather than a fact, where it does. */
      readonly instruction?: string
      /** What names the entry in a change: a digest of its real text (which the page may not show). */
      readonly digest: string
      /** The anchors of its source whose transcript line the panel can show, each with that page's address. */
      readonly links?: ReadonlyArray<{ readonly anchor: string; readonly href: string }>
    }
  | { readonly _tag: "Heading"; readonly text: string }
  | {
      readonly _tag: "Note"
      readonly text: string
      /** Why the line reads as an instruction to the agent, where it does. */
      readonly instruction?: string
    }

/** A line that reads as an instruction, quoted, and what the page says of it. */
const flagged = (text: string, instruction: string | undefined) =>
  instruction === undefined
    ? markup`${text}`
    : markup`${JSON.stringify(text)}<div class="full instruction">
          This ${instruction}: the agent is shown it as data and told not to follow it.
        </div>`

/** A memory file of a scope. */
export interface FileView {
  /** Its path relative to the root. */
  readonly file: string
  readonly topic: string | undefined
  readonly size: number
  readonly limit: number
  /** A digest of its text as shown, so a change can tell the file changed on disk meanwhile. */
  readonly version: string
  readonly rows: ReadonlyArray<Row>
}

/** The agent's own memory or the team's. */
export interface ScopeView {
  readonly side: "own" | "team"
  readonly files: ReadonlyArray<FileView>
  readonly topics: number
  readonly topicsMax: number
  readonly unlinked: ReadonlyArray<string>
  readonly unreadable: ReadonlyArray<{ readonly file: string; readonly reason: string }>
}

/** A conversation of the review state, as a page shows it. */
export interface ConversationView {
  readonly key: string
  /** How to name it: its transcript's name where the panel has it, else its id. */
  readonly label: string
  readonly agentId: string | undefined
  readonly cursor: number | undefined
  /** Failed reviews at its cursor, and the newest user line they saw. */
  readonly failures: number
  readonly newestUserSeq: number | undefined
  /** Whether the failure policy stopped retrying it, and until when (`undefined`: until new words or a success). */
  readonly stopped: { readonly until: number | undefined } | undefined
  /** Whether the panel has its transcript, and so can review it now. */
  readonly canReview: boolean
  /** Lines a host dropped before this conversation's (group member's) review saw them. */
  readonly dropped: ReadonlyArray<MemoryRoot.DroppedLines>
}

/** The model, or how to configure one. */
export interface ModelState {
  readonly configured: boolean
  /** What to do when none is configured. */
  readonly howTo: string
}

/** The ask or change box after an answer: what was asked, the reply, and the proposal to confirm. */
export interface AskView {
  readonly words: string
  readonly reply: string
  readonly proposal: (Proposal & { readonly id: string }) | undefined
}

/** What every page carries: its token for the changes it sends. */
export interface Page {
  readonly token: string
  readonly root: string
}

/** The agents overview. */
export interface Overview {
  readonly agents: ReadonlyArray<{
    readonly agentId: string | undefined
    readonly dir: string
    readonly size: number | undefined
    readonly topics: number | undefined
    readonly lastReview: MemoryRoot.LastReview | null
    /** What the agent's reviews spent today and in the last 7 days. */
    readonly reviews?: { readonly today: ReviewBudget.Spent; readonly week: ReviewBudget.Spent } | undefined
  }>
  /** The review budget per agent and day, if any. */
  readonly budget?: MemoryConfig.ReviewBudget | undefined
  readonly team: { readonly size: number; readonly topics: number }
  readonly limits: { readonly memory: number; readonly topics: number }
  readonly conversations: ReadonlyArray<ConversationView>
  readonly transcripts: string | undefined
}

/** An agent's page. */
export interface AgentPage {
  readonly agentId: string
  readonly scopes: ReadonlyArray<ScopeView>
  readonly lastReview: MemoryRoot.LastReview | null
  readonly conversations: ReadonlyArray<ConversationView>
  readonly transcripts: string | undefined
  readonly model: ModelState
  readonly entryMax: number
  readonly ask: AskView | undefined
  readonly summary: string | undefined
  /** What the person had typed into a form that was refused, to type again. */
  readonly draft: { readonly text: string; readonly side: "own" | "team"; readonly topic: string } | undefined
  /** The words entries are filtered by, as typed ("" for none). */
  readonly filter: string
}

/** One change of the journal. */
export interface JournalRow {
  readonly id: string | undefined
  readonly time: number
  readonly op: string
  readonly file: string
  readonly actor: string
  readonly auto: boolean
  /** The line before and after, without its list bullet (the page marks each with its own - or +), secrets masked. */
  readonly before: string | undefined
  readonly after: string | undefined
  /** Whether an undo would work now: in which scope, or why not; never for an undo, an archive, a change undone. */
  readonly undo: JournalUndo
}

/** Whether a change of the journal can be undone now. */
export type JournalUndo =
  /** An undo, an archive, a change undone already, or the second line of a change: nothing to offer. */
  | { readonly _tag: "Never" }
  /** Undo works against the files as they are: offered, in the agent's own memory or the team's. */
  | { readonly _tag: "Undoable"; readonly side: "own" | "team" }
  /** Undo would be refused by the files as they are now (changed since), and why, in words. */
  | { readonly _tag: "Blocked"; readonly reason: string }

// ---------------------------------------------------------------------------------------------------------------------
// Pieces

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

const agentLink = (agentId: string, label?: Value): Html =>
  markup`<a href="/agent${query({ id: agentId })}">${label ?? agentId}</a>`

const hidden = (name: string, value: string): Html => markup`<input type="hidden" name="${name}" value="${value}" />`

/** A form that changes something, with the page's token. */
const form = (page: Page, action: string, body: Value, attributes: Html = markup``): Html =>
  markup`<form method="post" action="${action}" ${attributes}>${hidden("page", page.token)}${body}</form>`

/** The form that undoes a change from the journal: back to the journal, or to the agent's page with `back`. */
const undoForm = (page: Page, agentId: string, side: "own" | "team", id: string, back?: "agent"): Html =>
  form(
    page,
    "/journal/undo",
    markup`${hidden("agent", agentId)}${hidden("side", side)}${hidden("id", id)}${
      back === undefined ? "" : hidden("back", back)
    }<button type="submit">Undo</button>`,
    markup`class="inline"`
  )

const notice = (page: Page, given: Notice | undefined): Html =>
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

const lastReviewText = (review: MemoryRoot.LastReview | null): Html =>
  review === null
    ? markup`<span class="dim">never</span>`
    : review.ok
      ? markup`<span class="ok">ok</span> <span class="dim">${when(review.at)}</span>`
      : markup`<span class="failed">failed</span> <span class="dim">${when(review.at)}</span>`

// ---------------------------------------------------------------------------------------------------------------------
// Conversations

/** The lines a host dropped before the review saw them, said plainly: a loss is never silent. */
const droppedText = (conversation: ConversationView): Html =>
  conversation.dropped.length === 0
    ? markup``
    : markup`<div class="reason">
        lines lost before review:
        ${conversation.dropped.map(
          ({ after, upto, at }, i) =>
            markup`${i === 0 ? "" : "; "}${after === null ? "" : `after #${after} `}up to #${upto} (${when(at)})`
        )}
      </div>`

const conversationState = (conversation: ConversationView): Html =>
  markup`${failureState(conversation)}${droppedText(conversation)}`

const failureState = (conversation: ConversationView): Html => {
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

const conversationsTable = (
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

// ---------------------------------------------------------------------------------------------------------------------
// The overview

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

// ---------------------------------------------------------------------------------------------------------------------
// An agent's page

const metaText = (meta: ReadonlyArray<readonly [string, string]>): string =>
  meta.map(([key, value]) => `${key}: ${value}`).join("; ")

/** An entry's metadata as `metaText` writes it, each anchor of its source that has a link linked to its line. */
const metaMarkup = (row: Row & { readonly _tag: "Entry" }): Html => {
  const links = new Map((row.links ?? []).map((link) => [link.anchor, link.href]))
  const source = (value: string) =>
    value.split(", ").map((anchor, i) => {
      const href = links.get(anchor)
      return markup`${i === 0 ? "" : ", "}${href === undefined ? anchor : markup`<a class="source" href="${href}">${anchor}</a>`}`
    })
  return markup`${row.meta.map(
    ([key, value], i) =>
      markup`${i === 0 ? "" : "; "}${key}: ${key === "source" && links.size > 0 ? source(value) : value}`
  )}`
}

const where = (side: "own" | "team", file: FileView) => [
  hidden("side", side),
  hidden("topic", file.topic ?? ""),
  hidden("version", file.version)
]

/**
 * What the filter looks for words in: an entry's text and metadata, or a note, as the page shows them, in lower case
 * (the panel's script filters by the same text, so the page filters alike with and without it).
 */
const searchText = (row: Row & { readonly _tag: "Entry" | "Note" }): string =>
  (row._tag === "Entry" && row.meta.length > 0 ? `${row.text} [${metaText(row.meta)}]` : row.text).toLowerCase()

/** Whether a row's search text holds the filter's words (every row, for no words). */
const matches = (search: string, filter: string): boolean => {
  const words = filter.trim().toLowerCase()
  return words === "" || search.includes(words)
}

/** The attributes the filter reads and sets: a row's search text, and `hidden` where the filter leaves it out. */
const searchable = (row: Row & { readonly _tag: "Entry" | "Note" }, filter: string): Html => {
  const search = searchText(row)
  return markup`data-search="${search}"${matches(search, filter) ? "" : markup` hidden`}`
}

const entryRow = (page: Page, agentId: string, side: "own" | "team", file: FileView, row: Row, filter: string) => {
  switch (row._tag) {
    case "Heading":
      return markup`<li class="heading"><span class="text">${row.text}</span></li>`
    case "Note":
      return markup`<li class="note" title="a line written by hand, kept as it is" ${searchable(row, filter)}>
        <span class="text">${flagged(row.text, row.instruction)}</span>
      </li>`
    case "Entry": {
      const fields = [hidden("agent", agentId), ...where(side, file), hidden("entry", row.digest)]
      return markup`<li class="entry" data-digest="${row.digest}" ${searchable(row, filter)}>
        <span class="text"
          >${flagged(row.text, row.instruction)}${
            row.meta.length === 0 ? "" : markup` <span class="meta">[${metaMarkup(row)}]</span>`
          }${row.looksSecret ? markup`<div class="full">This entry looks like a secret (masked here): memory should not keep it.</div>` : ""}</span
        >
        <details class="edit">
          <summary>Edit</summary>
          ${form(
            page,
            "/entry/edit",
            markup`${fields}<input
                type="text"
                class="wide"
                name="text"
                value="${row.text}"
                aria-label="New text"
              /><button type="submit" class="primary">Save</button>`,
            markup`class="row"`
          )}
        </details>
        ${form(page, "/entry/remove", markup`${fields}<button type="submit" class="danger">Remove</button>`, markup`class="inline"`)}
      </li>`
    }
  }
}

/** Where an add form writes to, and what a refused add into it had typed, to type again. */
interface AddTarget {
  readonly side: "own" | "team"
  /** The topic of a file's form; `undefined` for MEMORY.md's, `null` for the form that names a new topic. */
  readonly topic: string | undefined | null
  readonly draft: AgentPage["draft"]
  readonly entryMax: number
}

/** Whether a refused add was typed into this form: its file's, or the new-topic form where it named no file shown. */
const draftOf = (target: AddTarget, topics: ReadonlyArray<string>) => {
  const draft = target.draft
  if (draft === undefined || draft.side !== target.side) return undefined
  const topic = draft.topic.trim() === "" ? undefined : draft.topic
  if (target.topic === null) return topic !== undefined && !topics.includes(topic) ? draft : undefined
  return topic === target.topic ? draft : undefined
}

/** The form that adds an entry to one file of a scope (or, with a topic field, to a topic not there yet). */
const addEntryForm = (page: Page, agentId: string, target: AddTarget, name: string, topics: ReadonlyArray<string>) => {
  const draft = draftOf(target, topics)
  const hint = `one fact, at most ${Txt.count(target.entryMax)} characters, that says whom it is about`
  return form(
    page,
    "/entry/add",
    markup`${hidden("agent", agentId)}${hidden("side", target.side)}${
      target.topic === null
        ? markup`<input
            type="text"
            name="topic"
            class="topic"
            value="${draft?.topic ?? ""}"
            placeholder="new topic"
            aria-label="New topic in ${name}"
          />`
        : hidden("topic", target.topic ?? "")
    }<input
        type="text"
        class="wide"
        name="text"
        value="${draft?.text ?? ""}"
        placeholder="Add to ${name}: ${hint}"
        aria-label="New entry in ${name}"
        ${draft === undefined ? "" : markup`autofocus`}
      /><button type="submit" class="primary">Add</button>`,
    markup`class="row add"`
  )
}

const fileSection = (
  page: Page,
  agentId: string,
  scope: ScopeView,
  file: FileView,
  view: Pick<AgentPage, "draft" | "entryMax" | "filter">,
  topics: ReadonlyArray<string>
): Html => {
  const name = file.topic === undefined ? "MEMORY.md" : `topic ${file.topic}`
  const entries = file.rows.filter((row) => row._tag === "Entry").length
  const target: AddTarget = { side: scope.side, topic: file.topic, draft: view.draft, entryMax: view.entryMax }
  return markup`<div class="file" data-file="${file.file}">
    <h3>
      <span>${name}</span>${bar(file.size, file.limit, name)}${
        file.size > file.limit ? markup`<span class="full">over its size: remove or shorten entries</span>` : ""
      }
    </h3>
    <ul class="entries">
      ${file.rows.map((row) => entryRow(page, agentId, scope.side, file, row, view.filter))}${
        entries === 0 && file.rows.length === 0 ? markup`<li class="dim">(empty)</li>` : ""
      }
    </ul>
    ${addEntryForm(page, agentId, target, `${scope.side === "own" ? "own" : "team"} ${name}`, topics)}
  </div>`
}

const scopeSection = (page: Page, view: AgentPage, scope: ScopeView): Html => {
  const topics = scope.files.flatMap((file) => (file.topic === undefined ? [] : [file.topic]))
  const newTopic: AddTarget = { side: scope.side, topic: null, draft: view.draft, entryMax: view.entryMax }
  const label = scope.side === "own" ? "own memory" : "team memory"
  return markup`<section class="card scope" data-scope="${scope.side}">
    <h2>
      ${scope.side === "own" ? "Own memory" : "Team memory"} <span class="dim">topics</span> ${bar(
        scope.topics,
        scope.topicsMax,
        "topics"
      )}
    </h2>
    ${scope.files.map((file) => fileSection(page, view.agentId, scope, file, view, topics))}
    <div class="new-topic">
      <p class="dim label">Add to a new topic</p>
      ${addEntryForm(page, view.agentId, newTopic, `a new topic of ${label}`, topics)}
    </div>
    ${scope.unlinked.map((file) => markup`<p class="near">${file} is not linked from MEMORY.md's index (the next entry added to it links it).</p>`)}
    ${scope.unreadable.map(({ file, reason }) => markup`<p class="full">${file} could not be read, and is left out: ${reason}</p>`)}
  </section>`
}

const changeText = (change: Proposal["changes"][number]): Html => {
  const place = `${change.scope}${change.topic === undefined ? " MEMORY.md" : ` · topic ${change.topic}`}`
  switch (change.op) {
    case "add":
      return markup`<li class="proposed add">Add to ${place}: <ins>${change.text}</ins></li>`
    case "edit":
      return markup`<li class="proposed edit">
        Edit in ${place}: <del>${change.before ?? ""}</del> → <ins>${change.text}</ins>
      </li>`
    case "remove":
      return markup`<li class="proposed remove">Remove from ${place}: <del>${change.text}</del></li>`
  }
}

const askSection = (page: Page, view: AgentPage): Html => {
  if (!view.model.configured) {
    return markup`<section class="card" id="ask">
      <h2>Ask or change in plain words</h2>
      <p class="dim no-model">${view.model.howTo}</p>
    </section>`
  }
  const ask = view.ask
  const proposal = ask?.proposal
  const answer =
    ask === undefined
      ? ""
      : markup`<div class="answer">
          <p class="dim">You asked: ${ask.words}</p>
          ${ask.reply === "" ? "" : markup`<div class="reply">${ask.reply}</div>`}${
            proposal === undefined
              ? ""
              : markup`<div class="preview">
                  <h3>Proposed changes</h3>
                  ${
                    proposal.changes.length === 0
                      ? markup`<p class="dim">No change that memory can make.</p>`
                      : markup`<ul>
                          ${proposal.changes.map(changeText)}
                        </ul>`
                  }${proposal.leftOut.map(
                    (left) => markup`<p class="near">Left out: ${left.text} (${left.problem})</p>`
                  )}${
                    proposal.secretsDropped === 0
                      ? ""
                      : markup`<p class="near">
                          ${Txt.plural(proposal.secretsDropped, "secret entry", "secret entries")} dropped: memory never
                          keeps keys, passwords or ID numbers.
                        </p>`
                  }${
                    proposal.changes.length === 0
                      ? ""
                      : markup`<div class="row">
                          ${form(
                            page,
                            "/ask/confirm",
                            markup`${hidden("agent", view.agentId)}${hidden("proposal", proposal.id)}<button
                                type="submit"
                                class="primary"
                              >
                                Apply these changes
                              </button>`,
                            markup`class="inline"`
                          )}
                          ${form(
                            page,
                            "/ask/discard",
                            markup`${hidden("agent", view.agentId)}${hidden("proposal", proposal.id)}<button
                                type="submit"
                              >
                                Discard
                              </button>`,
                            markup`class="inline"`
                          )}
                        </div>`
                  }
                </div>`
          }
        </div>`
  return markup`<section class="card" id="ask">
    <h2>Ask or change in plain words</h2>
    ${form(
      page,
      "/ask",
      markup`${hidden("agent", view.agentId)}<textarea
          name="words"
          aria-label="Ask or change"
          placeholder="What do you know about my travel plans? · Forget everything about my old job"
        ></textarea>
        <div class="row">
          <button type="submit" class="primary">Send</button><span class="busy">asking the model…</span>
        </div>`,
      markup`data-busy`
    )}
    ${answer}
  </section>`
}

const summarySection = (page: Page, view: AgentPage): Html =>
  view.model.configured
    ? markup`<section class="card" id="summary">
        <h2>Summary</h2>
        ${
          view.summary === undefined
            ? markup`<p class="dim">A summary the model writes of this memory, on request; it is not stored.</p>`
            : markup`<div class="reply summary">${view.summary}</div>`
        }${form(
          page,
          "/summary",
          markup`${hidden("agent", view.agentId)}<button type="submit">
              ${view.summary === undefined ? "Summarise" : "Summarise again"}</button
            ><span class="busy">asking the model…</span>`,
          markup`data-busy`
        )}
      </section>`
    : markup``

/** How many entries the filter shows, of how many: `2 of 7 entries shown` (nothing without a filter). */
const shownText = (shown: number, total: number): string =>
  `${Txt.count(shown)} of ${Txt.plural(total, "entry", "entries")} shown`

/**
 * The box that filters the entries by their words: as they are typed, by the panel's script, without reloading; by
 * the server (a GET of the page with `q`) where the browser runs no script.
 */
const searchBox = (view: AgentPage): Html => {
  const entries = view.scopes.flatMap((scope) =>
    scope.files.flatMap((file) => file.rows.flatMap((row) => (row._tag === "Entry" ? [row] : [])))
  )
  const shown = entries.filter((row) => matches(searchText(row), view.filter)).length
  return markup`<form method="get" action="/agent" class="row search" role="search">
    ${hidden("id", view.agentId)}<input
      type="search"
      name="q"
      value="${view.filter}"
      placeholder="Filter entries by their words"
      aria-label="Filter entries"
    /><button type="submit">Filter</button
    ><span class="matches dim" aria-live="polite"
      >${view.filter.trim() === "" ? "" : shownText(shown, entries.length)}</span
    >
  </form>`
}

/**
 * An agent's page: its last review and conversations, the ask box, the filter, its memory with a form to add to each
 * file (and to a new topic), the summary.
 */
export const agentPage = (page: Page, view: AgentPage, given?: Notice, pending: Value = ""): string => {
  const last = view.lastReview
  const body = markup`<h1>Agent ${view.agentId}</h1>
    <p><a href="/journal${query({ agent: view.agentId })}">Journal of changes</a></p>
    <section class="card" id="last-review">
      <h2>Last review</h2>
      <p>
        ${lastReviewText(last)}${
          last !== null && !last.ok ? markup`<div class="reason">${last.reason ?? "no reason given"}</div>` : ""
        }
      </p>
      ${conversationsTable(page, view.conversations, view.transcripts, view.agentId)}
    </section>
    ${pending} ${askSection(page, view)} ${searchBox(view)} ${view.scopes.map((scope) => scopeSection(page, view, scope))}
    ${summarySection(page, view)}`
  return layout(page, `Agent ${view.agentId}`, body, given)
}

// ---------------------------------------------------------------------------------------------------------------------
// The journal

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
          ${row.before === undefined ? "" : markup`<div class="line">- <del>${row.before}</del></div>`}${
            row.after === undefined ? "" : markup`<div class="line">+ <ins>${row.after}</ins></div>`
          }
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

/** The page a request without the access token gets: what to do, and nothing of memory. */
export const unauthorized = (): string =>
  markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>mneme panel</title>
      </head>
      <body>
        <p>
          This panel needs its access link: open the link <code>mneme panel</code> printed when it started (it holds
          the access token).
        </p>
      </body>
    </html>`.source

/** The page of a request that is refused before it reaches the panel (a wrong Host, another site, a stale page). */
export const refused = (reason: string): string =>
  markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>mneme panel</title>
      </head>
      <body>
        <p>${reason}</p>
      </body>
    </html>`.source
