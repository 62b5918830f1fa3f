/**
 * What a memory tool tells the model: a change memory cannot make as a refusal it can act on, and what a recall found,
 * as entries and in a sentence.
 */
import type { BadTopic, Denied, MemoryFull, NoMatch, NoSuchTopic, StorageError, TooManyTopics } from "@mneme/core"
import { Text } from "@mneme/core"
import type * as MemoryRecall from "../MemoryRecall.ts"
import { MemoryToolError, type Recalled } from "./memoryToolkit.ts"

/** Every error a tool's work can meet. */
export type ToolFailure = MemoryFull | NoMatch | Denied | BadTopic | NoSuchTopic | TooManyTopics | StorageError

export const quote = (text: string) => JSON.stringify(text)

/** An entry memory cannot keep, or team memory the agent may not write, as the tool's result. */
const deniedRefusal = (denied: Denied["reason"]): MemoryToolError => {
  switch (denied._tag) {
    case "EmptyEntry":
      return new MemoryToolError({ reason: "Empty", message: denied.message })
    case "TooLong":
      return new MemoryToolError({
        reason: "TooLong",
        message: `${denied.message}: shorten it, or split it into several entries`
      })
    case "SecretEntry":
      return new MemoryToolError({ reason: "Secret", message: denied.message })
    case "TeamMemory":
      return new MemoryToolError({
        reason: "Denied",
        message: `${denied.message}: leave team out to use the agent's own memory`
      })
  }
}

/** A failure as the tool's result: its reason and message, with a hint on what to do where the message has none. */
export const refusal = (error: ToolFailure): MemoryToolError => {
  switch (error._tag) {
    case "NoMatch":
      return new MemoryToolError({
        reason: "NoMatch",
        message:
          error.candidates.length === 0
            ? `${error.message}: recall finds where an entry is (its topic, and whether it is team memory)`
            : error.message,
        candidates: error.candidates
      })
    case "Denied":
      return deniedRefusal(error.reason)
    case "MemoryFull":
    case "BadTopic":
    case "NoSuchTopic":
    case "TooManyTopics":
    case "StorageError":
      return new MemoryToolError({ reason: error._tag, message: error.message })
  }
}

/** `value`, unless it is `null` or absent. */
export const given = <A>(value: A | null | undefined): A | undefined => (value === null ? undefined : value)

/** A recalled entry as the tool gives it: where it is, its text masked, and when it was added. */
export const recalledEntry = (entry: MemoryRecall.Found, mask: (text: string) => string): typeof Recalled.Type => ({
  scope: entry.scope,
  text: mask(entry.text),
  ...(entry.topic === undefined ? {} : { topic: entry.topic }),
  ...(entry.added === undefined ? {} : { added: entry.added }),
  ...(entry.score === 0 ? {} : { score: Math.round(entry.score * 100) / 100 })
})

/** What a recall found, in a sentence. */
export const recallMessage = (recalled: MemoryRecall.Recalled, query: string): string => {
  const count = recalled.entries.length
  const entries = `${Text.count(count)} entr${count === 1 ? "y" : "ies"}`
  const where = recalled.topic === undefined ? "" : ` of the topic ${quote(recalled.topic)}`
  if (query.trim() === "") {
    return recalled.topic !== undefined
      ? `the topic ${quote(recalled.topic)}, whole: ${entries}`
      : recalled.more
        ? `the ${entries} newest; there are more: search with a query, or read a topic`
        : `all ${entries}, the newest first`
  }
  if (count === 0) return `no entry${where} matches ${quote(query)}`
  return recalled.more
    ? `the ${entries}${where} most related to ${quote(query)}; more match: narrow the query, or read a topic`
    : `${entries}${where} match${count === 1 ? "es" : ""} ${quote(query)}, the most related first`
}
