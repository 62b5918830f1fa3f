/**
 * The forms the panel's pages send, by schema: each field a form must hold, and the handler of a form, which a form
 * that is not one of the panel's never reaches (it gets a 400 page).
 */
import { Effect, Schema } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { page, unreadable } from "./render.ts"
import * as Views from "./views.ts"

/** A form's fields by the schema, or a 400 page that says the form is not one of the panel's. */
const formOf = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>(
  schema: Schema.Codec<A, I>
) => HttpServerRequest.schemaBodyUrlParams(schema).pipe(Effect.mapError(() => ({ _tag: "BadForm" as const })))

const badForm = page(Views.refused("This form is not one the panel sent: reload the page and try again."), 400)

/** The side of an agent's memory a form names. */
const Side = Schema.Literals(["own", "team"])

/** The forms, each by the fields it sends. */
export const AgentForm = Schema.Struct({ agent: Schema.String })
export const AddForm = Schema.Struct({ agent: Schema.String, side: Side, topic: Schema.String, text: Schema.String })
export const EntryForm = Schema.Struct({
  agent: Schema.String,
  side: Side,
  topic: Schema.String,
  version: Schema.String,
  entry: Schema.String
})
export const EditForm = Schema.Struct({ ...EntryForm.fields, text: Schema.String })
export const UndoForm = Schema.Struct({
  agent: Schema.String,
  side: Side,
  id: Schema.String,
  back: Schema.optionalKey(Schema.Literal("agent"))
})
export const AskForm = Schema.Struct({ agent: Schema.String, words: Schema.String })
export const ProposalForm = Schema.Struct({ agent: Schema.String, proposal: Schema.String })
export const ReviewForm = Schema.Struct({ key: Schema.String, back: Schema.String })
export const PendingForm = Schema.Struct({ agent: Schema.String, side: Side, text: Schema.String, at: Schema.String })

/**
 * Runs a form's handler, or gives the 400 page where the form is not the panel's; a page that cannot be read even to
 * say what went wrong says only that.
 */
export const handleForm = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>, E, R>(
  schema: Schema.Codec<A, I>,
  handler: (form: A) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  formOf(schema).pipe(
    Effect.matchEffect({
      onFailure: () => Effect.succeed(badForm),
      onSuccess: (form) => Effect.catch(handler(form), unreadable)
    })
  )
