/**
 * One memory review of a conversation, or of one member agent of a group conversation (docs/spec.md 4.2–4.7), as a pipeline
 * of values: find the agent and its cursor, read the new lines and plan the review, check the failure policy, run the
 * passes, and end in an `Outcome`. A step that fails stops the review with what it knew and what the passes had done;
 * the failure is then counted against the policy, warned and recorded as the last review. A review never fails: what
 * happened is its outcome.
 */
import type { Backoff, StorageError, TranscriptError } from "@mneme/core"
import { Lines, type MemoryScope, Text } from "@mneme/core"
import { Clock, Data, Effect, Metric, Option } from "effect"
import * as MemoryConsolidation from "../MemoryConsolidation.ts"
import * as ReviewBudget from "../ReviewBudget.ts"
import {
  type Changes,
  type Failed,
  metrics,
  noChanges,
  type Outcome,
  type ReviewError,
  type Target,
  targetKey,
  warnings
} from "../ReviewOutcome.ts"
import type * as Groups from "../Groups.ts"
import type { Transcript } from "../Transcript.ts"
import * as Pass from "./reviewPass.ts"
import * as Read from "./reviewRead.ts"

/** What one review works with. */
export interface Services extends Pass.Services {
  readonly transcript: Transcript["Service"]
  readonly groups: Groups.Service
  readonly tracker: Backoff.Tracker<StorageError>
}

/** What a review knows of where it stands, for its outcome and its failure record. */
interface Where {
  readonly agentId: string | undefined
  readonly cursor: number | undefined
  readonly position: Backoff.Position | undefined
}

/** What the passes of a review have done so far. */
interface Progress {
  readonly passes: number
  readonly modelCalls: number
  readonly changes: Changes
}

const nowhere: Where = { agentId: undefined, cursor: undefined, position: undefined }

const nothingYet: Progress = { passes: 0, modelCalls: 0, changes: noChanges }

/** A review stopped by a failure: why, where it stood, and what its passes had done. */
class Halt extends Data.TaggedError("Halt")<{
  readonly error: ReviewError
  readonly where: Where
  readonly progress: Progress
}> {}

/** A step's failure as the review's `Halt` at `where`, after `progress`. */
const halt =
  (where: Where, progress: Progress = nothingYet) =>
  <A, R>(self: Effect.Effect<A, ReviewError, R>): Effect.Effect<A, Halt, R> =>
    Effect.mapError(self, (error) => new Halt({ error, where, progress }))

/** The changes of two passes, in order. */
const combine = (a: Changes, b: Changes): Changes => ({
  added: [...a.added, ...b.added],
  edited: [...a.edited, ...b.edited],
  removed: [...a.removed, ...b.removed],
  leftOut: [...a.leftOut, ...b.leftOut],
  secretsDropped: a.secretsDropped + b.secretsDropped,
  skipped: [...a.skipped, ...b.skipped],
  failed: [...a.failed, ...b.failed],
  ...(a.consolidated === undefined && b.consolidated === undefined
    ? {}
    : { consolidated: [...(a.consolidated ?? []), ...(b.consolidated ?? [])] })
})

/** The model calls the consolidations of a pass's changes made. */
const consolidationCalls = (changes: Changes) =>
  (changes.consolidated ?? []).reduce((sum, consolidated) => sum + consolidated.modelCalls, 0)

/** The fields every outcome has. */
const common = (conversationId: string, where: Where, progress: Progress, moreFollow = false) => ({
  conversationId,
  agentId: where.agentId,
  cursor: where.cursor,
  passes: progress.passes,
  modelCalls: progress.modelCalls,
  changes: progress.changes,
  moreFollow
})

/** How the passes ended: what they did, whether the agent was deleted meanwhile, and whether the last made the record. */
interface Ended {
  readonly progress: Progress
  readonly gone: boolean
  readonly recorded: boolean
}

/**
 * The passes over the same lines (docs/spec.md 4.4 step 7): one, and another while an answer at the cap changed something, at
 * most `extraPassesMax` more.
 */
const passes = (
  services: Services,
  input: Omit<Pass.Input, "first" | "mayFollow">,
  where: Where,
  done: Progress,
  withinBudget: Effect.Effect<boolean>
): Effect.Effect<Ended, Halt> =>
  Pass.pass(services, {
    ...input,
    first: done.passes === 0,
    mayFollow: done.passes < services.settings.extraPassesMax
  }).pipe(
    Effect.catchTags({
      PassFailed: (failed) =>
        Effect.fail(
          new Halt({
            error: failed.error,
            where,
            progress: {
              passes: done.passes + (failed.stage === "apply" ? 1 : 0),
              modelCalls: done.modelCalls + (failed.stage === "read" ? 0 : 1) + consolidationCalls(failed.changes),
              changes: combine(done.changes, failed.changes)
            }
          })
        ),
      AgentDeleted: () => Effect.succeed(undefined)
    }),
    Effect.flatMap((passed): Effect.Effect<Ended, Halt> => {
      const modelCalls = done.modelCalls + 1
      if (passed === undefined) {
        return Effect.succeed({ progress: { ...done, modelCalls }, gone: true, recorded: false })
      }
      const next = {
        passes: done.passes + 1,
        modelCalls: modelCalls + consolidationCalls(passed.changes),
        changes: combine(done.changes, passed.changes)
      }
      const more = passed.changed && passed.atCap && done.passes < services.settings.extraPassesMax
      // An extra pass is one more model call: none past the agent's budget, which ends the review as the last would.
      return Effect.flatMap(more ? withinBudget : Effect.succeed(false), (within) =>
        within
          ? passes(services, input, where, next, withinBudget)
          : Effect.succeed({ progress: next, gone: false, recorded: passed.recorded })
      )
    })
  )

/**
 * A group member's lines as it sees them (docs/spec.md 4.7): its own as itself, the other agents' by name (a line given as a
 * person's that names a member agent too); and who else takes part, for the request.
 */
const asMember = Effect.fnUntraced(function* (
  services: Services,
  conversationId: string,
  member: string,
  lines: { readonly context: ReadonlyArray<Lines.Line>; readonly lines: ReadonlyArray<Lines.Line> }
): Effect.fn.Return<Pick<Pass.Input, "context" | "lines" | "group">, TranscriptError> {
  const members = (yield* services.groups.membersOf(conversationId)) ?? []
  const all = [...lines.context, ...lines.lines]
  const others = new Set([
    ...members.filter((id) => id !== member),
    ...all.flatMap((line) =>
      line.who === "agent" && line.name !== undefined && line.name !== member ? [line.name] : []
    )
  ])
  const names = new Map<string, string>()
  for (const id of [member, ...others]) names.set(id, (yield* services.agents.get(id))?.name ?? id)
  const seen = Lines.seenBy(member, names)
  const [context, seenLines] = [lines.context.map(seen), lines.lines.map(seen)]
  const agents = members.filter((id) => id !== member).map((id) => names.get(id) ?? id)
  return { context, lines: seenLines, group: { agents, people: Lines.people([...context, ...seenLines]) } }
})

/** The review up to its outcome, or the `Halt` of the step that failed. */
const attempt = Effect.fnUntraced(function* (
  services: Services,
  target: Target,
  force: boolean
): Effect.fn.Return<Outcome, Halt> {
  const { settings, state, transcript, agents, tracker } = services
  const { conversationId, member } = target
  const key = targetKey(target)
  const agentId = member ?? (yield* transcript.agentOf(conversationId).pipe(halt(nowhere)))
  const found: Where = { ...nowhere, agentId }
  const agent = yield* agents.get(agentId)
  if (agent === undefined) return { _tag: "AgentGone", ...common(conversationId, found, nothingYet) }
  const cursor = yield* state.cursor(key).pipe(halt(found))
  const at: Where = { ...found, cursor }
  const read = yield* Read.read(transcript, conversationId, cursor, settings).pipe(halt(at))
  const plan = Read.reviewPlan(read, cursor, settings)
  if (plan._tag === "NothingNew") return { _tag: "NothingNew", ...common(conversationId, at, nothingYet) }
  if (plan._tag === "NoUserLine") {
    yield* state.setCursor(key, plan.last).pipe(halt(at))
    const passed = { ...at, cursor: plan.last }
    return { _tag: "NoUserLine", ...common(conversationId, passed, nothingYet, plan.moreFollow) }
  }
  const placed: Where = { ...at, position: plan.position }
  if (!force) {
    const decision = yield* tracker.check(key, plan.position).pipe(halt(placed))
    if (decision._tag === "Stop") {
      return {
        _tag: "Stopped",
        ...common(conversationId, placed, nothingYet),
        failures: decision.failures,
        until: decision.until
      }
    }
  }
  const budget = budgetOf(services, agentId)
  if (!force) {
    const over = yield* budget.over.pipe(halt(placed))
    if (over !== undefined) {
      yield* budget.stop(over).pipe(halt(placed))
      const failures = (yield* state.failure(key).pipe(halt(placed)))?.times.length ?? 0
      return {
        _tag: "Stopped",
        ...common(conversationId, placed, nothingYet),
        failures,
        until: over.until,
        budget: over.reason
      }
    }
  }
  if (cursor === undefined) yield* state.setCursor(key, plan.base).pipe(halt(placed))
  const asking: Where = { ...placed, cursor: plan.base }
  const anchor = yield* transcript.anchor(conversationId, plan.user)
  const seen =
    member === undefined
      ? { context: plan.context, lines: plan.lines }
      : yield* asMember(services, conversationId, member, plan).pipe(halt(asking))
  // The review's record is made with the last pass's batch, in one commit; else by `recordReview` once the passes are
  // done. Every batch of the passes is refused once another review has moved the cursor this one read (a runner that
  // was paused past its lease, whose conversation another runner has reviewed meanwhile): nothing of it is kept.
  const cursorOf = { key, read: plan.base, last: plan.last, agentId }
  const anchorOf = (seq: number) => transcript.anchor(conversationId, seq)
  const input = { agent, ...seen, moreFollow: plan.moreFollow, anchor, anchorOf, cursor: cursorOf }
  const withinBudget = force
    ? Effect.succeed(true)
    : budget.over.pipe(
        Effect.map((over) => over === undefined),
        Effect.catch(() => Effect.succeed(true))
      )
  const metered = { ...services, model: budget.model }
  const consolidate = (scope: MemoryScope.MemoryScope) => MemoryConsolidation.consolidate(metered, scope)
  const ended = yield* passes(
    services.settings.consolidateEnabled ? { ...metered, consolidate } : metered,
    input,
    asking,
    nothingYet,
    withinBudget
  )
  if (ended.gone) return { _tag: "AgentGone", ...common(conversationId, asking, ended.progress) }
  if (!ended.recorded) {
    const ending = yield* Clock.currentTimeMillis
    yield* state
      .recordReview(key, plan.last, agentId, { at: ending, ok: true, reason: null })
      .pipe(halt(asking, ended.progress))
  }
  const done: Where = { ...asking, cursor: plan.last }
  yield* tracker.succeeded(key).pipe(halt(done, ended.progress))
  return { _tag: "Reviewed", ...common(conversationId, done, ended.progress, plan.moreFollow) }
})

/** Logs that counting a model call failed; the call's answer stands. */
const couldNotCount = (error: StorageError) =>
  Effect.logError("memory review could not count a model call").pipe(Effect.annotateLogs({ reason: error.message }))

/** Why the agent's budget is spent today, and when the next day starts; none while it is within. */
interface Over {
  readonly reason: string
  readonly until: number
}

/**
 * The agent's daily budget (`MemoryConfig.reviewBudget`): whether it is spent; the stop, warned once a day and kept as
 * the agent's last review; and the model whose every call is counted against it.
 */
const budgetOf = (services: Services, agentId: string) => {
  const { settings, state } = services
  const over = Effect.gen(function* () {
    if (settings.reviewBudget === undefined) return undefined
    const now = yield* Clock.currentTimeMillis
    const day = ReviewBudget.dayOf(now, settings.timeZone)
    const reason = ReviewBudget.overBudget(yield* state.usage(agentId, day), settings.reviewBudget, day)
    return reason === undefined
      ? undefined
      : ({ reason, until: ReviewBudget.nextDayAt(now, settings.timeZone) } satisfies Over)
  })
  const stop = Effect.fnUntraced(function* (over: Over) {
    const now = yield* Clock.currentTimeMillis
    if (yield* state.warnOnce(agentId, ReviewBudget.dayOf(now, settings.timeZone))) {
      yield* Effect.logWarning(warnings.overBudget).pipe(Effect.annotateLogs({ agent: agentId, reason: over.reason }))
    }
    const last = yield* state.lastReview(agentId)
    if (last?.reason !== over.reason) yield* state.setLastReview(agentId, { at: now, ok: false, reason: over.reason })
  })
  const count = (spent: ReviewBudget.Spent) =>
    Clock.currentTimeMillis.pipe(
      Effect.flatMap((now) => state.recordUsage(agentId, ReviewBudget.dayOf(now, settings.timeZone), spent)),
      Effect.catch(couldNotCount)
    )
  return { over, stop, model: ReviewBudget.metered(services.model, count) }
}

/** Logs that recording a failed review failed; the review's outcome stands. */
const couldNotRecord = (error: StorageError) =>
  Effect.logError("memory review could not record its failure").pipe(Effect.annotateLogs({ reason: error.message }))

/**
 * A failed review: counted against the policy, warned (the stop once), recorded as the last review, its outcome. A
 * review another review of its conversation overtook (`StaleCursor`) is only warned: the lines are reviewed, and that
 * review is the latest.
 */
const failed = Effect.fnUntraced(function* (services: Services, target: Target, halt: Halt) {
  const { settings, state, tracker } = services
  const message = Lines.mask(halt.error.message, settings)
  yield* Effect.logWarning(warnings.failed).pipe(Effect.annotateLogs({ reason: message }))
  if (halt.error._tag === "StorageError" && halt.error.reason._tag === "StaleCursor") {
    return {
      _tag: "Failed",
      ...common(target.conversationId, halt.where, halt.progress),
      error: halt.error,
      reason: message,
      stopped: false
    } satisfies Failed
  }
  const position = halt.where.position ?? { cursor: halt.where.cursor ?? null, newestUserSeq: -1 }
  const counted = yield* tracker
    .failed(targetKey(target), position)
    .pipe(Effect.tapError(couldNotRecord), Effect.option)
  const stop = Option.filter(counted, (c) => c.decision._tag === "Stop")
  if (Option.isSome(stop) && stop.value.warnStop) {
    yield* Effect.logWarning(warnings.stopped).pipe(
      Effect.annotateLogs({ failures: stop.value.record.times.length, reason: message })
    )
  }
  const reason = Option.match(stop, {
    onNone: () => message,
    onSome: (c) => `${message} (${warnings.stopped} after ${Text.count(c.record.times.length)} failures)`
  })
  const agentId = halt.where.agentId
  if (agentId !== undefined) {
    const at = yield* Clock.currentTimeMillis
    yield* state.setLastReview(agentId, { at, ok: false, reason }).pipe(Effect.catch(couldNotRecord))
  }
  return {
    _tag: "Failed",
    ...common(target.conversationId, halt.where, halt.progress),
    error: halt.error,
    reason,
    stopped: Option.isSome(stop)
  } satisfies Failed
})

/** Adds a review's counts to the metrics, tagged with its outcome. */
const count = (outcome: Outcome) => {
  const tagged = Metric.withAttributes({ outcome: outcome._tag })
  const { added, edited, removed, leftOut } = outcome.changes
  return Effect.all(
    [
      Metric.update(tagged(metrics.reviews), 1),
      Metric.update(tagged(metrics.modelCalls), outcome.modelCalls),
      Metric.update(tagged(metrics.failures), outcome._tag === "Failed" ? 1 : 0),
      Metric.update(tagged(metrics.changesApplied), added.length + edited.length + removed.length),
      Metric.update(tagged(metrics.leftOut), leftOut.length)
    ],
    { discard: true }
  )
}

/**
 * The review of a conversation (of one member, in a group), `force`d past the failure policy or not: a span, its
 * outcome as a value.
 */
export const reviewOnce = (services: Services): ((target: Target, force: boolean) => Effect.Effect<Outcome>) =>
  Effect.fn("MemoryReview.review")(
    function* (target: Target, force: boolean) {
      yield* Effect.annotateCurrentSpan({ conversation: target.conversationId, member: target.member, force })
      const outcome = yield* attempt(services, target, force).pipe(
        Effect.catchTag("Halt", (halt) => failed(services, target, halt))
      )
      yield* count(outcome)
      yield* Effect.annotateCurrentSpan({ outcome: outcome._tag, modelCalls: outcome.modelCalls })
      return outcome
    },
    (review, target) =>
      Effect.annotateLogs(
        review,
        target.member === undefined
          ? { conversation: target.conversationId }
          : { conversation: target.conversationId, member: target.member }
      )
  )
