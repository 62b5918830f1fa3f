/**
 * The Agent Memory Repo file format (docs/spec.md 1): a MEMORY.md or topic file read into its lines, its entries and its
 * index links, and the few line edits the library makes. Every line no edit touches keeps its text exactly; files
 * are read with LF, CRLF or CR line ends and rendered with LF and one trailing newline. Lines are scanned by hand
 * (no backtracking pattern), so parsing is linear in the size of the file.
 */
import * as EntryText from "./Entry.ts"
import * as Text from "./Text.ts"
import * as Topic from "./Topic.ts"

/** An entry: a bullet line outside the index section, with non-empty text. */
export interface Entry {
  /** The 0-based index of its line. */
  readonly line: number
  /** Its cleaned text, without metadata. */
  readonly text: string
  readonly meta: EntryText.Metadata
}

/** An index link: a `- [[topic]]` line inside the `## Index` section. */
export interface Link {
  readonly line: number
  readonly topic: string
}

/** A file read: its lines (without line ends), entries and index links. */
export interface Parsed {
  readonly lines: ReadonlyArray<string>
  readonly entries: ReadonlyArray<Entry>
  readonly links: ReadonlyArray<Link>
}

const isBlank = (line: string | undefined): boolean => line === undefined || line.trim() === ""

/** The level (1–6) and title of an ATX heading line (up to three spaces, `#`s, then white space or nothing). */
const heading = (line: string): { readonly level: number; readonly title: string } | undefined => {
  let start = 0
  while (start < 3 && line[start] === " ") start++
  let level = 0
  while (line[start + level] === "#") level++
  const after = line[start + level]
  if (level < 1 || level > 6 || (after !== undefined && after !== " " && after !== "\t")) return undefined
  return { level, title: line.slice(start + level).trim() }
}

/** Whether `line` is the heading `## Index` (any case, optionally closed by `#`s). */
const isIndex = (line: string): boolean => {
  const found = heading(line)
  if (found?.level !== 2) return false
  const title = found.title.toLowerCase()
  if (title === "index") return true
  const rest = title.slice(5)
  return title.startsWith("index") && rest.trimStart() !== rest && /^#+$/u.test(rest.trim())
}

const isBulletMark = (c: number): boolean => c === 45 || c === 42 // "-", "*"

/** The body of a bullet line (`-` or `*`, then white space or nothing, after any indentation). */
const bullet = (line: string): string | undefined => {
  let at = 0
  while (line.charCodeAt(at) === 32 || line.charCodeAt(at) === 9) at++
  if (!isBulletMark(line.charCodeAt(at))) {
    const c = line.charCodeAt(at)
    if (!(c < 32 || c >= 0xa0)) return undefined // neither a bullet nor other white space
    at = line.length - line.trimStart().length
    if (!isBulletMark(line.charCodeAt(at))) return undefined
  }
  const next = line.charCodeAt(at + 1)
  return at + 1 === line.length || next === 32 || next === 9 ? line.slice(at + 1) : undefined
}

/** The topic name a link body gives, as written: `[[name]]` at its start. */
const linkName = (body: string): string | undefined => {
  const text = body.trim()
  if (!text.startsWith("[[")) return undefined
  const end = text.indexOf("]]", 2)
  return end < 0 ? undefined : text.slice(2, end)
}

/**
 * The topic a link body names, cleaned. Cleaning checks a name for secrets, so the names cleaned are kept in `cleaned`,
 * which its caller holds while it reads one file (an index may link one name often).
 */
const linkTopic = (
  body: string,
  cleaned: Map<string, string | undefined>,
  cleanTopic: Topic.Cleaner
): string | undefined => {
  const name = linkName(body)
  if (name === undefined) return undefined
  if (cleaned.has(name)) return cleaned.get(name)
  const topic = cleanTopic(name)
  cleaned.set(name, topic)
  return topic
}

/**
 * A `Topic.clean` that knows the names `parsed`'s index links as they were cleaned then, for parsing a new text of the
 * same file (which links mostly the same names), so they are not checked for secrets again.
 */
export const cleanerOf = (parsed: Parsed): Topic.Cleaner => {
  const known = new Map<string, string>()
  for (const link of parsed.links) {
    const body = bullet(parsed.lines[link.line] ?? "")
    const name = body === undefined ? undefined : linkName(body)
    if (name !== undefined) known.set(name, link.topic)
  }
  return known.size === 0 ? Topic.clean : (name) => known.get(name) ?? Topic.clean(name)
}

/** Reads a file's content; "" (a missing file) reads as no lines. Leading byte order marks are dropped. The index's
 * topic names are cleaned by `cleanTopic` (a reader that parses often passes its `Topic.cleaner`). */
export const parse = (content: string, cleanTopic: Topic.Cleaner = Topic.clean): Parsed => {
  const text = content.replace(/^\uFEFF+/u, "")
  if (text === "") return { lines: [], entries: [], links: [] }
  const lines = text.includes("\r") ? text.split(/\r\n|\r|\n/u) : text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  const entries: Array<Entry> = []
  const links: Array<Link> = []
  const cleaned = new Map<string, string | undefined>()
  let inIndex = false
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    const first = line.charCodeAt(0)
    // Only a line starting with "#" or a space can be a heading.
    if ((first === 35 || first === 32) && heading(line) !== undefined) {
      inIndex = isIndex(line)
      continue
    }
    const body = bullet(line)
    if (body === undefined) continue
    if (inIndex) {
      const topic = linkTopic(body, cleaned, cleanTopic)
      if (topic !== undefined) links.push({ line: index, topic })
    } else {
      const { text, meta } = EntryText.split(body)
      if (text !== "") entries.push({ line: index, text, meta })
    }
  }
  return { lines, entries, links }
}

/** The file's content: lines joined with LF, trailing blank lines dropped, one trailing newline ("" when empty). */
export const render = (lines: ReadonlyArray<string>): string => {
  let end = lines.length
  while (end > 0 && isBlank(lines[end - 1])) end--
  return end === 0 ? "" : (end === lines.length ? lines : lines.slice(0, end)).join("\n") + "\n"
}

/** A new MEMORY.md. */
export const newMemory = "# Memory\n\n## Index\n"

/** A new topic file. */
export const newTopic = (topic: string): string => `# ${topic}\n`

/** The line of the first `## Index` heading, if any. */
const indexAt = (lines: ReadonlyArray<string>): number | undefined => {
  const at = lines.findIndex(isIndex)
  return at < 0 ? undefined : at
}

/** Whether the last section of a file is an index section. */
const endsInIndex = (lines: ReadonlyArray<string>): boolean => {
  const last = lines.findLastIndex((line) => heading(line) !== undefined)
  return last >= 0 && isIndex(lines[last] ?? "")
}

/** The index of the last non-blank line before `end` and after `floor`, or `floor`. */
const lastFilled = (lines: ReadonlyArray<string>, end: number, floor: number): number => {
  let at = end - 1
  while (at > floor && isBlank(lines[at])) at--
  return at
}

const insertAt = (lines: ReadonlyArray<string>, at: number, added: ReadonlyArray<string>): ReadonlyArray<string> =>
  lines.toSpliced(at, 0, ...added)

/**
 * The lines with an entry line added after the last non-blank line above the first `## Index` (a memory file; the
 * whole file when it has no index) or at the end of a topic file (placed as in a memory file when a topic ends in an
 * index section, so the entry stays an entry); a blank line comes first when the line above is a heading.
 */
export const insertEntry = (parsed: Parsed, line: string, kind: "memory" | "topic"): ReadonlyArray<string> => {
  const { lines } = parsed
  const end = kind === "topic" && !endsInIndex(lines) ? lines.length : (indexAt(lines) ?? lines.length)
  const last = lastFilled(lines, end, -1)
  const afterHeading = heading(lines[last] ?? "") !== undefined
  return insertAt(lines, last + 1, afterHeading ? ["", line] : [line])
}

/** The lines with line `index` replaced by `line`. */
export const replaceLine = (lines: ReadonlyArray<string>, index: number, line: string): ReadonlyArray<string> =>
  lines.map((old, at) => (at === index ? line : old))

const isHeading = (line: string | undefined): boolean => line !== undefined && heading(line) !== undefined

/**
 * The lines without line `index` (an entry line), and without the blank line above it where that blank would be left
 * standing for nothing: before another blank line or the end of the file, or between a heading and the next heading
 * (the blank `insertEntry` puts after a heading). So removing the entries added to a file gives back the file, byte
 * for byte, and blank lines never pile up; every other blank line stays.
 */
export const removeLine = (lines: ReadonlyArray<string>, index: number): ReadonlyArray<string> => {
  const after = lines[index + 1]
  const dropsBlank =
    index > 0 && isBlank(lines[index - 1]) && (isBlank(after) || (isHeading(lines[index - 2]) && isHeading(after)))
  return lines.filter((_, at) => at !== index && !(dropsBlank && at === index - 1))
}

/**
 * The lines with `- [[topic]]` (a cleaned topic name) at the end of the first `## Index` section; the section is
 * added at the end of the file when there is none. Unchanged when the topic is already linked.
 */
export const addLink = (parsed: Parsed, topic: string): ReadonlyArray<string> => {
  const { lines } = parsed
  if (parsed.links.some((link) => link.topic === topic)) return lines
  const link = `- [[${topic}]]`
  const at = indexAt(lines)
  if (at === undefined) {
    const kept = lines.slice(0, lastFilled(lines, lines.length, -1) + 1)
    return [...kept, ...(kept.length > 0 ? [""] : []), "## Index", link]
  }
  let end = at + 1
  while (end < lines.length && heading(lines[end] ?? "") === undefined) end++
  return insertAt(lines, lastFilled(lines, end, at) + 1, [link])
}

/** The lines without any index link to `topic`. */
export const removeLink = (parsed: Parsed, topic: string): ReadonlyArray<string> => {
  const gone = new Set(parsed.links.filter((link) => link.topic === topic).map((link) => link.line))
  return parsed.lines.filter((_, at) => !gone.has(at))
}

/** Whether a file holds nothing but headings and blank lines. */
export const isEmptyTopic = (parsed: Parsed): boolean =>
  parsed.lines.every((line) => isBlank(line) || heading(line) !== undefined)

/**
 * What is read of a file past its size: its lines up to its first entries whose texts fit in a budget, every index
 * link (with its line in the whole file), how many entries were left out, and the file's size in characters.
 */
export interface Head extends Parsed {
  /** The entries after those kept: the first that did not fit, and every one after it. */
  readonly omitted: number
  /** The size of the whole text in characters (code points), leading byte order marks included. */
  readonly size: number
}

/** A reader of a file's text in pieces: `push` each piece in order, then `end`. */
export interface HeadReader {
  readonly push: (piece: string) => void
  readonly end: () => Head
}

/**
 * Reads a file's text given in pieces (in order, never splitting a surrogate pair, as a streaming decoder gives them)
 * keeping only its head: `end` gives what `parse` gives of the whole text, its entries cut after the first ones whose
 * texts fit in `budget` characters and its lines cut before the first entry left out, with every link, the count of
 * the entries left out and the text's size. So a file far past its size is read in memory that does not grow with it
 * (a line is held whole until it ends). Never write a file from its head: a change needs the file `parse`d whole.
 */
export const headReader = (budget: number): HeadReader => {
  const lines: Array<string> = []
  const entries: Array<Entry> = []
  const links: Array<Link> = []
  const cleaned = new Map<string, string | undefined>()
  let size = 0
  let used = 0
  let omitted = 0
  let index = 0
  let inIndex = false
  let atStart = true
  let carry = ""
  let afterCR = false

  const line = (text: string) => {
    const at = index++
    const first = text.charCodeAt(0)
    if ((first === 35 || first === 32) && heading(text) !== undefined) {
      inIndex = isIndex(text)
      if (omitted === 0) lines.push(text)
      return
    }
    const body = bullet(text)
    if (body !== undefined && inIndex) {
      const topic = linkTopic(body, cleaned, Topic.clean)
      if (topic !== undefined) links.push({ line: at, topic })
    } else if (body !== undefined) {
      const { text: cleaned, meta } = EntryText.split(body)
      if (cleaned !== "") {
        if (omitted === 0 && used + Text.length(cleaned) <= budget) {
          used += Text.length(cleaned)
          entries.push({ line: at, text: cleaned, meta })
        } else omitted++
      }
    }
    if (omitted === 0) lines.push(text)
  }

  const push = (piece: string) => {
    size += Text.length(piece)
    if (piece === "") return
    let text = piece
    if (atStart) {
      text = text.replace(/^\uFEFF+/u, "")
      if (text === "") return
      atStart = false
    }
    let from = afterCR && text.charCodeAt(0) === 10 ? 1 : 0
    afterCR = false
    let cr = text.indexOf("\r", from)
    let lf = text.indexOf("\n", from)
    while (cr >= 0 || lf >= 0) {
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf)
      line(carry + text.slice(from, end))
      carry = ""
      from = end + 1
      if (end === cr) {
        if (from === text.length) afterCR = true
        else if (text.charCodeAt(from) === 10) from++
      }
      if (cr >= 0 && cr < from) cr = text.indexOf("\r", from)
      if (lf >= 0 && lf < from) lf = text.indexOf("\n", from)
    }
    carry += text.slice(from)
  }

  const end = (): Head => {
    if (carry !== "") line(carry)
    carry = ""
    return { lines, entries, links, omitted, size }
  }

  return { push, end }
}
