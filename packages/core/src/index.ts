/**
 * @mneme/core — the pure core of mneme: the memory format, vetting, secrets, transcript lines, the review's prompt,
 * the model's answer, searching memory and the memory section of an agent's prompt. No file, clock or network is
 * touched here.
 */
export * as Answer from "./Answer.ts"
export * as Backoff from "./Backoff.ts"
export * as Consolidation from "./Consolidation.ts"
export * as Entry from "./Entry.ts"
export * as Errors from "./Errors.ts"
export * from "./Errors.ts"
export * as Instruction from "./Instruction.ts"
export * as Lines from "./Lines.ts"
export * as Match from "./Match.ts"
export * as MemoryConfig from "./MemoryConfig.ts"
export * as MemoryEdit from "./MemoryEdit.ts"
export * as MemoryFile from "./MemoryFile.ts"
export * as MemoryScope from "./MemoryScope.ts"
export * as MemorySection from "./MemorySection.ts"
export * as Prompt from "./Prompt.ts"
export * as Recall from "./Recall.ts"
export * as Secret from "./Secret.ts"
export * as Selection from "./Selection.ts"
export * as Text from "./Text.ts"
export * as Topic from "./Topic.ts"
export * as Vet from "./Vet.ts"
