/**
 * What the panel asks a model: the ask box (a question or a change in plain words, answered with a preview the person
 * confirms or discards), a summary of an agent's memory, and "review now" of a conversation the panel has the
 * transcript of. Every change still goes through the memory store, vetted like any other.
 */
import { Answer, MemoryConfig, MemoryScope, NoMatch, Secret } from "@mneme/core"
import { Memory, MemoryReview, MemoryRoot, MemoryStore, ReviewModel, ReviewState } from "@mneme/review"
import { Effect, Layer, Ref, Result } from "effect"
import * as FileTranscript from "../../FileTranscript.ts"
import * as OutcomeText from "../outcomeText.ts"
import * as Ask from "./ask.ts"
import * as Conversations from "./conversations.ts"
import type { AgentForm, AskForm, ProposalForm, ReviewForm } from "./forms.ts"
import * as Guard from "./guard.ts"
import { Panel, type Pending, pendingMax } from "./panelRun.ts"
import {
  noModel,
  refusedNotice,
  renderAgent,
  renderOverview,
  type Response,
  transcriptsOf,
  unreadable,
  words
} from "./render.ts"
import type * as Views from "./views.ts"

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

/** Why the model's part failed, in words. */
const modelFailed = (error: { readonly _tag: string }) =>
  error._tag === "ModelError"
    ? `The model could not answer: ${words(error)}. Nothing was changed.`
    : error._tag === "MalformedAnswer" || error._tag === "UnlistedEntry" || error._tag === "BadTopic"
      ? `The model's answer could not be used, so nothing was changed: ${words(error)}`
      : `Memory could not be read: ${words(error)}`

/** Asks the model the form's words; a change it proposes waits for the person to confirm it. */
export const ask = (form: typeof AskForm.Type): Response =>
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

/** Applies the proposal the form names, as it was previewed. */
export const confirm = (form: typeof ProposalForm.Type): Response =>
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

/** Drops the proposal the form names. */
export const discard = (form: typeof ProposalForm.Type): Response =>
  Effect.gen(function* () {
    const panel = yield* Panel
    yield* Ref.update(panel.pending, (pending) => {
      const next = new Map(pending)
      next.delete(form.proposal)
      return next
    })
    return yield* renderAgent(form.agent, { kind: "info", text: "Discarded: nothing was changed." })
  }).pipe(Effect.catch(unreadable))

/** The model's summary of an agent's memory. */
export const summary = (form: typeof AgentForm.Type): Response =>
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

/** Reviews the conversation the form names now, from its transcript, with the panel's model. */
export const reviewNow = (form: typeof ReviewForm.Type): Response<MemoryRoot.MemoryRoot> =>
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
