/**
 * The entry's problem (docs/spec.md 2): the one check every path that writes memory makes on an entry's cleaned text.
 * An entry may not be empty, secret, or longer than `entryMax` code points. The checks run in that order: a secret
 * is reported as a secret even when it is also too long, so every writer drops it silently instead of naming it in
 * a warning. What the model proposes is also read for instructions (`Instruction.check`): such an entry is left out
 * of a review's answer, as an entry memory cannot keep is, and a person must approve it.
 */
import * as Instruction from "./Instruction.ts"
import type { Settings } from "./MemoryConfig.ts"
import * as Secret from "./Secret.ts"
import * as Text from "./Text.ts"

/** Why memory cannot keep an entry. */
export type Problem =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "TooLong"; readonly length: number; readonly max: number }
  | { readonly _tag: "Secret" }

/** Why a review's answer leaves out an entry the model proposes: a problem, or that it reads as an instruction. */
export type Objection = Problem | Instruction.Flag

/** The problem of an entry's cleaned text (Empty, then Secret, then TooLong), or `undefined` when it may be kept. */
export const problem = (text: string, settings: Pick<Settings, "entryMax" | "isSecret">): Problem | undefined => {
  if (text.trim() === "") return { _tag: "Empty" }
  if (Secret.looksSecret(text, settings.isSecret)) return { _tag: "Secret" }
  const length = Text.length(text)
  return length > settings.entryMax ? { _tag: "TooLong", length, max: settings.entryMax } : undefined
}

/** The problem of a text the model proposes: `problem`'s, then whether it reads as an instruction to the agent. */
export const proposed = (text: string, settings: Pick<Settings, "entryMax" | "isSecret">): Objection | undefined =>
  problem(text, settings) ?? Instruction.check(text)

/** A short sentence saying what is wrong, for a warning or a tool's answer. */
export const describe = (problem: Objection): string => {
  switch (problem._tag) {
    case "Empty":
      return "the entry is empty"
    case "TooLong":
      return `the entry is ${Text.count(problem.length)} characters, over the limit of ${Text.count(problem.max)}`
    case "Secret":
      return "the entry looks like a secret (a key, password or ID number), which memory never keeps"
    case "Instruction":
      return `${Instruction.describe(problem)}; a person must approve it`
  }
}
