/**
 * The memory panel's HTTP server (`mneme panel`), on effect's HTTP router over Node's server: server-rendered pages of
 * a memory root and the forms that change it. Every change goes through the memory store, as a person's (`actor:
 * "person"`), vetted like any other; an edit or remove names its entry as the page showed it, so a change made on disk
 * meanwhile is seen (the page says so) and never overwritten. A global middleware guards every request (`Guard`):
 * the served Host, the access token, the page token of a change; and every response forbids framing, inline script and
 * caching.
 */
import { Answer, MemoryConfig, MemoryScope, NoMatch, Secret } from "@mneme/core"
import {
  Memory,
  MemoryPending,
  MemoryReview,
  MemoryRoot,
  MemoryStore,
  Platform,
  ReviewModel,
  ReviewState
} from "@mneme/review"
import { Context, Effect, Layer, Option, Ref, Result, Schema } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { networkInterfaces } from "node:os"
import * as FileTranscript from "../../FileTranscript.ts"
import * as OutcomeText from "../outcomeText.ts"
import * as Ask from "./ask.ts"
import * as Assets from "./assets.ts"
import * as Conversations from "./conversations.ts"
import * as Guard from "./guard.ts"
import * as Pages from "./pages.ts"
import * as PendingView from "./pendingView.ts"
import * as Transcript from "./transcript.ts"
import * as Views from "./views.ts"

/** What the panel serves and with what. */
export interface Options {
  /** The memory root as shown: a folder as the person named it, or a Postgres database without its password. */
  readonly root: string
  /** The address to listen on (127.0.0.1 unless the person says otherwise). */
  readonly host: string
  /** The folder of JSONL transcripts conversations can be reviewed from, if any. */
  readonly transcripts: string | undefined
  /** The model of the ask box, the summary and "review now"; `undefined` when none is configured. */
  readonly model: ReviewModel.ReviewModel["Service"] | undefined
  /** What to do to configure a model, said where one is needed. */
  readonly howToConfigure: string
}

/** A proposal of the ask box waiting for the person to confirm it. */
interface Pending {
  readonly agentId: string
  readonly proposal: Ask.Proposal
}

/** The most proposals kept waiting at once (the oldest is dropped past it). */
const pendingMax = 50

/** One run of the panel: its options, its keys, the link it printed, the proposals waiting. */
export class Panel extends Context.Service<
  Panel,
  {
    readonly options: Options
    readonly keys: Guard.Keys
    /** The address served, for people: `http://127.0.0.1:4177/`. */
    readonly address: string
    /** The address with the access token, to open. */
    readonly link: string
    readonly pending: Ref.Ref<ReadonlyMap<string, Pending>>
  }
>()("@mneme/node/internal/panel/Panel") {
  /** The panel's keys and link, made when the server listens (its port is known then). */
  static readonly layer = (options: Options) =>
    Layer.effect(
      Panel,
      Effect.gen(function* () {
        const server = yield* HttpServer.HttpServer
        const port = "port" in server.address ? server.address.port : 0
        const interfaces = Object.values(networkInterfaces()).flatMap((list) =>
          (list ?? []).map((info) => info.address)
        )
        const keys: Guard.Keys = {
          token: Guard.randomToken(),
          secret: Guard.randomToken(),
          hosts: Guard.hostsFor(options.host, port, interfaces),
          cookie: Guard.cookieName(port)
        }
        const shown = ["0.0.0.0", "::", "[::]"].includes(options.host) ? "127.0.0.1" : options.host
        const address = `http://${Guard.urlHost(shown)}:${port}/`
        return Panel.of({
          options,
          keys,
          address,
          link: `${address}?token=${keys.token}`,
          pending: yield* Ref.make<ReadonlyMap<string, Pending>>(new Map())
        })
      })
    )
}

// ---------------------------------------------------------------------------------------------------------------------
// Responses

const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}

const page = (markup: string, status = 200) =>
  HttpServerResponse.text(markup, { status, contentType: "text/html; charset=utf-8" })

/** What every page needs: its own token for the changes it sends, and the root's name. */
const pageOf = Effect.gen(function* () {
  const panel = yield* Panel
  const given: Views.Page = { token: Guard.pageToken(panel.keys.secret), root: panel.options.root }
  return given
})

const transcriptsOf = Effect.fnUntraced(function* (panel: Panel["Service"]) {
  const dir = panel.options.transcripts
  if (dir === undefined) return { dir, files: [] } satisfies Pages.Transcripts
  const folders = yield* (yield* MemoryStore.MemoryStore).agents
  const reviewed = Object.keys((yield* (yield* ReviewState.ReviewState).snapshot).lastReviews)
  const ids = [
    ...new Set([...folders.flatMap((agent) => (agent.agentId === undefined ? [] : [agent.agentId])), ...reviewed])
  ]
  const files = yield* Conversations.transcriptsIn(dir, ids, (yield* Platform.Platform).sha256)
  return { dir, files } satisfies Pages.Transcripts
})

const modelState = (panel: Panel["Service"]): Views.ModelState => ({
  configured: panel.options.model !== undefined,
  howTo: `No model is configured, so the panel cannot ask one. ${panel.options.howToConfigure}.`
})

/** A failure's words for a person, secrets masked. */
const words = (error: unknown): string =>
  Secret.redact(error instanceof Error && error.message !== "" ? error.message : String(error))

/** The agents overview, with a notice. */
const renderOverview = Effect.fnUntraced(function* (notice?: Views.Notice, status = 200) {
  const panel = yield* Panel
  const view = yield* Pages.overview(yield* transcriptsOf(panel))
  return page(Views.overview(yield* pageOf, view, notice), status)
})

/** An agent's page, with a notice and what a request adds to it. */
const renderAgent = Effect.fnUntraced(function* (
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
const renderJournal = Effect.fnUntraced(function* (agentId: string, notice?: Views.Notice, status = 200) {
  const rows = yield* Pages.journal(agentId)
  return page(Views.journalPage(yield* pageOf, agentId, rows, notice), status)
})

/** The page of a transcript line an entry cites (404 where the panel cannot show it). */
const renderTranscript = Effect.fnUntraced(function* (params: Parameters<typeof Transcript.paramsOf>[0]) {
  const panel = yield* Panel
  const view = yield* Transcript.read(panel.options.transcripts, Transcript.paramsOf(params))
  return page(Transcript.page(yield* pageOf, view), view.problem === undefined ? 200 : 404)
})

/** A page that could not be read: the overview's frame with why. */
const unreadable = (error: unknown) =>
  Effect.map(pageOf, (given) =>
    page(Views.layout(given, "Error", "", { kind: "refused", text: `Memory could not be read: ${words(error)}` }), 500)
  )

// ---------------------------------------------------------------------------------------------------------------------
// Forms

/** A form's fields by the schema, or a 400 page that says the form is not one of the panel's. */
const formOf = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>(
  schema: Schema.Codec<A, I>
) => HttpServerRequest.schemaBodyUrlParams(schema).pipe(Effect.mapError(() => ({ _tag: "BadForm" as const })))

const badForm = page(Views.refused("This form is not one the panel sent: reload the page and try again."), 400)

const Side = Schema.Literals(["own", "team"])

const AgentForm = Schema.Struct({ agent: Schema.String })
const AddForm = Schema.Struct({ agent: Schema.String, side: Side, topic: Schema.String, text: Schema.String })
const EntryForm = Schema.Struct({
  agent: Schema.String,
  side: Side,
  topic: Schema.String,
  version: Schema.String,
  entry: Schema.String
})
const EditForm = Schema.Struct({ ...EntryForm.fields, text: Schema.String })
const UndoForm = Schema.Struct({
  agent: Schema.String,
  side: Side,
  id: Schema.String,
  back: Schema.optionalKey(Schema.Literal("agent"))
})
const AskForm = Schema.Struct({ agent: Schema.String, words: Schema.String })
const ProposalForm = Schema.Struct({ agent: Schema.String, proposal: Schema.String })
const ReviewForm = Schema.Struct({ key: Schema.String, back: Schema.String })
const PendingForm = Schema.Struct({ agent: Schema.String, side: Side, text: Schema.String, at: Schema.String })

const scopeOf = (agentId: string, side: "own" | "team") =>
  side === "team" ? MemoryScope.team : MemoryScope.own(agentId)

const topicOf = (topic: string) => (topic.trim() === "" ? {} : { topic })

/** How many of a scope's latest journal lines are searched for the change just made. */
const recentLines = 20

/**
 * A person's change done: its outcome's message, as the CLI prints it, and Undo for it at once where it changed
 * something (its journal line found among the scope's latest: the newest that wrote what the outcome says).
 */
const done = Effect.fnUntraced(function* (
  agentId: string,
  side: "own" | "team",
  outcome: MemoryStore.Outcome,
  note = ""
) {
  const text = outcome.message + note
  if (!outcome.changed) return { kind: "info", text } satisfies Views.Notice
  // The change is made: a journal that cannot be read now only means no Undo is offered here (the journal page has it).
  const lines = yield* (yield* MemoryStore.MemoryStore)
    .journal({ scope: scopeOf(agentId, side), limit: recentLines })
    .pipe(Effect.orElseSucceed(() => []))
  const id = lines.findLast(
    (line) =>
      line.op === outcome.op &&
      line.actor === "person" &&
      line.file === outcome.file &&
      line.before === outcome.before &&
      line.after === outcome.after
  )?.id
  return { kind: "ok", text, undo: id === undefined ? undefined : { agentId, side, id } } satisfies Views.Notice
})

/** A change refused: the error's message, as the CLI prints it. */
const refusedNotice = (error: unknown): Views.Notice => ({ kind: "refused", text: words(error) })

/**
 * Runs a form's handler, or gives the 400 page where the form is not the panel's; a page that cannot be read even to
 * say what went wrong says only that.
 */
const handleForm = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>, E, R>(
  schema: Schema.Codec<A, I>,
  handler: (form: A) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  formOf(schema).pipe(
    Effect.matchEffect({
      onFailure: () => Effect.succeed(badForm),
      onSuccess: (form) => Effect.catch(handler(form), unreadable)
    })
  )

const addEntry = (form: typeof AddForm.Type) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore.MemoryStore
    const outcome = yield* store.add({
      scope: scopeOf(form.agent, form.side),
      ...topicOf(form.topic),
      text: form.text,
      actor: "person"
    })
    return yield* renderAgent(form.agent, yield* done(form.agent, form.side, outcome))
  }).pipe(
    Effect.catch((error) =>
      renderAgent(form.agent, refusedNotice(error), 422, {
        draft: { text: form.text, side: form.side, topic: form.topic }
      })
    )
  )

/** The notice for an entry that is no longer as the page showed it. */
const changedOnDisk = (file: string): Views.Notice => ({
  kind: "refused",
  text:
    `That entry is no longer in ${file} as the page showed it: the file was changed on disk meanwhile. ` +
    "Nothing was changed; the page now shows memory as it is."
})

/** Edits or removes the entry a form names, exactly as the page showed it. */
const changeEntry = (form: typeof EntryForm.Type, text: string | undefined) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore.MemoryStore
    const scope = scopeOf(form.agent, form.side)
    const topic = form.topic === "" ? undefined : form.topic
    const found = yield* Pages.findEntry(scope, topic, form.entry)
    const name = Option.match(found.file, { onNone: () => topic ?? "MEMORY.md", onSome: (file) => file.file })
    if (Option.isNone(found.entry)) return yield* renderAgent(form.agent, changedOnDisk(name), 409)
    const note =
      found.version === form.version
        ? ""
        : `\n${name} had changed on disk since the page was shown: those changes are kept, and shown here.`
    const where = { scope, ...(topic === undefined ? {} : { topic }), match: found.entry.value.text, exact: true }
    const outcome =
      text === undefined
        ? yield* store.remove({ ...where, actor: "person" })
        : yield* store.replace({ ...where, text, actor: "person" })
    return yield* renderAgent(form.agent, yield* done(form.agent, form.side, outcome, note))
  }).pipe(
    Effect.catch((error) =>
      error instanceof NoMatch
        ? renderAgent(form.agent, changedOnDisk(error.file), 409)
        : renderAgent(form.agent, refusedNotice(error), 422)
    )
  )

/** Undoes a change of the journal, from the journal's page or from the notice of the change just made. */
const undoChange = (form: typeof UndoForm.Type) => {
  const back = (notice: Views.Notice, status = 200) =>
    form.back === "agent" ? renderAgent(form.agent, notice, status) : renderJournal(form.agent, notice, status)
  return Effect.gen(function* () {
    const store = yield* MemoryStore.MemoryStore
    const outcomes = yield* store.undo({ scope: scopeOf(form.agent, form.side), id: form.id, actor: "person" })
    return yield* back({ kind: "ok", text: outcomes.map((outcome) => outcome.message).join("\n") })
  }).pipe(Effect.catch((error) => back(refusedNotice(error), error._tag === "NotUndoable" ? 409 : 422)))
}

// ---------------------------------------------------------------------------------------------------------------------
// The model: ask or change, summary, review now

/** The page said where a model is needed and none is configured. */
const noModel = (agentId: string | undefined) =>
  Effect.gen(function* () {
    const notice: Views.Notice = { kind: "refused", text: modelState(yield* Panel).howTo }
    return yield* agentId === undefined ? renderOverview(notice, 503) : renderAgent(agentId, notice, 503)
  })

/** What the box lists of an agent's memory for `words`, and its MEMORY.md sizes. */
const listFor = Effect.fnUntraced(function* (agentId: string, given: string) {
  const store = yield* MemoryStore.MemoryStore
  const settings = yield* MemoryConfig.MemoryConfig
  const own = yield* store.load(MemoryScope.own(agentId))
  const team = yield* store.load(MemoryScope.team)
  const size = (scope: MemoryStore.ScopeView) => scope.files.find((file) => file.topic === undefined)?.size ?? 0
  return {
    listed: Ask.list(own, team, given, settings),
    sizes: { own: size(own), team: size(team) },
    settings
  }
})

const modelFailed = (error: { readonly _tag: string }) =>
  error._tag === "ModelError"
    ? `The model could not answer: ${words(error)}. Nothing was changed.`
    : error._tag === "MalformedAnswer" || error._tag === "UnlistedEntry" || error._tag === "BadTopic"
      ? `The model's answer could not be used, so nothing was changed: ${words(error)}`
      : `Memory could not be read: ${words(error)}`

const ask = (form: typeof AskForm.Type) =>
  Effect.gen(function* () {
    const panel = yield* Panel
    const model = panel.options.model
    if (model === undefined) return yield* noModel(form.agent)
    if (form.words.trim() === "") {
      return yield* renderAgent(form.agent, { kind: "refused", text: "Write a question or a change first." }, 422)
    }
    const { listed, sizes, settings } = yield* listFor(form.agent, form.words)
    const answer = yield* model.generate({
      system: Ask.system(settings),
      request: Ask.request({ agentId: form.agent, sizes, listed, words: form.words }, settings)
    })
    const vetted = yield* Answer.vet(yield* Answer.parse(answer.text), listed.shown.length, settings)
    const proposal = Ask.propose(form.agent, listed, vetted)
    const id = Guard.randomToken()
    const waiting = proposal.changes.length > 0
    if (waiting) {
      yield* Ref.update(panel.pending, (pending) => {
        const next = new Map(pending).set(id, { agentId: form.agent, proposal })
        for (const key of next.keys()) if (next.size > pendingMax) next.delete(key)
        return next
      })
    }
    const shown = proposal.changes.length + proposal.leftOut.length + proposal.secretsDropped > 0
    return yield* renderAgent(form.agent, undefined, 200, {
      ask: {
        words: form.words,
        reply: Ask.replyOf(answer.text),
        proposal: shown ? { ...proposal, id } : undefined
      }
    })
  }).pipe(
    Effect.catch((error) =>
      renderAgent(form.agent, { kind: "refused", text: modelFailed(error) }, error._tag === "StorageError" ? 500 : 502)
    )
  )

/** What one change of a confirmed proposal did, in words. */
const resultText = (result: Result.Result<MemoryStore.Outcome, MemoryStore.ChangeError>): string =>
  Result.isSuccess(result)
    ? result.success.message
    : result.failure instanceof NoMatch && result.failure.candidates.length === 0
      ? `Not changed: the entry is no longer in ${result.failure.file} as the preview showed it (changed on disk meanwhile).`
      : `Not changed: ${words(result.failure)}`

const confirm = (form: typeof ProposalForm.Type) =>
  Effect.gen(function* () {
    const panel = yield* Panel
    const store = yield* MemoryStore.MemoryStore
    const taken = yield* Ref.modify(panel.pending, (pending): [Pending | undefined, ReadonlyMap<string, Pending>] => {
      const found = pending.get(form.proposal)
      if (found === undefined || found.agentId !== form.agent) return [undefined, pending]
      const next = new Map(pending)
      next.delete(form.proposal)
      return [found, next]
    })
    if (taken === undefined) {
      return yield* renderAgent(
        form.agent,
        {
          kind: "refused",
          text:
            "This preview is no longer waiting (applied or discarded already, or the panel was restarted): " +
            "nothing was changed."
        },
        409
      )
    }
    const results = yield* store.apply(taken.proposal.changes.map((change) => change.change))
    const failed = results.some(Result.isFailure)
    return yield* renderAgent(form.agent, { kind: failed ? "refused" : "ok", text: results.map(resultText).join("\n") })
  }).pipe(Effect.catch((error) => renderAgent(form.agent, refusedNotice(error), 500)))

const discard = (form: typeof ProposalForm.Type) =>
  Effect.gen(function* () {
    const panel = yield* Panel
    yield* Ref.update(panel.pending, (pending) => {
      const next = new Map(pending)
      next.delete(form.proposal)
      return next
    })
    return yield* renderAgent(form.agent, { kind: "info", text: "Discarded: nothing was changed." })
  }).pipe(Effect.catch(unreadable))

/** Approves or rejects the entry waiting that the form names, as a person's decision; the page says what it did. */
const decidePending = (action: "approve" | "reject") => (form: typeof PendingForm.Type) =>
  Effect.gen(function* () {
    const pending = Option.getOrUndefined(yield* Effect.serviceOption(MemoryPending.MemoryPending))
    const scope = scopeOf(form.agent, form.side)
    const entry = (pending === undefined ? [] : yield* pending.list(scope)).find(
      (held) => held.text === form.text && String(held.at) === form.at
    )
    if (pending === undefined || entry === undefined) {
      return yield* renderAgent(
        form.agent,
        { kind: "refused", text: "That entry no longer waits: nothing was changed." },
        409
      )
    }
    const store = yield* MemoryStore.MemoryStore
    const [decided] =
      action === "approve"
        ? yield* MemoryPending.approve(store, pending, scope, [entry], "person")
        : yield* MemoryPending.reject(pending, scope, [entry], "person")
    return yield* renderAgent(
      form.agent,
      { kind: decided!.done ? "info" : "refused", text: decided!.message },
      decided!.done ? 200 : 409
    )
  })

const summary = (form: typeof AgentForm.Type) =>
  Effect.gen(function* () {
    const panel = yield* Panel
    const model = panel.options.model
    if (model === undefined) return yield* noModel(form.agent)
    const { listed, settings } = yield* listFor(form.agent, "")
    const answer = yield* model.generate({
      system: Ask.summarySystem,
      request: Ask.summaryRequest(form.agent, listed, settings)
    })
    return yield* renderAgent(form.agent, undefined, 200, { summary: Secret.redact(answer.text.trim()) })
  }).pipe(
    Effect.catch((error) =>
      renderAgent(form.agent, { kind: "refused", text: modelFailed(error) }, error._tag === "StorageError" ? 500 : 502)
    )
  )

/** A review's outcome in words. */
const outcomeText = (label: string, outcome: MemoryReview.Outcome): Views.Notice =>
  OutcomeText.render<Views.Notice>(outcome, {
    reviewed: (phrase) => ({
      kind: "ok",
      text:
        `Reviewed ${label} ${phrase}` + (outcome.moreFollow ? ". Newer lines follow: review it again to go on." : ".")
    }),
    nothingNew: (phrase) => ({ kind: "info", text: `Nothing new in ${label} ${phrase}.` }),
    noUserLine: (phrase) => ({ kind: "info", text: `No user line in ${label} ${phrase}: nothing to keep.` }),
    notDone: (phrase) => ({ kind: "refused", text: `The review of ${label} failed ${phrase}` })
  })

const reviewNow = (form: typeof ReviewForm.Type) =>
  Effect.gen(function* () {
    const panel = yield* Panel
    const back = (notice: Views.Notice, status: number) =>
      form.back === "" ? renderOverview(notice, status) : renderAgent(form.back, notice, status)
    const model = panel.options.model
    if (model === undefined) return yield* noModel(form.back === "" ? undefined : form.back)
    const transcripts = yield* transcriptsOf(panel)
    const conversation = Conversations.known(yield* (yield* ReviewState.ReviewState).snapshot, transcripts.files).find(
      (known) => known.key === form.key
    )
    const file = conversation?.transcript
    if (conversation === undefined || conversation.agentId === undefined || file === undefined) {
      return yield* back(
        { kind: "refused", text: "The panel has no transcript of this conversation: nothing was reviewed." },
        404
      )
    }
    const lines = yield* FileTranscript.read(file.file)
    const root = yield* MemoryRoot.MemoryRoot
    const outcome = yield* MemoryReview.MemoryReview.use((review) =>
      review.reviewNow(conversation.conversationId)
    ).pipe(
      Effect.provide(
        Memory.layerOver(Layer.succeed(MemoryRoot.MemoryRoot, root)).pipe(
          Layer.provide(
            Layer.mergeAll(
              FileTranscript.layer({
                lines,
                conversationId: conversation.conversationId,
                label: file.label,
                agentId: conversation.agentId
              }),
              Layer.succeed(ReviewModel.ReviewModel, model)
            )
          )
        )
      )
    )
    const notice = outcomeText(file.label, outcome)
    return yield* back(notice, notice.kind === "refused" ? 502 : 200)
  }).pipe(
    Effect.catch((error) =>
      form.back === "" ? renderOverview(refusedNotice(error), 500) : renderAgent(form.back, refusedNotice(error), 500)
    )
  )

// ---------------------------------------------------------------------------------------------------------------------
// Routes

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

/** The page token a change was sent with. */
const PageToken = Schema.Struct({ page: Schema.optionalKey(Schema.String) })

/**
 * Guards every request (`Guard.judge`): a wrong Host gets 403, no access token 401, the link's token a cookie and the
 * same address without it; a change from another site or from nowhere it says, or without a page token this run
 * signed, 403. Nothing runs
 * before the guard has let a request through. Every response carries the security headers.
 */
const guard = HttpRouter.middleware(
  (handler) =>
    Effect.gen(function* () {
      const panel = yield* Panel
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = (name: string) => {
        const value = request.headers[name]
        return typeof value === "string" ? value : undefined
      }
      const verdict = Guard.judge(panel.keys, {
        method: request.method,
        url: request.url,
        host: header("host"),
        cookie: request.cookies[panel.keys.cookie],
        origin: header("origin"),
        referer: header("referer"),
        fetchSite: header("sec-fetch-site")
      })
      const response = yield* Effect.gen(function* () {
        switch (verdict._tag) {
          case "WrongHost":
            return page(
              Views.refused("This panel answers only at its own address: open the link mneme panel printed."),
              403
            )
          case "NoToken":
            return page(Views.unauthorized(), 401)
          case "OtherSite":
            return page(Views.refused("A change can only be sent from the panel's own pages."), 403)
          case "UnknownSite":
            return page(
              Views.refused(
                "This change does not say which page sent it (no Origin or Referer header), so it is refused: " +
                  "a change can only be sent from the panel's own pages, in a browser."
              ),
              403
            )
          case "TokenGiven":
            return HttpServerResponse.redirect(verdict.location, { status: 303 }).pipe(
              HttpServerResponse.setCookieUnsafe(panel.keys.cookie, panel.keys.token, {
                httpOnly: true,
                sameSite: "strict",
                path: "/"
              })
            )
          case "Pass": {
            if (request.method === "GET" || request.method === "HEAD") return yield* handler
            const given = yield* HttpServerRequest.schemaBodyUrlParams(PageToken).pipe(
              Effect.map((form) => form.page),
              Effect.orElseSucceed(() => undefined)
            )
            if (!Guard.validPageToken(panel.keys.secret, given)) {
              return page(
                Views.refused(
                  "This change was not sent from a page of this panel (or the page is from an earlier run): " +
                    "reload the page and try again."
                ),
                403
              )
            }
            return yield* handler
          }
        }
      })
      return HttpServerResponse.setHeaders(response, securityHeaders)
    }),
  { global: true }
)

/** The panel's routes behind its guard, served by the `HttpServer` in context, with the `Panel` of this run. */
export const layer = (options: Options) =>
  HttpRouter.serve(Layer.mergeAll(routes, guard), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(Panel.layer(options))
  )
