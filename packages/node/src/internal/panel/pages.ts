/**
 * What the panel's pages show, read from the memory root as it is now: the agents with their sizes, last reviews and
 * what their reviews spent, an agent's files line by line (entries with their metadata, secrets masked; headings;
 * notes by hand as they are), the conversations of the review state, and the journal of the agent's memory with what
 * can be undone.
 */
import { Backoff, Instruction, MemoryConfig, MemoryEdit, type MemoryFile, MemoryScope, Secret } from "@mneme/core"
import { MemoryStore, type MemoryRoot, ReviewBudget, ReviewState, RootLayout } from "@mneme/review"
import { Clock, Effect, Option, Result } from "effect"
import * as SourceLines from "../sourceLines.ts"
import * as Conversations from "./conversations.ts"
import * as Transcript from "./transcript.ts"
import type * as Views from "./views.ts"

/** Where the panel finds transcripts to review, if anywhere, and the conversations they are. */
export interface Transcripts {
  readonly dir: string | undefined
  readonly files: ReadonlyArray<Conversations.TranscriptFile>
}

const headingLine = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/
const indexHeading = /^ {0,3}##[ \t]+index[ \t]*#*[ \t]*$/i

/** Why a text reads as an instruction to the agent, secrets masked, as a row's field (none where it does not). */
const instructionOf = (text: string): { readonly instruction?: string } => {
  const flag = Instruction.check(text)
  return flag === undefined ? {} : { instruction: Secret.redact(Instruction.describe(flag)) }
}

/**
 * A file's lines as the page shows them: entries (each anchor of an entry's source that `linkOf` has an address for
 * linked to its transcript line), headings and notes; blank lines, the index and its links left out.
 */
const rowsOf = (
  parsed: MemoryFile.Parsed,
  digest: (text: string) => string,
  linkOf: (anchor: SourceLines.Anchor) => string | undefined
): Array<Views.Row> => {
  const entries = new Map(parsed.entries.map((entry) => [entry.line, entry]))
  const links = new Set(parsed.links.map((link) => link.line))
  const rows: Array<Views.Row> = []
  for (const [i, line] of parsed.lines.entries()) {
    const entry = entries.get(i)
    if (entry !== undefined) {
      const looksSecret = Secret.looksSecret(entry.text)
      const meta = entry.meta.map(([key, value]) => [key, Secret.redact(value)] as const)
      const source = meta.find(([key]) => key === "source")?.[1]
      const links = SourceLines.anchorsOf(source ?? "").flatMap((anchor) => {
        const href = linkOf(anchor)
        return href === undefined ? [] : [{ anchor: anchor.anchor, href }]
      })
      rows.push({
        _tag: "Entry",
        text: looksSecret ? Secret.redact(entry.text) : entry.text,
        meta,
        looksSecret,
        ...instructionOf(entry.text),
        digest: digest(entry.text),
        ...(links.length === 0 ? {} : { links })
      })
    } else if (links.has(i) || line.trim() === "" || indexHeading.test(line)) {
      continue
    } else {
      const heading = headingLine.exec(line)
      rows.push(
        heading === null
          ? { _tag: "Note", text: Secret.redact(line), ...instructionOf(line) }
          : { _tag: "Heading", text: heading[2] ?? "" }
      )
    }
  }
  return rows
}

/** The digest that names a file's text, or an entry's, in a form. */
export const digestWith = (sha256: (text: string) => string) => (text: string) => sha256(text).slice(0, 32)

/** The digest of a file's text as read. */
export const versionOf = (file: MemoryRoot.StoredFile, digest: (text: string) => string): string =>
  digest(file.parsed.lines.join("\n"))

const scopeView = (
  stored: MemoryStore.ScopeView,
  settings: MemoryConfig.Settings,
  digest: (text: string) => string,
  linkOf: (anchor: SourceLines.Anchor) => string | undefined
): Views.ScopeView => ({
  side: MemoryScope.side(stored.scope),
  files: stored.files.map((file) => ({
    file: file.file,
    topic: file.topic,
    size: file.size,
    limit: file.topic === undefined ? settings.memoryMax : settings.topicMax,
    version: versionOf(file, digest),
    rows: rowsOf(file.parsed, digest, linkOf)
  })),
  topics: stored.files.length - 1,
  topicsMax: settings.topicsMax,
  unlinked: stored.unlinked.map((file) => file.file),
  unreadable: stored.unreadable.map((file) => ({ file: file.file, reason: file.error.message }))
})

/** The conversations of the review state as the pages show them, with whether retries stopped for each now. */
export const conversations = Effect.fnUntraced(function* (transcripts: Transcripts) {
  const settings = yield* MemoryConfig.MemoryConfig
  const state = yield* (yield* ReviewState.ReviewState).snapshot
  const now = yield* Clock.currentTimeMillis
  const policy = Backoff.policy(settings.failuresMax)
  return yield* Effect.forEach(
    Conversations.known(state, transcripts.files),
    Effect.fnUntraced(function* (known) {
      const stopped = yield* Conversations.stopped(policy, known.failure, now)
      const view: Views.ConversationView = {
        key: known.key,
        label: known.transcript?.label ?? known.conversationId,
        agentId: known.agentId,
        cursor: known.cursor,
        failures: known.failure?.times.length ?? 0,
        newestUserSeq: known.failure?.newestUserSeq,
        stopped: stopped === undefined ? undefined : { until: stopped.until },
        canReview: known.transcript !== undefined,
        dropped: Object.hasOwn(state.dropped ?? {}, known.key) ? state.dropped![known.key]! : []
      }
      return view
    })
  )
})

/** The agents overview. */
export const overview = Effect.fnUntraced(function* (transcripts: Transcripts) {
  const settings = yield* MemoryConfig.MemoryConfig
  const store = yield* MemoryStore.MemoryStore
  const state = yield* ReviewState.ReviewState
  const folders = yield* store.agents
  // An agent whose reviews kept nothing yet has no folder, but has a last review.
  const known = new Set(folders.map((agent) => agent.agentId))
  const snapshot = yield* state.snapshot
  const today = ReviewBudget.dayOf(yield* Clock.currentTimeMillis, settings.timeZone)
  const reviewed = Object.keys({ ...snapshot.lastReviews, ...snapshot.usage })
    .filter((agentId) => !known.has(agentId))
    .map((agentId): MemoryStore.AgentSummary => ({ agentId, dir: "", size: 0, topics: 0 }))
  const agents = [...folders, ...reviewed]
  const team = yield* store.load(MemoryScope.team)
  const view: Views.Overview = {
    agents: yield* Effect.forEach(agents, (agent) =>
      Effect.map(
        agent.agentId === undefined ? Effect.succeed(null) : state.lastReview(agent.agentId),
        (lastReview) => ({
          ...agent,
          lastReview,
          reviews: agent.agentId === undefined ? undefined : ReviewBudget.summary(snapshot, agent.agentId, today)
        })
      )
    ),
    budget: settings.reviewBudget,
    team: { size: team.files.find((file) => file.topic === undefined)?.size ?? 0, topics: team.files.length - 1 },
    limits: { memory: settings.memoryMax, topics: settings.topicsMax },
    conversations: yield* conversations(transcripts),
    transcripts: transcripts.dir
  }
  return view
})

/** What an agent's page adds to memory as it is: the box's answer, a summary, a refused form's text, the filter. */
export type AgentExtras = Partial<Pick<Views.AgentPage, "ask" | "summary" | "draft" | "filter">>

/** An agent's page. */
export const agent = Effect.fnUntraced(function* (
  agentId: string,
  transcripts: Transcripts,
  model: Views.ModelState,
  extras: AgentExtras = {}
) {
  const settings = yield* MemoryConfig.MemoryConfig
  const store = yield* MemoryStore.MemoryStore
  const digest = digestWith(RootLayout.hash)
  const own = yield* store.load(MemoryScope.own(agentId))
  const team = yield* store.load(MemoryScope.team)
  const all = yield* conversations(transcripts)
  // An entry's source links to its transcript line where the panel's transcripts folder has that transcript.
  const linkOf = Transcript.linkOf(new Set(transcripts.files.map((file) => file.label)), agentId)
  const view: Views.AgentPage = {
    agentId,
    scopes: [scopeView(own, settings, digest, linkOf), scopeView(team, settings, digest, linkOf)],
    lastReview: yield* (yield* ReviewState.ReviewState).lastReview(agentId),
    conversations: all.filter((conversation) => conversation.agentId === agentId),
    transcripts: transcripts.dir,
    model,
    entryMax: settings.entryMax,
    ask: extras.ask,
    summary: extras.summary,
    draft: extras.draft,
    filter: extras.filter ?? ""
  }
  return view
})

const isBlank = (line: string, at: number) => line[at] === " " || line[at] === "\t"

/**
 * A journaled line without the bullet (`-` or `*`, its indentation and the blanks after it) that makes it a Markdown
 * list item, an entry or an index link, as a diff shows it beside its own - or + mark; any other line as it is.
 */
export const withoutBullet = (line: string): string => {
  let at = 0
  while (isBlank(line, at)) at++
  if ((line[at] !== "-" && line[at] !== "*") || !(at + 1 === line.length || isBlank(line, at + 1))) return line
  at++
  while (isBlank(line, at)) at++
  return line.slice(at)
}

/** How many of the latest changes the journal page shows. */
const journalMax = 100

/**
 * The journal of an agent's own and team memory, newest first. A change that an undo may revert (not an undo, an
 * archive, or undone already) is planned against its files as they are now: it has Undo where that plan works, and
 * where it does not, why (its file no longer holds what it wrote, the entry it removed is there again, no room).
 */
export const journal = Effect.fnUntraced(function* (agentId: string) {
  const store = yield* MemoryStore.MemoryStore
  const settings = yield* MemoryConfig.MemoryConfig
  const sides = yield* Effect.forEach(["own", "team"] as const, (side) =>
    Effect.map(store.journal({ scope: side === "own" ? MemoryScope.own(agentId) : MemoryScope.team }), (lines) => ({
      side,
      lines
    }))
  )
  const rows: Array<{ readonly row: Views.JournalRow; readonly order: number }> = []
  // The change each may be undone as, by its first line's id (a change can write two files: a topic and the index).
  const candidates = new Map<
    string,
    { readonly side: "own" | "team"; readonly change: ReadonlyArray<MemoryEdit.Journaled> }
  >()
  for (const { side, lines } of sides) {
    for (const change of MemoryEdit.undoable(lines)) {
      const id = change[0]?.id
      if (id !== undefined) candidates.set(id, { side, change })
    }
    for (const line of lines) {
      const row: Views.JournalRow = {
        id: line.id,
        time: line.time,
        op: line.op,
        file: line.file,
        actor: line.actor,
        auto: line.auto === true,
        before: line.before === undefined ? undefined : Secret.redact(withoutBullet(line.before)),
        after: line.after === undefined ? undefined : Secret.redact(withoutBullet(line.after)),
        undo: { _tag: "Never" }
      }
      rows.push({ row, order: rows.length })
    }
  }
  const shown = rows
    .sort((a, b) => b.row.time - a.row.time || b.order - a.order)
    .slice(0, journalMax)
    .map(({ row }) => row)
  // Each change is planned against its scope's files as they are now.
  const now = {
    own: yield* store.load(MemoryScope.own(agentId)),
    team: yield* store.load(MemoryScope.team)
  }
  return shown.map((row): Views.JournalRow => {
    const candidate = row.id === undefined ? undefined : candidates.get(row.id)
    if (candidate === undefined) return row
    const draft = MemoryEdit.start([now[candidate.side]])
    const planned = MemoryEdit.undo(draft, candidate.change, { actor: "person" }, { settings })
    if (Result.isSuccess(planned)) return { ...row, undo: { _tag: "Undoable", side: candidate.side } }
    const failure = planned.failure
    const reason = failure._tag === "NotUndoable" ? failure.detail : failure.message
    return { ...row, undo: { _tag: "Blocked", reason: Secret.redact(reason) } }
  })
})

/** The entry of a scope's file named by its digest, and the file, as they are now. */
export const findEntry = Effect.fnUntraced(function* (
  scope: MemoryScope.MemoryScope,
  topic: string | undefined,
  digest: string
) {
  const store = yield* MemoryStore.MemoryStore
  const hash = digestWith(RootLayout.hash)
  const stored = yield* store.load(scope)
  const file = stored.files.find((file) => file.topic === topic)
  const entry = file?.parsed.entries.find((entry) => hash(entry.text) === digest)
  return {
    file: Option.fromNullishOr(file),
    entry: Option.fromNullishOr(entry),
    version: file === undefined ? undefined : versionOf(file, hash)
  }
})
