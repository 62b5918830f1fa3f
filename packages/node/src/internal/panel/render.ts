/**
 * The pages a panel request is answered with, as HTTP responses: the agents overview, an agent's page with the entries
 * waiting for a person, its journal, a transcript line, and the frame that says a page could not be read or that a
 * model is needed; each with its own page token and a notice, failures in words with secrets masked.
 */
import { MemoryScope, Secret, type StorageError } from "@mneme/core"
import { MemoryPending, MemoryStore, ReviewState, RootLayout } from "@mneme/review"
import { Effect, type FileSystem, Option, type Path, type PlatformError } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Conversations from "./conversations.ts"
import * as Guard from "./guard.ts"
import * as Pages from "./pages.ts"
import { Panel } from "./panelRun.ts"
import * as PendingView from "./pendingView.ts"
import * as Transcript from "./transcript.ts"
import * as Views from "./views.ts"

/** What the panel's pages are made with, beside the run's `Panel`: the store, the review state, files. */
export type Services = MemoryStore.MemoryStore | ReviewState.ReviewState | FileSystem.FileSystem | Path.Path

/** A page a request is answered with, made with the `Panel`, `Services` and `R`; it fails where memory cannot be read. */
export type Response<R = never> = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  PlatformError.PlatformError | StorageError,
  Panel | Services | R
>

/** An HTML page with its status. */
export const page = (markup: string, status = 200) =>
  HttpServerResponse.text(markup, { status, contentType: "text/html; charset=utf-8" })

/** What every page needs: its own token for the changes it sends, and the root's name. */
export const pageOf = Effect.gen(function* () {
  const panel = yield* Panel
  const given: Views.Page = { token: Guard.pageToken(panel.keys.secret), root: panel.options.root }
  return given
})

/** Where the panel finds transcripts, and the conversations of the root's agents they are. */
export const transcriptsOf = Effect.fnUntraced(function* (panel: Panel["Service"]) {
  const dir = panel.options.transcripts
  if (dir === undefined) return { dir, files: [] } satisfies Pages.Transcripts
  const folders = yield* (yield* MemoryStore.MemoryStore).agents
  const reviewed = Object.keys((yield* (yield* ReviewState.ReviewState).snapshot).lastReviews)
  const ids = [
    ...new Set([...folders.flatMap((agent) => (agent.agentId === undefined ? [] : [agent.agentId])), ...reviewed])
  ]
  const files = yield* Conversations.transcriptsIn(dir, ids, RootLayout.hash)
  return { dir, files } satisfies Pages.Transcripts
})

/** Whether a model is configured, and what to do where none is. */
export const modelState = (panel: Panel["Service"]): Views.ModelState => ({
  configured: panel.options.model !== undefined,
  howTo: `No model is configured, so the panel cannot ask one. ${panel.options.howToConfigure}.`
})

/** A failure's words for a person, secrets masked. */
export const words = (error: unknown): string =>
  Secret.redact(error instanceof Error && error.message !== "" ? error.message : String(error))

/** The agents overview, with a notice. */
export const renderOverview = Effect.fnUntraced(function* (notice?: Views.Notice, status = 200) {
  const panel = yield* Panel
  const view = yield* Pages.overview(yield* transcriptsOf(panel))
  return page(Views.overview(yield* pageOf, view, notice), status)
})

/** An agent's page, with a notice and what a request adds to it. */
export const renderAgent = Effect.fnUntraced(function* (
  agentId: string,
  notice?: Views.Notice,
  status = 200,
  extras: Pages.AgentExtras = {}
) {
  const panel = yield* Panel
  const view = yield* Pages.agent(agentId, yield* transcriptsOf(panel), modelState(panel), extras)
  const given = yield* pageOf
  const waiting = PendingView.pendingSection(given.token, agentId, yield* pendingRows(agentId))
  return page(Views.agentPage(given, view, notice, waiting), status)
})

/** The entries waiting for a person, the agent's own then the team's; none where the backend keeps none. */
const pendingRows = Effect.fnUntraced(function* (agentId: string) {
  const pending = Option.getOrUndefined(yield* Effect.serviceOption(MemoryPending.MemoryPending))
  if (pending === undefined) return []
  const rows: Array<PendingView.PendingRow> = []
  for (const side of ["own", "team"] as const) {
    for (const entry of yield* pending.list(scopeOf(agentId, side))) {
      rows.push({ side, text: entry.text, topic: entry.topic, source: entry.source, why: entry.why, at: entry.at })
    }
  }
  return rows
})

/** An agent's journal, with a notice. */
export const renderJournal = Effect.fnUntraced(function* (agentId: string, notice?: Views.Notice, status = 200) {
  const rows = yield* Pages.journal(agentId)
  return page(Views.journalPage(yield* pageOf, agentId, rows, notice), status)
})

/** The page of a transcript line an entry cites (404 where the panel cannot show it). */
export const renderTranscript = Effect.fnUntraced(function* (params: Parameters<typeof Transcript.paramsOf>[0]) {
  const panel = yield* Panel
  const view = yield* Transcript.read(panel.options.transcripts, Transcript.paramsOf(params))
  return page(Transcript.page(yield* pageOf, view), view.problem === undefined ? 200 : 404)
})

/** A page that could not be read: the overview's frame with why. */
export const unreadable = (error: unknown) =>
  Effect.map(pageOf, (given) =>
    page(Views.layout(given, "Error", "", { kind: "refused", text: `Memory could not be read: ${words(error)}` }), 500)
  )

/** The scope of an agent's side: its own memory, or the team's. */
export const scopeOf = (agentId: string, side: "own" | "team") =>
  side === "team" ? MemoryScope.team : MemoryScope.own(agentId)

/** A change refused: the error's message, as the CLI prints it. */
export const refusedNotice = (error: unknown): Views.Notice => ({ kind: "refused", text: words(error) })

/** The page said where a model is needed and none is configured. */
export const noModel = (agentId: string | undefined) =>
  Effect.gen(function* () {
    const notice: Views.Notice = { kind: "refused", text: modelState(yield* Panel).howTo }
    return yield* agentId === undefined ? renderOverview(notice, 503) : renderAgent(agentId, notice, 503)
  })
