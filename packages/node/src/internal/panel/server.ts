/**
 * The memory panel's HTTP server (`mneme panel`), on effect's HTTP router over Node's server: server-rendered pages of
 * a memory root and the forms that change it. Every change goes through the memory store, as a person's (`actor:
 * "person"`), vetted like any other; an edit or remove names its entry as the page showed it, so a change made on disk
 * meanwhile is seen (the page says so) and never overwritten. A global middleware guards every request (`Guard`):
 * the served Host, the access token, the page token of a change; and every response forbids framing, inline script and
 * caching.
 *
 * Here are the routes and the layer; one run's keys and proposals are in panelRun.ts, the guard's middleware in
 * access.ts, the pages a request is answered with in render.ts, the forms in forms.ts, a person's changes in
 * entryForms.ts and what the panel asks a model in modelForms.ts.
 */
import { Effect, Layer } from "effect"
import type { MemoryRoot } from "@mneme/review"
import { HttpRouter, type HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { guard } from "./access.ts"
import * as Assets from "./assets.ts"
import { addEntry, changeEntry, decidePending, undoChange } from "./entryForms.ts"
import {
  AddForm,
  AgentForm,
  AskForm,
  EditForm,
  EntryForm,
  handleForm,
  PendingForm,
  ProposalForm,
  ReviewForm,
  UndoForm
} from "./forms.ts"
import { ask, confirm, discard, reviewNow, summary } from "./modelForms.ts"
import { type Options, Panel } from "./panelRun.ts"
import { renderAgent, renderJournal, renderOverview, renderTranscript, type Services, unreadable } from "./render.ts"

export { type Options, Panel } from "./panelRun.ts"

/** The agent a page names (`id`, or `agent`), if any. */
const agentParam = Effect.gen(function* () {
  const params = yield* HttpServerRequest.ParsedSearchParams
  const id = params["id"] ?? params["agent"]
  return typeof id === "string" && id !== "" ? id : undefined
})

/** The words an agent's page filters its entries by (`q`), where the browser ran no script to filter them itself. */
const filterParam = Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
  const words = params["q"]
  return typeof words === "string" ? words : ""
})

/** Every page, asset and form of the panel, by method and path. */
const routes = Layer.mergeAll(
  HttpRouter.add("GET", "/panel.css", HttpServerResponse.text(Assets.css, { contentType: "text/css; charset=utf-8" })),
  HttpRouter.add(
    "GET",
    "/panel.js",
    HttpServerResponse.text(Assets.script, { contentType: "text/javascript; charset=utf-8" })
  ),
  HttpRouter.add("GET", "/", Effect.catch(renderOverview(), unreadable)),
  HttpRouter.add(
    "GET",
    "/agent",
    Effect.flatMap(agentParam, (agentId) =>
      agentId === undefined
        ? Effect.succeed(HttpServerResponse.redirect("/", { status: 303 }))
        : Effect.flatMap(filterParam, (filter) => renderAgent(agentId, undefined, 200, { filter }))
    ).pipe(Effect.catch(unreadable))
  ),
  HttpRouter.add(
    "GET",
    "/journal",
    Effect.flatMap(agentParam, (agentId) =>
      agentId === undefined ? Effect.succeed(HttpServerResponse.redirect("/", { status: 303 })) : renderJournal(agentId)
    ).pipe(Effect.catch(unreadable))
  ),
  HttpRouter.add(
    "GET",
    "/transcript",
    Effect.flatMap(HttpServerRequest.ParsedSearchParams, renderTranscript).pipe(Effect.catch(unreadable))
  ),
  HttpRouter.add("POST", "/entry/add", handleForm(AddForm, addEntry)),
  HttpRouter.add(
    "POST",
    "/entry/edit",
    handleForm(EditForm, (form) => changeEntry(form, form.text))
  ),
  HttpRouter.add(
    "POST",
    "/entry/remove",
    handleForm(EntryForm, (form) => changeEntry(form, undefined))
  ),
  HttpRouter.add("POST", "/journal/undo", handleForm(UndoForm, undoChange)),
  HttpRouter.add("POST", "/ask", handleForm(AskForm, ask)),
  HttpRouter.add("POST", "/ask/confirm", handleForm(ProposalForm, confirm)),
  HttpRouter.add("POST", "/ask/discard", handleForm(ProposalForm, discard)),
  HttpRouter.add("POST", "/summary", handleForm(AgentForm, summary)),
  HttpRouter.add("POST", "/review", handleForm(ReviewForm, reviewNow)),
  HttpRouter.add("POST", "/pending/approve", handleForm(PendingForm, decidePending("approve"))),
  HttpRouter.add("POST", "/pending/reject", handleForm(PendingForm, decidePending("reject")))
)

/** The panel's routes behind its guard, served by the `HttpServer` in context, with the `Panel` of this run. */
export const layer = (
  options: Options
): Layer.Layer<Panel, never, HttpServer.HttpServer | MemoryRoot.MemoryRoot | Services> =>
  HttpRouter.serve(Layer.mergeAll(routes, guard), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(Panel.layer(options))
  )
