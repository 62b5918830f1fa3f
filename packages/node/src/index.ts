/**
 * @mneme/node — mneme on Node: a transcript file as the host ports, a replay model, an OpenAI-compatible model
 * provider, and the `mneme` CLI.
 */
export * as FileTranscript from "./FileTranscript.ts"
export * as NodePlatform from "./NodePlatform.ts"
export * as OpenAiCompat from "./OpenAiCompat.ts"
export * as ReplayModel from "./ReplayModel.ts"
export * as Cli from "./Cli.ts"
