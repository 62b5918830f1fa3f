/**
 * What the panel's pages show, as the server reads it: a notice, an agent's files and their rows, its conversations,
 * the model, the ask box, the overview, an agent's page and the journal's rows.
 */
import type { MemoryConfig } from "@mneme/core"
import { type MemoryRoot, ReviewBudget } from "@mneme/review"
import type { Proposal } from "./ask.ts"

/** A message at the top of a page: a change done, refused, or something to know. */
export interface Notice {
  readonly kind: "ok" | "refused" | "info"
  readonly text: string
  /** The change just made, offered to be undone at once: its journal id, in an agent's own or team memory. */
  readonly undo?: { readonly agentId: string; readonly side: "own" | "team"; readonly id: string } | undefined
}

/** One line of a memory file as the page shows it. */
export type Row =
  | {
      readonly _tag: "Entry"
      /** The entry's text, secrets masked. */
      readonly text: string
      readonly meta: ReadonlyArray<readonly [string, string]>
      readonly looksSecret: boolean
      /** Why the entry reads as an instruction to the agent rather than a fact, where it does. */
      readonly instruction?: string
      /** What names the entry in a change: a digest of its real text (which the page may not show). */
      readonly digest: string
      /** The anchors of its source whose transcript line the panel can show, each with that page's address. */
      readonly links?: ReadonlyArray<{ readonly anchor: string; readonly href: string }>
    }
  | { readonly _tag: "Heading"; readonly text: string }
  | {
      readonly _tag: "Note"
      readonly text: string
      /** Why the line reads as an instruction to the agent, where it does. */
      readonly instruction?: string
    }

/** A memory file of a scope. */
export interface FileView {
  /** Its path relative to the root. */
  readonly file: string
  readonly topic: string | undefined
  readonly size: number
  readonly limit: number
  /** A digest of its text as shown, so a change can tell the file changed on disk meanwhile. */
  readonly version: string
  readonly rows: ReadonlyArray<Row>
}

/** The agent's own memory or the team's. */
export interface ScopeView {
  readonly side: "own" | "team"
  readonly files: ReadonlyArray<FileView>
  readonly topics: number
  readonly topicsMax: number
  readonly unlinked: ReadonlyArray<string>
  readonly unreadable: ReadonlyArray<{ readonly file: string; readonly reason: string }>
}

/** A conversation of the review state, as a page shows it. */
export interface ConversationView {
  readonly key: string
  /** How to name it: its transcript's name where the panel has it, else its id. */
  readonly label: string
  readonly agentId: string | undefined
  readonly cursor: number | undefined
  /** Failed reviews at its cursor, and the newest user line they saw. */
  readonly failures: number
  readonly newestUserSeq: number | undefined
  /** Whether the failure policy stopped retrying it, and until when (`undefined`: until new words or a success). */
  readonly stopped: { readonly until: number | undefined } | undefined
  /** Whether the panel has its transcript, and so can review it now. */
  readonly canReview: boolean
  /** Lines a host dropped before this conversation's (group member's) review saw them. */
  readonly dropped: ReadonlyArray<MemoryRoot.DroppedLines>
}

/** The model, or how to configure one. */
export interface ModelState {
  readonly configured: boolean
  /** What to do when none is configured. */
  readonly howTo: string
}

/** The ask or change box after an answer: what was asked, the reply, and the proposal to confirm. */
export interface AskView {
  readonly words: string
  readonly reply: string
  readonly proposal: (Proposal & { readonly id: string }) | undefined
}

/** What every page carries: its token for the changes it sends. */
export interface Page {
  readonly token: string
  readonly root: string
}

/** The agents overview. */
export interface Overview {
  readonly agents: ReadonlyArray<{
    readonly agentId: string | undefined
    readonly dir: string
    readonly size: number | undefined
    readonly topics: number | undefined
    readonly lastReview: MemoryRoot.LastReview | null
    /** What the agent's reviews spent today and in the last 7 days. */
    readonly reviews?: { readonly today: ReviewBudget.Spent; readonly week: ReviewBudget.Spent } | undefined
  }>
  /** The review budget per agent and day, if any. */
  readonly budget?: MemoryConfig.ReviewBudget | undefined
  readonly team: { readonly size: number; readonly topics: number }
  readonly limits: { readonly memory: number; readonly topics: number }
  readonly conversations: ReadonlyArray<ConversationView>
  readonly transcripts: string | undefined
}

/** An agent's page. */
export interface AgentPage {
  readonly agentId: string
  readonly scopes: ReadonlyArray<ScopeView>
  readonly lastReview: MemoryRoot.LastReview | null
  readonly conversations: ReadonlyArray<ConversationView>
  readonly transcripts: string | undefined
  readonly model: ModelState
  readonly entryMax: number
  readonly ask: AskView | undefined
  readonly summary: string | undefined
  /** What the person had typed into a form that was refused, to type again. */
  readonly draft: { readonly text: string; readonly side: "own" | "team"; readonly topic: string } | undefined
  /** The words entries are filtered by, as typed ("" for none). */
  readonly filter: string
}

/** One change of the journal. */
export interface JournalRow {
  readonly id: string | undefined
  readonly time: number
  readonly op: string
  readonly file: string
  readonly actor: string
  readonly auto: boolean
  /** The line before and after, without its list bullet (the page marks each with its own - or +), secrets masked. */
  readonly before: string | undefined
  readonly after: string | undefined
  /** Whether an undo would work now: in which scope, or why not; never for an undo, an archive, a change undone. */
  readonly undo: JournalUndo
}

/** Whether a change of the journal can be undone now. */
export type JournalUndo =
  /** An undo, an archive, a change undone already, or the second line of a change: nothing to offer. */
  | { readonly _tag: "Never" }
  /** Undo works against the files as they are: offered, in the agent's own memory or the team's. */
  | { readonly _tag: "Undoable"; readonly side: "own" | "team" }
  /** Undo would be refused by the files as they are now (changed since), and why, in words. */
  | { readonly _tag: "Blocked"; readonly reason: string }
