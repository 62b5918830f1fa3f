/**
 * A JSONL transcript file as the review's host ports: one JSON object a line, `{"seq":1,"who":"user","text":"…"}`
 * (`who` one of `user`, `agent`, `other` with a `name`), serving one conversation owned by one agent. The whole file
 * is read and checked once, so a bad line fails at once with its line number and what is wrong.
 */
import { Lines, TranscriptError } from "@mneme/core"
import { Agents, Transcript } from "@mneme/review"
import { Effect, FileSystem, Layer, Path, Result, Schema, SchemaIssue, Stream } from "effect"
import * as Jsonl from "./internal/jsonl.ts"

const LineJson = Schema.fromJsonString(Lines.Line)

const decodeLine = Schema.decodeUnknownResult(LineJson)
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** What is wrong with a JSONL line, or the line itself. */
const parseLine = (source: string, previous: Lines.Line | undefined): Result.Result<Lines.Line, string> => {
  const decoded = decodeLine(source)
  if (Result.isFailure(decoded)) {
    const issue = formatIssue(decoded.failure.issue).issues[0]
    const path = issue?.path ?? []
    const at = path.length === 0 ? "" : `"${path.map(String).join(".")}": `
    return Result.fail(`${at}${issue?.message ?? "not a transcript line"}`)
  }
  const line = decoded.success
  if (line.who === "other" && (line.name === undefined || line.name.trim() === "")) {
    return Result.fail(`an "other" line needs a "name"`)
  }
  if (previous !== undefined && line.seq <= previous.seq) {
    return Result.fail(`"seq" ${line.seq} does not follow ${previous.seq}: seq must grow from line to line`)
  }
  return Result.succeed(line)
}

/** Parses a JSONL transcript (blank lines skipped), oldest first; the first bad line fails with its number. */
export const parse = (file: string, content: string): Result.Result<ReadonlyArray<Lines.Line>, TranscriptError> =>
  Result.mapError(
    Jsonl.parse(content, parseLine),
    ({ line, error }) => new TranscriptError({ reason: `${file} line ${line}: ${error}` })
  )

/** Reads and parses a JSONL transcript file, oldest first. */
export const read = Effect.fn("FileTranscript.read")(function* (file: string) {
  const fs = yield* FileSystem.FileSystem
  const content = yield* fs
    .readFileString(file)
    .pipe(Effect.mapError((error) => new TranscriptError({ reason: `${file}: ${error.message}` })))
  return yield* Effect.fromResult(parse(file, content))
})

/** The name a transcript file goes by: its base name without the extension. */
export const labelOf = (path: Path.Path, file: string): string => path.basename(file, path.extname(file))

/**
 * The conversation id a transcript file stands for by default: its name and a short hash of the agent and the file's
 * absolute path, so two files of the same name, or one file reviewed for two agents, never share a cursor.
 */
export const conversationOf = (
  path: Path.Path,
  file: string,
  agentId: string,
  sha256: (text: string) => string
): string => `${labelOf(path, file)}-${sha256(`${agentId}\u0000${path.resolve(file)}`).slice(0, 12)}`

/** Options for {@link layer}. */
export interface Options {
  /** The transcript's lines, oldest first. */
  readonly lines: ReadonlyArray<Lines.Line>
  /** The conversation these lines are. */
  readonly conversationId: string
  /** The name an entry's source cites for the conversation (by default its id): `<label> #<seq>`. */
  readonly label?: string | undefined
  /** The agent that owns the conversation; it may write team memory. */
  readonly agentId: string
}

/** The `Transcript` and `Agents` ports over one conversation's lines and its one agent. */
export const layer = (options: Options): Layer.Layer<Transcript.Transcript | Agents.Agents> => {
  const newestFirst = [...options.lines].reverse()
  const unknown = (conversationId: string) =>
    new TranscriptError({ reason: `no conversation ${JSON.stringify(conversationId)} in this transcript file` })
  return Layer.mergeAll(
    Layer.succeed(Transcript.Transcript)({
      newestFirst: (conversationId) =>
        conversationId === options.conversationId
          ? Stream.fromIterable(newestFirst)
          : Stream.fail(unknown(conversationId)),
      agentOf: (conversationId) =>
        conversationId === options.conversationId
          ? Effect.succeed(options.agentId)
          : Effect.fail(unknown(conversationId)),
      anchor: (conversationId, seq) =>
        Effect.succeed(
          Transcript.defaultAnchor(
            conversationId === options.conversationId ? (options.label ?? conversationId) : conversationId,
            seq
          )
        )
    }),
    Layer.succeed(Agents.Agents)({
      get: (agentId) =>
        Effect.succeed(agentId === options.agentId ? { id: agentId, name: agentId, mayWriteTeam: true } : undefined)
    })
  )
}
