/**
 * The host's side of `createMemory`: its agents and its own transcript as mneme's ports, the lines it hands over as
 * they are checked, and what a check found wrong, in words.
 */
import { type Lines, TranscriptError } from "@mneme/core"
import { Agents, Transcript } from "@mneme/review"
import { Effect, Layer, Result, Schema, SchemaIssue, Stream } from "effect"

/** An agent of the host. */
export interface AgentOptions {
  /** Its name in the review's prompt (its id by default). */
  readonly name?: string | undefined
  readonly role?: string | undefined
  /** Whether it may write team memory (by default, yes). */
  readonly mayWriteTeam?: boolean | undefined
}

/** A line of a conversation, as the host hands it over: who said it and what (see `Lines.Line`). */
export interface Line {
  readonly who: "user" | "agent" | "other"
  readonly text: string
  /** The speaker's name: needed for `other`. */
  readonly name?: string | undefined
  /** A line that is not words someone said: a tool call, a tool result, or text quoting the memory section. */
  readonly kind?: "tool-call" | "tool-result" | "memory" | undefined
}

/** A line of the host's own transcript: a `Line` with its `seq`, a whole number that grows from line to line. */
export interface NumberedLine extends Line {
  readonly seq: number
}

/** The host's own transcript, read instead of the conversation logs kept under the memory folder. */
export interface TranscriptReader {
  /** A conversation's lines, oldest first. */
  readonly lines: (conversationId: string) => Promise<ReadonlyArray<NumberedLine>> | ReadonlyArray<NumberedLine>
  /** The agent whose conversation it is. */
  readonly agentOf: (conversationId: string) => Promise<string> | string
}

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** What a schema found wrong with a value from the host, in words. */
export const problemOf = (error: Schema.SchemaError): string => {
  const issue = formatIssue(error.issue).issues[0]
  const path = (issue?.path ?? []).map(String).join(".")
  return `${path === "" ? "" : `"${path}": `}${issue?.message ?? "it does not read"}`
}

/** A line the host hands over. */
const NewLine = Schema.Struct({
  who: Schema.Literals(["user", "agent", "other"]),
  text: Schema.String,
  name: Schema.optionalKey(Schema.String),
  kind: Schema.optionalKey(Schema.Literals(["tool-call", "tool-result", "memory"]))
})

export const decodeNewLine = Schema.decodeUnknownResult(NewLine)

/** A line of the host's own transcript. */
const NumberedLines = Schema.Array(Schema.Struct({ seq: Schema.Int, ...NewLine.fields }))

const decodeNumbered = Schema.decodeUnknownResult(NumberedLines)

/** The host's agents as mneme's port. */
export const agentsPort = (agents: Readonly<Record<string, AgentOptions>> | undefined) =>
  Layer.succeed(
    Agents.Agents,
    Agents.Agents.of({
      get: (id) => {
        if (agents === undefined) return Effect.succeed({ id, name: id, mayWriteTeam: true })
        const agent = Object.hasOwn(agents, id) ? agents[id] : undefined
        return Effect.succeed(
          agent === undefined
            ? undefined
            : {
                id,
                name: agent.name ?? id,
                ...(agent.role === undefined ? {} : { role: agent.role }),
                mayWriteTeam: agent.mayWriteTeam ?? true
              }
        )
      }
    })
  )

/** The host's own transcript as mneme's port: each read asks the host, and checks what it gives. */
export const readerPort = (reader: TranscriptReader) => {
  const ask = <A>(conversationId: string, what: string, call: () => Promise<A> | A) =>
    Effect.tryPromise({
      try: async () => call(),
      catch: (error) =>
        new TranscriptError({
          reason: `the host's transcript could not give ${what} of conversation ${JSON.stringify(conversationId)}: ${
            error instanceof Error ? error.message : String(error)
          }`
        })
    })
  const linesOf = (conversationId: string) =>
    Effect.flatMap(
      ask(conversationId, "the lines", () => reader.lines(conversationId)),
      (given) =>
        Result.match(decodeNumbered(given), {
          onFailure: (error) =>
            Effect.fail(
              new TranscriptError({
                reason: `the host's transcript of conversation ${JSON.stringify(conversationId)} has a line that is not one: ${problemOf(error)}`
              })
            ),
          onSuccess: (lines) => Effect.succeed(lines as ReadonlyArray<Lines.Line>)
        })
    )
  return Layer.succeed(
    Transcript.Transcript,
    Transcript.make({
      newestFirst: (conversationId) =>
        Stream.unwrap(Effect.map(linesOf(conversationId), (lines) => Stream.fromIterable(lines.toReversed()))),
      agentOf: (conversationId) =>
        Effect.flatMap(
          ask(conversationId, "the agent", () => reader.agentOf(conversationId)),
          (agent) =>
            typeof agent === "string" && agent !== ""
              ? Effect.succeed(agent)
              : Effect.fail(
                  new TranscriptError({
                    reason: `the host's transcript gives no agent of conversation ${JSON.stringify(conversationId)}`
                  })
                )
        ),
      anchor: (conversationId, seq) => Effect.succeed(Transcript.defaultAnchor(conversationId, seq))
    })
  )
}
