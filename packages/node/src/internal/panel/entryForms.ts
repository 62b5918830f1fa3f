/**
 * The changes a person makes on the panel's pages, each through the memory store as the person's (`actor: "person"`):
 * add an entry, edit or remove one exactly as the page showed it (a change made on disk meanwhile is seen, and never
 * overwritten), undo a journaled change, approve or reject an entry waiting; the page says what each did, with Undo.
 */
import { NoMatch } from "@mneme/core"
import { MemoryPending, MemoryStore } from "@mneme/review"
import { Effect, Option } from "effect"
import type { AddForm, EntryForm, PendingForm, UndoForm } from "./forms.ts"
import * as Pages from "./pages.ts"
import { refusedNotice, renderAgent, renderJournal, type Response, scopeOf } from "./render.ts"
import type * as Views from "./views.ts"

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

/** Adds the entry a form gives; the page keeps the form's words where it is refused. */
export const addEntry = (form: typeof AddForm.Type): Response =>
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
export const changeEntry = (form: typeof EntryForm.Type, text: string | undefined): Response =>
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
export const undoChange = (form: typeof UndoForm.Type): Response => {
  const back = (notice: Views.Notice, status = 200) =>
    form.back === "agent" ? renderAgent(form.agent, notice, status) : renderJournal(form.agent, notice, status)
  return Effect.gen(function* () {
    const store = yield* MemoryStore.MemoryStore
    const outcomes = yield* store.undo({ scope: scopeOf(form.agent, form.side), id: form.id, actor: "person" })
    return yield* back({ kind: "ok", text: outcomes.map((outcome) => outcome.message).join("\n") })
  }).pipe(Effect.catch((error) => back(refusedNotice(error), error._tag === "NotUndoable" ? 409 : 422)))
}

/** Approves or rejects the entry waiting that the form names, as a person's decision; the page says what it did. */
export const decidePending =
  (action: "approve" | "reject") =>
  (form: typeof PendingForm.Type): Response =>
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
