/**
 * What `mneme watch` runs over: the `Transcript` port of a watched folder, serving the one file under review, and
 * the stop signals, caught while it runs.
 */
import { type Lines, TranscriptError } from "@mneme/core"
import { Transcript } from "@mneme/review"
import { Effect, Queue, Ref, Stream } from "effect"

/** The signals that stop watch. */
const stopSignals = ["SIGINT", "SIGTERM"] as const

/**
 * The stop signals, as they come, in `signals`, for as long as the scope is open: the process's own handlers of them
 * (the runtime's, which would interrupt the command at once) are set aside meanwhile and put back after.
 */
export const catchSignals = (signals: Queue.Queue<string>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      stopSignals.map((name) => {
        const before = process.listeners(name)
        process.removeAllListeners(name)
        const listener = () => Queue.offerUnsafe(signals, name)
        process.on(name, listener)
        return { name, before, listener }
      })
    ),
    (caught) =>
      Effect.sync(() => {
        for (const { name, before, listener } of caught) {
          process.removeListener(name, listener)
          for (const handler of before) process.on(name, handler as () => void)
        }
      })
  )

/** The current review's transcript: the file being reviewed, as the review's `Transcript` reads it. */
export interface Current {
  readonly conversationId: string
  readonly transcript: Transcript.Transcript["Service"]
}

/**
 * The `Transcript` port of a folder: the file under review (one at a time), as `FileTranscript.open` serves it; a
 * conversation that is not under review has no lines to give.
 */
export const folderTranscript = (
  current: Ref.Ref<Current | undefined>,
  agentId: string
): Transcript.Transcript["Service"] => {
  const notNow = (conversationId: string) =>
    new TranscriptError({ reason: `conversation ${JSON.stringify(conversationId)} is not being reviewed now` })
  const lines = (
    conversationId: string,
    read: (transcript: Transcript.Transcript["Service"]) => Stream.Stream<Lines.Line, TranscriptError>
  ) =>
    Stream.unwrap(
      Effect.map(Ref.get(current), (now) =>
        now?.conversationId === conversationId ? read(now.transcript) : Stream.fail(notNow(conversationId))
      )
    )
  return Transcript.make({
    newestFirst: (id) => lines(id, (transcript) => transcript.newestFirst(id)),
    oldestAfter: (id, cursor) => lines(id, (transcript) => transcript.oldestAfter(id, cursor)),
    newestUpTo: (id, seq) => lines(id, (transcript) => transcript.newestUpTo(id, seq)),
    agentOf: () => Effect.succeed(agentId),
    anchor: (id, seq) =>
      Effect.flatMap(Ref.get(current), (now) =>
        now?.conversationId === id ? now.transcript.anchor(id, seq) : Effect.succeed(Transcript.defaultAnchor(id, seq))
      )
  })
}
