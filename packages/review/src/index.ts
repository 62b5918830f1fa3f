/**
 * @mneme/review — mneme's services: the memory store, the review state, the host ports and the memory review.
 */
export * as Agents from "./Agents.ts"
export * as Cursors from "./Cursors.ts"
export * as MemoryReview from "./MemoryReview.ts"
export * as MemoryStore from "./MemoryStore.ts"
export * as ReviewModel from "./ReviewModel.ts"
export * as Transcript from "./Transcript.ts"
