/**
 * @mneme/node — mneme on Node: the Node layers a host composes (`NodeServices`: file system, path and the rest of
 * Node's services; `NodePlatform`), a transcript file as the host ports, a replay model, an OpenAI-compatible model
 * provider, the MCP server's registrations and conversation logs, the `mneme` CLI, and `createMemory` for hosts that
 * are not written with Effect.
 */
export * as ConversationLog from "./ConversationLog.ts"
export * as FileTranscript from "./FileTranscript.ts"
export * as MemoryMcp from "./MemoryMcp.ts"
export * as NodePlatform from "./NodePlatform.ts"
export * as NodeServices from "@effect/platform-node/NodeServices"
export * as OpenAiCompat from "./OpenAiCompat.ts"
export * as ReplayModel from "./ReplayModel.ts"
export * as TranscriptFormat from "./TranscriptFormat.ts"
export * as Cli from "./Cli.ts"
export * as PromiseMemory from "./PromiseMemory.ts"
export { createMemory, type Memory, MemoryError } from "./PromiseMemory.ts"
