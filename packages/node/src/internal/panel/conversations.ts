/**
 * The conversations a memory root knows (the keys of its review state: a cursor or a failure record), with what the
 * panel can tell of each: its agent, its cursor, its failures and whether the failure policy stopped retrying them,
 * and the transcript file it was reviewed from, where one of the panel's `--transcripts` folder is that conversation
 * as `mneme review` names it (its base name and a hash of the agent and its path). Only such a conversation can be
 * reviewed from the panel; a host's own conversations are reviewed by the host.
 */
import { Backoff } from "@mneme/core"
import { MemoryReview, type MemoryRoot } from "@mneme/review"
import { Effect, FileSystem, Path } from "effect"
import * as FileTranscript from "../../FileTranscript.ts"

/** A transcript file the panel may review, and the conversation id it is for each agent of the root. */
export interface TranscriptFile {
  /** Its absolute path. */
  readonly file: string
  /** Its base name without `.jsonl`, as entries cite it. */
  readonly label: string
  /** The conversation it stands for, per agent id. */
  readonly ids: ReadonlyMap<string, string>
}

/** A conversation of the review state. */
export interface Known {
  /** Its key in the review state: `chat:<id>`, or `group:<id>:<agent>` for a member of a group. */
  readonly key: string
  readonly conversationId: string
  /** The agent the conversation is reviewed for, where the panel can tell. */
  readonly agentId: string | undefined
  /** The `seq` of the last line reviewed. */
  readonly cursor: number | undefined
  readonly failure: Backoff.FailureRecord | undefined
  /** The transcript file it was reviewed from, where the panel has it: then it can be reviewed now. */
  readonly transcript: TranscriptFile | undefined
}

/** The JSONL files of `dir` (not its sub-folders), each with the conversation id it is for each of `agentIds`. */
export const transcriptsIn = Effect.fnUntraced(function* (
  dir: string,
  agentIds: ReadonlyArray<string>,
  sha256: (text: string) => string
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const names = yield* fs.readDirectory(dir)
  const files: Array<TranscriptFile> = []
  for (const name of names.filter((name) => name.endsWith(".jsonl")).sort()) {
    const file = path.resolve(dir, name)
    const info = yield* fs.stat(file)
    if (info.type !== "File") continue
    files.push({
      file,
      label: FileTranscript.labelOf(path, file),
      ids: new Map(agentIds.map((agentId) => [agentId, FileTranscript.conversationOf(path, file, agentId, sha256)]))
    })
  }
  return files
})

const chatPrefix = MemoryReview.cursorKey("")

/** The conversation and member a key of the review state names. */
const parseKey = (key: string): { readonly conversationId: string; readonly member: string | undefined } => {
  if (key.startsWith(chatPrefix)) return { conversationId: key.slice(chatPrefix.length), member: undefined }
  if (key.startsWith("group:")) {
    const rest = key.slice("group:".length)
    const at = rest.lastIndexOf(":")
    if (at > 0) return { conversationId: rest.slice(0, at), member: rest.slice(at + 1) }
  }
  return { conversationId: key, member: undefined }
}

/**
 * The conversations of the review state, in key order: each with its cursor and failure record, its agent (a group
 * member's from its key, a chat's from the transcript file that is it), and that file.
 */
export const known = (
  state: MemoryRoot.ReviewStateDocument,
  transcripts: ReadonlyArray<TranscriptFile>
): ReadonlyArray<Known> => {
  const byId = new Map<string, { readonly agentId: string; readonly transcript: TranscriptFile }>()
  for (const transcript of transcripts) {
    for (const [agentId, id] of transcript.ids) byId.set(id, { agentId, transcript })
  }
  const keys = [...new Set([...Object.keys(state.cursors), ...Object.keys(state.failures)])].sort()
  return keys.map((key) => {
    const { conversationId, member } = parseKey(key)
    const file = member === undefined ? byId.get(conversationId) : undefined
    return {
      key,
      conversationId,
      agentId: member ?? file?.agentId,
      cursor: Object.hasOwn(state.cursors, key) ? state.cursors[key] : undefined,
      failure: Object.hasOwn(state.failures, key) ? state.failures[key] : undefined,
      transcript: file?.transcript
    }
  })
}

/** Whether the failure policy has stopped retrying a conversation now, and after how many failures. */
export const stopped = (policy: Backoff.Policy, record: Backoff.FailureRecord | undefined, now: number) =>
  Effect.map(Backoff.decide(policy, record, now), (decision) =>
    decision._tag === "Stop" ? { failures: decision.failures, until: decision.until } : undefined
  )
