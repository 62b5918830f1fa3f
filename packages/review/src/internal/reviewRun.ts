/**
 * One memory review of a conversation (SPEC 4.2–4.6): read the new lines, ask the model, apply its answer, move the
 * cursor; or count the failure against the policy, warn, and record the last review. A review never fails: what
 * happened is its outcome.
 */
import {
  Answer,
  type Backoff,
  type BadTopic,
  Lines,
  type MalformedAnswer,
  type MemoryConfig,
  type MemoryFull,
  type MemoryWriteError,
  type ModelError,
  Prompt,
  Selection,
  Text,
  type TooManyTopics,
  type TranscriptError,
  type UnlistedEntry,
  Vet
} from "@mneme/core"
import { Clock, Effect, Metric } from "effect"
import type { Agents, AgentInfo } from "../Agents.ts"
import type { Cursors } from "../Cursors.ts"
import type { Outcome } from "../MemoryReview.ts"
import type { MemoryStore, ScopeView } from "../MemoryStore.ts"
import type { ReviewModel } from "../ReviewModel.ts"
import type { Transcript } from "../Transcript.ts"
import { AgentGone, apply, describe, type Tally } from "./reviewApply.ts"
import { newestUserSeq, read } from "./reviewRead.ts"

/** The stable texts of the review's warnings; the details are in the log's annotations. */
export const warnings = {
  /** A review failed (annotations: `reason`). */
  failed: "memory review failed",
  /** Reviews at these lines keep failing: no more model calls for them for now (annotations: `failures`, `reason`). */
  stopped: "memory review stopped retrying these lines",
  /** An answer held entries memory cannot keep; they were left out and the rest applied (annotations: `problem`). */
  leftOut: "memory review left out entries memory cannot keep",
  /** A change was skipped: its entry has gone, or it is not allowed (annotations: `change`, `reason`). */
  skipped: "memory review skipped a change"
} as const

const sizes = Metric.exponentialBoundaries({ start: 256, factor: 2, count: 10 })

/** The review's metrics. */
export const metrics = {
  modelCalls: Metric.counter("mneme_review_model_calls", { description: "model calls made by memory reviews" }),
  failures: Metric.counter("mneme_review_failures", { description: "memory reviews that failed" }),
  changesApplied: Metric.counter("mneme_review_changes_applied", { description: "changes memory reviews applied" }),
  leftOut: Metric.counter("mneme_review_left_out", { description: "entries left out as memory cannot keep them" }),
  promptSize: Metric.histogram("mneme_review_prompt_characters", {
    description: "characters of system and request text per model call",
    boundaries: sizes
  }),
  answerSize: Metric.histogram("mneme_review_answer_characters", {
    description: "characters of answer per model call",
    boundaries: sizes
  }),
  inputTokens: Metric.counter("mneme_review_input_tokens", {
    description: "input tokens, where the model reports them"
  }),
  outputTokens: Metric.counter("mneme_review_output_tokens", {
    description: "output tokens, where the model reports them"
  })
} as const

/** Everything that fails a review and counts against the policy. */
export type ReviewError =
  | TranscriptError
  | MemoryWriteError
  | ModelError
  | MalformedAnswer
  | UnlistedEntry
  | BadTopic
  | MemoryFull
  | TooManyTopics

/** What one review works with. */
export interface Services {
  readonly settings: MemoryConfig.Settings
  readonly store: MemoryStore["Service"]
  readonly cursors: Cursors["Service"]
  readonly transcript: Transcript["Service"]
  readonly agents: Agents["Service"]
  readonly model: ReviewModel["Service"]
  readonly tracker: Backoff.Tracker<MemoryWriteError>
}

/** The cursor key of a conversation. */
export const keyOf = (conversationId: string): string => `chat:${conversationId}`

const memoryOf = (view: ScopeView) => view.files.find((file) => file.topic === undefined)

const candidates = (view: ScopeView, scope: "own" | "team", memory: boolean): Array<Selection.Candidate> =>
  view.files
    .filter((file) => (file.topic === undefined) === memory)
    .flatMap((file) =>
      file.parsed.entries.map((entry) => ({ scope, topic: file.topic, text: entry.text, meta: entry.meta }))
    )

/** The review of a conversation, `force`d past the failure policy or not. */
export const makeRun =
  (services: Services) =>
  (conversationId: string, force: boolean): Effect.Effect<Outcome> =>
    Effect.suspend(() => review(services, conversationId, force))

/** One review, with the state it builds up as it goes. */
const review = (services: Services, conversationId: string, force: boolean): Effect.Effect<Outcome> => {
  const { settings, store, cursors, transcript, agents, model, tracker } = services
  const key = keyOf(conversationId)
  const tally: Tally & { leftOut: Array<{ readonly text: string; readonly problem: string }> } = {
    added: [],
    edited: [],
    removed: [],
    skipped: [],
    leftOut: []
  }
  let agentId: string | undefined
  let cursor: number | undefined
  let position: Backoff.Position | undefined
  let modelCalls = 0
  let passes = 0
  let secretsDropped = 0

  const outcome = (
    status: Outcome["status"],
    options: { readonly reason?: string; readonly moreFollow?: boolean } = {}
  ): Outcome => ({
    status,
    ok: options.reason === undefined,
    reason: options.reason ?? null,
    passes,
    modelCalls,
    ...tally,
    secretsDropped,
    cursor,
    moreFollow: options.moreFollow ?? false
  })

  const pass = Effect.fnUntraced(function* (input: {
    readonly agent: AgentInfo
    readonly context: ReadonlyArray<Lines.Line>
    readonly lines: ReadonlyArray<Lines.Line>
    readonly moreFollow: boolean
    readonly anchor: string
  }) {
    const { agent } = input
    const [own, team] = yield* Effect.all([
      store.load({ kind: "agent", agentId: agent.id }),
      store.load({ kind: "team" })
    ])
    const { shown, hidden } = Selection.choose(
      {
        own: candidates(own, "own", true),
        team: candidates(team, "team", true),
        topics: [...candidates(own, "own", false), ...candidates(team, "team", false)],
        userText: input.lines
          .filter((line) => line.who === "user")
          .map((line) => line.text)
          .join("\n")
      },
      settings
    )
    const request = Prompt.request(
      {
        agent: {
          name: agent.name,
          ...(agent.role === undefined ? {} : { role: agent.role }),
          mayWriteTeam: agent.mayWriteTeam
        },
        sizes: { own: memoryOf(own)?.size ?? 0, team: memoryOf(team)?.size ?? 0, max: settings.memoryMax },
        shown,
        hidden,
        context: input.context,
        lines: input.lines,
        moreFollow: input.moreFollow
      },
      settings
    )
    modelCalls++
    yield* Metric.update(metrics.modelCalls, 1)
    yield* Metric.update(metrics.promptSize, Text.length(Prompt.system) + Text.length(request))
    const answer = yield* model.generate({ system: Prompt.system, request })
    yield* Metric.update(metrics.answerSize, Text.length(answer.text))
    if (answer.usage?.inputTokens !== undefined) yield* Metric.update(metrics.inputTokens, answer.usage.inputTokens)
    if (answer.usage?.outputTokens !== undefined) yield* Metric.update(metrics.outputTokens, answer.usage.outputTokens)
    const vetted = yield* Effect.flatMap(Answer.parse(answer.text), (changes) =>
      Answer.vet(changes, shown.length, settings)
    )
    secretsDropped += vetted.secretsDropped
    if (vetted.warning !== undefined) {
      tally.leftOut.push(
        ...vetted.leftOut.map(({ change, problem }) => ({
          text: change.op === "remove" ? "" : change.text,
          problem: Vet.describe(problem)
        }))
      )
      yield* Metric.update(metrics.leftOut, vetted.leftOut.length)
      yield* Effect.logWarning(warnings.leftOut).pipe(Effect.annotateLogs({ problem: vetted.warning }))
    }
    const before = tally.added.length + tally.edited.length + tally.removed.length
    const changed = yield* apply({
      store,
      agents,
      agentId: agent.id,
      changes: vetted.apply,
      shown,
      anchor: input.anchor,
      tally,
      skip: (skipped) =>
        Effect.sync(() => tally.skipped.push(skipped)).pipe(
          Effect.andThen(Effect.logWarning(warnings.skipped)),
          Effect.annotateLogs({ change: describe(skipped.change), reason: skipped.reason })
        )
    }).pipe(
      Effect.ensuring(
        Effect.suspend(() =>
          Metric.update(
            metrics.changesApplied,
            tally.added.length + tally.edited.length + tally.removed.length - before
          )
        )
      )
    )
    passes++
    return { changed, atCap: vetted.atCap }
  })

  const attempt = Effect.gen(function* () {
    const owner = yield* transcript.agentOf(conversationId)
    agentId = owner
    const agent = yield* agents.get(owner)
    if (agent === undefined) return yield* new AgentGone({ agentId: owner })
    cursor = yield* cursors.cursor(key)
    const { context, fresh } = yield* read(transcript.newestFirst(conversationId), cursor, settings)
    const first = fresh[0]
    const newestUser = newestUserSeq(fresh)
    if (first === undefined) return outcome("nothing-new")
    const { taken, rest } = newestUser === undefined ? { taken: fresh, rest: [] } : Lines.fit(fresh, settings)
    const moreFollow = rest.length > 0
    const last = taken.at(-1)?.seq ?? first.seq
    const user = newestUserSeq(taken)
    if (newestUser === undefined || user === undefined) {
      yield* cursors.setCursor(key, last)
      cursor = last
      return outcome("no-user-line", { moreFollow })
    }
    const base = cursor ?? first.seq - 1
    position = { cursor: base, newestUserSeq: newestUser }
    if (!force) {
      const decision = yield* tracker.check(key, position)
      if (decision._tag === "Stop") return outcome("stopped", { reason: warnings.stopped })
    }
    if (cursor === undefined) {
      yield* cursors.setCursor(key, base)
      cursor = base
    }
    const anchor = yield* transcript.anchor(conversationId, user)
    for (let extra = 0; extra <= settings.extraPassesMax; extra++) {
      const { changed, atCap } = yield* pass({ agent, context, lines: taken, moreFollow, anchor })
      if (!(changed && atCap)) break
    }
    yield* cursors.setCursor(key, last)
    cursor = last
    yield* tracker.succeeded(key)
    yield* cursors.setLastReview(owner, { at: yield* Clock.currentTimeMillis, ok: true, reason: null })
    return outcome("reviewed", { moreFollow })
  })

  const failed = (error: ReviewError) =>
    Effect.gen(function* () {
      yield* Metric.update(metrics.failures, 1)
      yield* Effect.logWarning(warnings.failed).pipe(Effect.annotateLogs({ reason: error.message }))
      const counted = yield* tracker.failed(key, position ?? { cursor: cursor ?? null, newestUserSeq: -1 })
      const stopped = counted.decision._tag === "Stop"
      if (counted.warnStop) {
        yield* Effect.logWarning(warnings.stopped).pipe(
          Effect.annotateLogs({ failures: counted.record.failures, reason: error.message })
        )
      }
      const reason = stopped
        ? `${error.message} (${warnings.stopped} after ${counted.record.failures} failures)`
        : error.message
      if (agentId !== undefined)
        yield* cursors.setLastReview(agentId, { at: yield* Clock.currentTimeMillis, ok: false, reason })
      return outcome("failed", { reason })
    }).pipe(
      Effect.catch((recording) =>
        Effect.as(
          Effect.logError("memory review could not record its failure").pipe(
            Effect.annotateLogs({ reason: recording.message })
          ),
          outcome("failed", { reason: error.message })
        )
      )
    )

  return attempt.pipe(
    Effect.catchTag("AgentGone", () => Effect.succeed(outcome("agent-gone", { reason: "the agent was deleted" }))),
    Effect.catch(failed),
    Effect.tap((done) => Effect.annotateCurrentSpan({ status: done.status, modelCalls: done.modelCalls })),
    Effect.annotateLogs({ conversation: conversationId }),
    Effect.withSpan("MemoryReview.review", { attributes: { conversation: conversationId, force } })
  )
}
