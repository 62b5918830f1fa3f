/**
 * What one review pass shows the model (docs/spec.md 4.3), as a pure function of the two scopes read and the new lines: the
 * entries (both MEMORY.md files, each only up to its size when a person made it longer, then topic entries as
 * `Selection` chooses them), how many are not shown, and how full each MEMORY.md is. A file far past its size may have
 * been read only as far as its first entries within its size: the entries it left out count as not shown. Topic entries are given to
 * `Selection` as lists, one a file, the same list pass after pass while a file is unchanged (`candidates.ts`).
 */
import { type Lines, type MemoryConfig, Secret, Selection, Text } from "@mneme/core"
import type { StoredScope } from "../MemoryRoot.ts"
import * as Candidates from "./candidates.ts"

/** What a pass shows: the numbered entries, what is left out, and the sizes of both MEMORY.md files. */
export interface Chosen {
  readonly shown: ReadonlyArray<Selection.Shown>
  /** Topic entries not shown. */
  readonly hidden: number
  /** Entries of a MEMORY.md past its size that are not shown. */
  readonly memoryNotShown: { readonly own: number; readonly team: number }
  readonly sizes: { readonly own: number; readonly team: number; readonly max: number }
}

const memoryOf = (scope: StoredScope) => scope.files.find((file) => file.topic === undefined)

/** The entries the read of `scope` left out of its files past their sizes: of MEMORY.md, or of its topics. */
const omitted = (scope: StoredScope, memory: boolean) =>
  scope.files
    .filter((file) => (file.topic === undefined) === memory)
    .reduce((sum, file) => sum + (file.omitted ?? 0), 0)

/**
 * What a reviewer keeps between its passes over memory that mostly stays the same: each file's candidates while its
 * parse is the same, and what choosing read of them (`Selection.WordIndex`).
 */
export interface Held {
  readonly candidates: Candidates.Made
  readonly words: Selection.WordIndex
  /** The entries' texts as masked for the request, which shows mostly the same entries every pass. */
  readonly redact: Secret.Redactor
}

/** What a reviewer holds before its first pass. */
export const held = (): Held => ({
  candidates: Candidates.make(),
  words: Selection.wordIndex(),
  redact: Secret.redactor()
})

/** The candidates of a scope's MEMORY.md, or of its topics, one list a file. */
const candidates = (
  scope: StoredScope,
  side: "own" | "team",
  memory: boolean,
  made: Candidates.Made
): Array<ReadonlyArray<Selection.Candidate>> =>
  scope.files.filter((file) => (file.topic === undefined) === memory).map((file) => Candidates.of(side, file, made))

/**
 * The first entries whose texts fit in `budget` characters, and how many are left. Every entry has a character at
 * least, so no more than `budget` of them are looked at, however many a file holds.
 */
const firstWithin = (entries: ReadonlyArray<Selection.Candidate>, budget: number) => {
  const fitting = entries
    .slice(0, budget + 1)
    .reduce<{ readonly used: number; readonly count: number; readonly full: boolean }>(
      (so, entry) => {
        if (so.full) return so
        const used = so.used + Text.length(entry.text)
        return used > budget ? { ...so, full: true } : { used, count: so.count + 1, full: false }
      },
      { used: 0, count: 0, full: false }
    ).count
  return { taken: entries.slice(0, fitting), left: entries.length - fitting }
}

/**
 * The entries a pass shows over the scopes `own` and `team`, for the new `lines`; `kept` is what the reviewer keeps
 * between passes (none given: this choice reads every file and text).
 */
export const choose = (
  own: StoredScope,
  team: StoredScope,
  lines: ReadonlyArray<Lines.Line>,
  settings: Pick<MemoryConfig.Settings, "memoryMax" | "shownTopicsBudget">,
  kept: Held = held()
): Chosen => {
  const ownMemory = firstWithin(candidates(own, "own", true, kept.candidates).flat(), settings.memoryMax)
  const teamMemory = firstWithin(candidates(team, "team", true, kept.candidates).flat(), settings.memoryMax)
  const { shown, hidden } = Selection.choose(
    {
      own: ownMemory.taken,
      team: teamMemory.taken,
      topics: {
        lists: [...candidates(own, "own", false, kept.candidates), ...candidates(team, "team", false, kept.candidates)]
      },
      userText: lines
        .filter((line) => line.who === "user")
        .map((line) => line.text)
        .join("\n")
    },
    settings,
    kept.words
  )
  return {
    shown,
    hidden: hidden + omitted(own, false) + omitted(team, false),
    memoryNotShown: { own: ownMemory.left + omitted(own, true), team: teamMemory.left + omitted(team, true) },
    sizes: { own: memoryOf(own)?.size ?? 0, team: memoryOf(team)?.size ?? 0, max: settings.memoryMax }
  }
}
