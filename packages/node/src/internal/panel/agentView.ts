/**
 * An agent's page of the panel: its files with their sizes against the limits, each entry with its source and date
 * and its edit and remove controls, notes by hand as they are, an add form beside each file's entries, the filter,
 * the ask or change box with its preview, and its last review and conversations.
 */
import * as Txt from "../text.ts"
import type { Proposal } from "./ask.ts"
import { type Html, markup, query, type Value } from "./html.ts"
import type { Notice, Row, FileView, ScopeView, Page, AgentPage } from "./viewModels.ts"
import { bar, hidden, form, layout, lastReviewText, conversationsTable } from "./viewParts.ts"

/** A line that reads as an instruction, quoted, and what the page says of it. */
const flagged = (text: string, instruction: string | undefined) =>
  instruction === undefined
    ? markup`${text}`
    : markup`${JSON.stringify(text)}<div class="full instruction">
          This ${instruction}: the agent is shown it as data and told not to follow it.
        </div>`

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
