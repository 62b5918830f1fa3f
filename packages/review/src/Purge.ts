/**
 * Forgetting that erases (SPEC's "forgetting erases"), the pure part: which entries a purge of a conversation takes,
 * which journal lines hold a purged text (and the earlier versions of it an edit replaced), and the review state with
 * every text that holds one taken out. The store removes the entries and journals one `purge` line with no text; each
 * backend rewrites its journal with the lines picked here erased.
 */
import { Entry, type MemoryFile, Text } from "@mneme/core"
import type { JournalLine, ReviewStateDocument } from "./MemoryRoot.ts"

/** What a review state's text that held a purged text reads afterwards. */
export const erasedText = "(purged)"

/** Whether `text` is a line's number: one or more digits, nothing else. */
const isNumber = (text: string): boolean => {
  if (text === "") return false
  for (const char of text) if (char < "0" || char > "9") return false
  return true
}

/**
 * The conversations an entry's `source` cites: each part of it (`<conversation> #<seq>`, parts joined by ", "), by
 * its conversation; `undefined` when it cites none or a part names no line.
 */
export const conversationsOf = (source: string | undefined): ReadonlyArray<string> | undefined => {
  if (source === undefined) return undefined
  const parts = source.split(", ").map((part) => {
    const at = part.lastIndexOf(" #")
    return at <= 0 || !isNumber(part.slice(at + 2)) ? undefined : part.slice(0, at)
  })
  return parts.length === 0 || parts.includes(undefined) ? undefined : (parts as ReadonlyArray<string>)
}

/** Whether every source the entry cites lies in the conversation `conversation` (an entry citing none does not). */
export const fromConversation = (entry: MemoryFile.Entry, conversation: string): boolean => {
  const conversations = conversationsOf(Entry.metaValue(entry.meta, "source"))
  return conversations !== undefined && conversations.every((name) => name === conversation)
}

/** Whether `text` holds one of `texts` (as written, or with its white space folded). */
const holds = (text: string | undefined, texts: ReadonlySet<string>): boolean => {
  if (text === undefined) return false
  const folded = Text.fold(text)
  for (const wanted of texts) if (text.includes(wanted) || folded.includes(wanted)) return true
  return false
}

/**
 * The journal lines (by index, oldest first) a purge of `texts` erases: every line whose `before` or `after` holds one
 * of them; where such a line is an edit, the text it replaced is purged too (it is the same fact, earlier), so the
 * lines that hold that are erased as well.
 */
export const erasing = (
  lines: ReadonlyArray<Pick<JournalLine, "before" | "after">>,
  texts: ReadonlyArray<string>
): ReadonlySet<number> => {
  const wanted = new Set(texts.filter((text) => text !== ""))
  const picked = new Set<number>()
  for (let grew = wanted.size > 0; grew;) {
    grew = false
    lines.forEach((line, index) => {
      if (picked.has(index) || !(holds(line.before, wanted) || holds(line.after, wanted))) return
      picked.add(index)
      for (const side of [line.before, line.after]) {
        const text = side === undefined ? "" : Entry.clean(side)
        if (text !== "" && !text.startsWith("[[") && !wanted.has(text)) {
          wanted.add(text)
          grew = true
        }
      }
    })
  }
  return picked
}

/** A journal line with its texts erased: no `before`, no `after`, marked `purged`. */
export const erased = (line: JournalLine): JournalLine => {
  const { after: _after, before: _before, ...rest } = line
  return { ...rest, purged: true }
}

/** Whether a damaged journal line (its raw text) holds one of `texts`, as written or as JSON writes it. */
export const rawHolds = (raw: string, texts: ReadonlyArray<string>): boolean =>
  texts.some((text) => text !== "" && (raw.includes(text) || raw.includes(JSON.stringify(text).slice(1, -1))))

/** The review state with every text that holds one of `texts` (a last review's reason) read as `erasedText`. */
export const eraseState = (state: ReviewStateDocument, texts: ReadonlyArray<string>): ReviewStateDocument => {
  const wanted = new Set(texts.filter((text) => text !== ""))
  let changed = false
  const lastReviews = Object.fromEntries(
    Object.entries(state.lastReviews).map(([key, review]) => {
      if (!holds(review.reason ?? undefined, wanted)) return [key, review]
      changed = true
      return [key, { ...review, reason: erasedText }]
    })
  )
  return changed ? { ...state, lastReviews } : state
}
