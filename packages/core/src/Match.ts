/**
 * Finding the entry a change names (docs/spec.md 3). `find` is docs/spec.md 3's match: the entry with exactly that text, else the one
 * entry equal to it with case and white space ignored, else the only entry containing it. `exact` is the strict form
 * for an entry named by its own text (the review's numbered entries): only an entry whose cleaned text is exactly the
 * given text, never one that merely contains it. None or several is no match, with up to eight candidates.
 */
import { Result } from "effect"
import * as Entry from "./Entry.ts"
import type * as MemoryFile from "./MemoryFile.ts"
import * as Text from "./Text.ts"

/** The most candidates a failed match lists. */
const candidatesMax = 8

/** The one entry a match names, or the candidates to quote (none when nothing contains it). */
export type Found = Result.Result<MemoryFile.Entry, ReadonlyArray<string>>

const none: Found = Result.fail([])

/** The one entry `match` names (docs/spec.md 3), or up to eight entries containing it when several do (none when none do). */
export const find = (entries: ReadonlyArray<MemoryFile.Entry>, match: string): Found => {
  const cleaned = Entry.clean(match)
  if (cleaned === "") return none
  const same = entries.find((entry) => entry.text === cleaned)
  if (same !== undefined) return Result.succeed(same)
  const key = Text.sameKey(cleaned)
  const alike = entries.filter((entry) => Text.sameKey(entry.text) === key)
  if (alike.length === 1) return Result.succeed(alike[0]!)
  const containing = entries.filter((entry) => Text.sameKey(entry.text).includes(key))
  if (containing.length === 1) return Result.succeed(containing[0]!)
  return Result.fail(containing.slice(0, candidatesMax).map((entry) => entry.text))
}

/** The first entry whose cleaned text is exactly `text` once cleaned, and no other; no candidates otherwise. */
export const exact = (entries: ReadonlyArray<MemoryFile.Entry>, text: string): Found => {
  const cleaned = Entry.clean(text)
  const found = cleaned === "" ? undefined : entries.find((entry) => entry.text === cleaned)
  return found === undefined ? none : Result.succeed(found)
}
