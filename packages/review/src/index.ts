/**
 * @mneme/review — mneme's services: the one composition (`Memory`), the memory review and its outcome, the memory
 * store, the review state, the storage port and its files backend and its reads (`RootFiles`), the platform, the host's ports, and memory in use:
 * the agent's tools, the memory section of its prompt, and recall; and where a root keeps each scope (`RootLayout`), which
 * every backend of the storage port names the same way.
 */
export * as Agents from "./Agents.ts"
export * as FileRoot from "./FileRoot.ts"
export * as Groups from "./Groups.ts"
export * as Memory from "./Memory.ts"
export * as MemoryConsolidation from "./MemoryConsolidation.ts"
export * as MemoryPending from "./MemoryPending.ts"
export * as MemoryPrompt from "./MemoryPrompt.ts"
export * as MemoryRecall from "./MemoryRecall.ts"
export * as MemoryReview from "./MemoryReview.ts"
export * as MemoryRoot from "./MemoryRoot.ts"
export * as MemoryStore from "./MemoryStore.ts"
export * as MemoryTools from "./MemoryTools.ts"
export * as Platform from "./Platform.ts"
export * as Purge from "./Purge.ts"
export * as ReviewBudget from "./ReviewBudget.ts"
export * as ReviewModel from "./ReviewModel.ts"
export * as ReviewOutcome from "./ReviewOutcome.ts"
export * as ReviewState from "./ReviewState.ts"
export * as RootFiles from "./RootFiles.ts"
export * as RootLayout from "./RootLayout.ts"
export * as StorageBackend from "./StorageBackend.ts"
export * as Transcript from "./Transcript.ts"
