/**
 * What every typed error of mneme shares: the mark `isMnemeError` looks for, and `MaskedTaggedError`, the tagged error
 * that masks the outside text it quotes.
 */
import { type Cause, Schema } from "effect"
import * as Secret from "../Secret.ts"

/** The mark every typed error of mneme carries. */
export const TypeId = "~@mneme/core/Error" as const

/** `text` in double quotes, as JSON writes it. */
export const quote = (text: string) => JSON.stringify(text)

/**
 * `Schema.TaggedError` for an error that quotes outside text: each of its string fields (and each string of a list
 * field) is masked for secrets as it is made, by `mask` (`Secret.redact` unless given), so neither its message nor its
 * fields nor its JSON keep a secret (docs/spec.md 2).
 */
export const MaskedTaggedError =
  <Self>() =>
  <Tag extends string, const Fields extends Schema.Struct.Fields>(
    tag: Tag,
    fields: Fields,
    mask?: (text: string) => string
  ): Schema.Class<Self, Schema.TaggedStruct<Tag, Fields>, Cause.YieldableError> =>
    // The class is made for a `Self` not known here, which `Schema.TaggedError`'s type cannot resolve: it is the same
    // class all the same.
    Secret.withFieldsMasked(Schema.TaggedError<Self>()(tag, fields) as never, mask)
