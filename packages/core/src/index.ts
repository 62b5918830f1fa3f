/**
 * @mneme/core — the pure core of mneme: the memory format, vetting, secrets, transcript lines, the prompt and the
 * model's answer. No file, clock or network is touched here.
 */
export * as Errors from "./Errors.ts"
export * from "./Errors.ts"
export * as MemoryConfig from "./MemoryConfig.ts"
export * as Text from "./Text.ts"
