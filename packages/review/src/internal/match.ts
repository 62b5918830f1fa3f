/**
 * Finding the entry a `match` names (SPEC 3): the entry with exactly that text, else the one whose text equals it
 * with case and white space ignored, else the only entry containing it. None or several is no match, with up to
 * eight candidates.
 */
import { Entry, type MemoryFile, Text } from "@mneme/core"
import { Result } from "effect"

/** The most candidates a failed match lists. */
const candidatesMax = 8

/** The one entry `match` names, or the candidates (none when nothing contains it). */
export const find = (
  entries: ReadonlyArray<MemoryFile.Entry>,
  match: string
): Result.Result<MemoryFile.Entry, ReadonlyArray<string>> => {
  const cleaned = Entry.clean(match)
  if (cleaned === "") return Result.fail([])
  const exact = entries.find((entry) => entry.text === cleaned)
  if (exact !== undefined) return Result.succeed(exact)
  const key = Text.sameKey(cleaned)
  const same = entries.filter((entry) => Text.sameKey(entry.text) === key)
  if (same.length === 1 && same[0] !== undefined) return Result.succeed(same[0])
  const containing = entries.filter((entry) => Text.sameKey(entry.text).includes(key))
  if (containing.length === 1 && containing[0] !== undefined) return Result.succeed(containing[0])
  return Result.fail(containing.slice(0, candidatesMax).map((entry) => entry.text))
}
