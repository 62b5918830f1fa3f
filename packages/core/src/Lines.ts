/**
 * Transcript lines as a review reads them (docs/spec.md 4.2): each line cut to its limit with its secrets masked, labelled by
 * who said it, and the new lines fitted into one review's budget, oldest first.
 */
import { Schema } from "effect"
import type { Settings } from "./MemoryConfig.ts"
import * as Secret from "./Secret.ts"
import * as Text from "./Text.ts"

/**
 * What a line is when it is not words someone said: a tool call or a tool result (the agent's memory tools, or any
 * other tool), or text that quotes the memory section of the agent's prompt. Such a line is never new words to keep:
 * a review shows it as context at most, so memory never learns from its own output.
 */
export const Kind = Schema.Literals(["tool-call", "tool-result", "memory"])

/** What a line is when it is not words someone said. */
export type Kind = typeof Kind.Type

/** One line of a conversation, as the host's transcript gives it: `seq` grows from line to line. */
export const Line = Schema.Struct({
  seq: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  who: Schema.Literals(["user", "agent", "other"]),
  /** The speaker's name: for `other`; for a person in a group (`user`); in a group log, the agent's id (`agent`). */
  name: Schema.optionalKey(Schema.String),
  text: Schema.String,
  /** Set on a tool call, a tool result or quoted memory; absent on words someone said. */
  kind: Schema.optionalKey(Kind)
})

/** One line of a conversation. */
export type Line = typeof Line.Type

/** Whether a line is words someone said: not a tool call, a tool result or quoted memory. */
export const isSaid = (line: Line): boolean => line.kind === undefined

/** Whether a line is the user's own words: said by the user, and not a tool result or quoted memory. */
export const isUserWords = (line: Line): boolean => line.who === "user" && line.kind === undefined

/** How a prompt names a line's kind. */
const kindLabels: Readonly<Record<Kind, string>> = {
  "tool-call": "tool call",
  "tool-result": "tool result",
  memory: "memory section"
}

/** Put where the middle of a long user line was cut. */
export const middleMarker = " […] "

/** Put at the end of any other line that was cut. */
export const endMarker = " […]"

/** What cutting a line reads of the settings: the limits, and the host's own secret test when it has one. */
export type CutSettings = Pick<Settings, "userLineMax" | "otherLineMax"> & { readonly isSecret?: Settings["isSecret"] }

/** A text whose secrets `Secret` found masked, masked whole if the host's own test still finds it secret. */
const maskWith = (masked: string, settings: Pick<CutSettings, "isSecret">): string =>
  settings.isSecret?.(masked) === true ? Secret.mask : Text.wellFormed(masked)

/**
 * Any text for the model (a line, an entry): its secrets masked (by `redact`: a caller that masks the same texts often
 * passes its `Secret.redactor`) and made well formed. The host's own secret test can only say yes or no, so a text it
 * still finds secret once masked is masked whole.
 */
export const mask = (
  text: string,
  settings: Pick<CutSettings, "isSecret">,
  redact: Secret.Redactor = Secret.redact
): string => maskWith(redact(text), settings)

/**
 * The line's text for the prompt: masked (see `mask`), then cut per docs/spec.md 4.2, never splitting a surrogate pair. A
 * tool result or quoted memory is cut as any other line, even where the host gives it as the user's.
 */
export const cut = (line: Line, settings: CutSettings): string => {
  // A line is masked about once (as a review reads it): not remembered, as entries are (see `Secret.redactOnce`).
  const text = maskWith(Secret.redactOnce(line.text), settings)
  const user = isUserWords(line)
  const max = user ? settings.userLineMax : settings.otherLineMax
  const size = Text.length(text)
  if (size <= max) return text
  const marker = user ? middleMarker : endMarker
  const room = max - Text.length(marker)
  if (room <= 0) return Text.take(text, max)
  if (!user) return Text.take(text, room) + marker
  const head = Math.ceil((room * 2) / 3)
  return Text.take(text, head) + marker + Text.takeLast(text, room - head)
}

/** A speaker's name as a label shows it: control characters as spaces, folded, at most 80 characters. */
const speaker = (name: string): string => Text.take(Text.fold(name.replace(/\p{Cc}/gu, " ")), 80)

/**
 * Who said a line, as the prompt shows it: `user`, or `user "<name>"` for a person named in a group, `agent "<name>"`
 * / `other "<name>"` with the name quoted; then the line's kind when it has one (`agent "Ada" (tool call)`).
 */
export const label = (line: Line, agentName: string): string => {
  const kind = line.kind === undefined ? "" : ` (${kindLabels[line.kind]})`
  const name = speaker(line.who === "agent" ? agentName : (line.name ?? ""))
  return (name === "" ? line.who : `${line.who} ${JSON.stringify(name)}`) + kind
}

/**
 * A group conversation's line as one member agent's review sees it (docs/spec.md 4.7): in a group log an agent's line names the
 * agent by id (`who: "agent", name: <agentId>`); the member's own lines become its `agent` lines, another member's
 * become `other` lines with that agent's name (`nameOf`), and the people's and anyone else's stay as they are. A line
 * given as a person's whose name is a member agent's (`memberNamed`: its id, by id or name; a chat format gives
 * another agent's message so) is that member's line too: another member's words are never the user's.
 */
export const asSeenBy = (
  line: Line,
  member: string,
  nameOf: (agentId: string) => string,
  memberNamed: (name: string) => string | undefined = () => undefined
): Line => {
  const named = line.who === "user" && line.name !== undefined ? memberNamed(line.name) : undefined
  if (line.who !== "agent" && named === undefined) return line
  const { name, ...rest } = line
  const agentId = named ?? name
  if (agentId === member) return { ...rest, who: "agent" }
  return agentId === undefined ? { ...rest, who: "other" } : { ...rest, who: "other", name: nameOf(agentId) }
}

/** The member agent a speaker's name names, among `members` (id to name): by id or by name, case and blanks folded. */
const memberNamed =
  (members: ReadonlyMap<string, string>) =>
  (name: string): string | undefined => {
    const key = speaker(name).toLowerCase()
    if (key === "") return undefined
    for (const [id, shown] of members) {
      if (speaker(id).toLowerCase() === key || speaker(shown).toLowerCase() === key) return id
    }
    return undefined
  }

/**
 * Each line of a group as the member `member` sees it (`asSeenBy`), `names` giving every member agent's name by id
 * (the member's own too): a person's line that names one of them is that member's.
 */
export const seenBy = (member: string, names: ReadonlyMap<string, string>) => {
  const named = memberNamed(names)
  const nameOf = (id: string) => names.get(id) ?? id
  return (line: Line): Line => asSeenBy(line, member, nameOf, named)
}

/** The people who speak in `lines` (the names of user lines, as labels show them), in order of first appearance. */
export const people = (lines: ReadonlyArray<Line>): ReadonlyArray<string> =>
  [
    ...new Set(lines.flatMap((line) => (line.who === "user" && line.name !== undefined ? [speaker(line.name)] : [])))
  ].filter((name) => name !== "")

/**
 * Where one review's new lines end, by their sizes alone: from `start`, as many of the lines before `end` as fit in
 * `budget` characters (`sizeAt(i)`: line `i`'s cut text), the first always, however long. The rule of `fit`, for a
 * caller that holds the sizes of the lines rather than the lines.
 */
export const fitEnd = (sizeAt: (index: number) => number, start: number, end: number, budget: number): number => {
  let used = 0
  let next = start
  while (next < end) {
    const size = sizeAt(next)
    if (next > start && used + size > budget) break
    used += size
    next++
  }
  return next
}

/**
 * The new lines one review reads (`lines` oldest first): as many as fit in `newLinesBudget` characters of cut text,
 * the first always, however long. `rest` is left for the next review.
 */
export const fit = (
  lines: ReadonlyArray<Line>,
  settings: CutSettings & Pick<Settings, "newLinesBudget">
): { readonly taken: ReadonlyArray<Line>; readonly rest: ReadonlyArray<Line> } => {
  const count = fitEnd((index) => Text.length(cut(lines[index]!, settings)), 0, lines.length, settings.newLinesBudget)
  return { taken: lines.slice(0, count), rest: lines.slice(count) }
}
