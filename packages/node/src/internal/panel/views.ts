/**
 * The panel's pages, as pure functions from what the server read to HTML: the agents overview, an agent's memory
 * (its files with their sizes against the limits, each entry with its source and date and its edit and remove
 * controls, notes by hand as they are, a form to add an entry beside each file's entries), its last review and
 * conversations, the ask or change box with its preview, and the journal with undo. Every text from memory, a person
 * or a model goes in through `markup`, escaped.
 */

export type {
  AgentPage,
  AskView,
  ConversationView,
  FileView,
  JournalRow,
  JournalUndo,
  ModelState,
  Notice,
  Overview,
  Page,
  Row,
  ScopeView
} from "./viewModels.ts"
export { bar, layout, level, when } from "./viewParts.ts"
export { overview } from "./overviewView.ts"
export { agentPage } from "./agentView.ts"
export { journalPage, refused, unauthorized } from "./journalView.ts"
