/**
 * @mneme/node — mneme on Node: a transcript file as the host ports, a replay model, an OpenAI-compatible model
 * provider, the MCP server's registrations and conversation logs, and the `mneme` CLI.
 */
export * as ConversationLog from "./ConversationLog.ts"
export * as FileTranscript from "./FileTranscript.ts"
export * as MemoryMcp from "./MemoryMcp.ts"
export * as NodePlatform from "./NodePlatform.ts"
export * as OpenAiCompat from "./OpenAiCompat.ts"
export * as ReplayModel from "./ReplayModel.ts"
export * as Cli from "./Cli.ts"
