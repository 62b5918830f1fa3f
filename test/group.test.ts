/**
 * Group conversations (docs/spec.md 4.7): one log, several member agents and people; a cursor, a failure record and a last
 * review per member; one review per member at each turn end; and no member left behind when a host drops lines of a
 * bounded log. Time is the test clock; memory files are real, in a temporary folder.
 */
import { assert, describe, it } from "@effect/vitest"
import { ModelError } from "@mneme/core"
import { MemoryReview, MemoryStore, ReviewOutcome, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Deferred, Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import * as Kit from "./reviewKit.ts"

const group = "g1"
const ada = { id: "ada", name: "Ada" }
const bob = { id: "bob", name: "Bob" }
const adaKey = ReviewOutcome.memberKey(group, ada.id)
const bobKey = ReviewOutcome.memberKey(group, bob.id)

/** Agents Ada and Bob, members of group "g1". */
const setUp = (options: { readonly mayWriteTeam?: { readonly ada: boolean; readonly bob: boolean } } = {}) =>
  Effect.gen(function* () {
    const host = yield* Testing.TranscriptMemory
    yield* host.addAgent({ ...ada, mayWriteTeam: options.mayWriteTeam?.ada ?? false })
    yield* host.addAgent({ ...bob, mayWriteTeam: options.mayWriteTeam?.bob ?? false })
    yield* host.bindGroup(group, [ada.id, bob.id])
  })

const append = (...lines: ReadonlyArray<Testing.NewLine>) =>
  Effect.flatMap(Testing.TranscriptMemory, (host) => host.append(group, ...lines))

const cursorOf = (key: string) => Effect.flatMap(ReviewState.ReviewState, (state) => state.cursor(key))
const failureOf = (key: string) => Effect.flatMap(ReviewState.ReviewState, (state) => state.failure(key))

/** The section of a request that starts with `heading`, up to the next blank line. */
const section = (request: string, heading: string) => {
  const start = request.indexOf(heading)
  const end = request.indexOf("\n\n", start)
  return start < 0 ? "" : request.slice(start, end < 0 ? undefined : end)
}

const someLines = append(
  { seq: 1, who: "user", name: "Alice", text: "Ada, please book the train; Bob, find me a hotel." },
  { seq: 2, who: "agent", name: "ada", text: "Booked the 9:10 train." },
  { seq: 3, who: "agent", name: "bob", text: "Found a hotel near the station." },
  { seq: 4, who: "user", name: "Alice", text: "Thanks both. I always travel with my bike." }
)

describe("two members and one person", () => {
  it.effect("each member's review sees its own lines as itself and the other's by name, with its own cursor", () =>
    Effect.gen(function* () {
      yield* setUp()
      yield* someLines
      yield* Kit.turn(group)
      const requests = yield* Kit.requests
      assert.strictEqual(requests.length, 2)
      const [forAda, forBob] = requests.map((request) => section(request.request, "## New lines"))
      assert.include(forAda, 'agent "Ada": "Booked the 9:10 train."')
      assert.include(forAda, 'other "Bob": "Found a hotel near the station."')
      assert.include(forAda, 'user "Alice": "Thanks both. I always travel with my bike."')
      assert.include(forBob, 'other "Ada": "Booked the 9:10 train."')
      assert.include(forBob, 'agent "Bob": "Found a hotel near the station."')
      assert.include(section(requests[0]!.request, "## Agent"), 'Name: "Ada"')
      assert.include(section(requests[1]!.request, "## Agent"), 'Name: "Bob"')
      assert.include(section(requests[0]!.request, "## Group"), 'Other agents: "Bob".')
      assert.include(section(requests[1]!.request, "## Group"), 'Other agents: "Ada".')
      assert.strictEqual(yield* cursorOf(adaKey), 4)
      assert.strictEqual(yield* cursorOf(bobKey), 4)
      // A chat's key is never used for a group.
      assert.isUndefined(yield* cursorOf(ReviewOutcome.cursorKey(group)))
      assert.include(section(requests[0]!.request, "## Agent"), "may not write team memory")
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )

  it.effect("one member's model failing twice stops only that member; the other's cursor goes on", () =>
    Effect.gen(function* () {
      yield* setUp()
      yield* someLines
      yield* Kit.turn(group)
      const model = yield* Testing.ScriptedModel
      // Ada's review answers, Bob's fails: twice at the same lines.
      yield* append({ seq: 5, who: "user", name: "Alice", text: "I prefer aisle seats on trains." })
      yield* model.push(
        Kit.answer({ op: "add", text: "Alice prefers aisle seats on trains" }),
        new ModelError({ reason: "the model is down", retryable: true })
      )
      yield* Kit.turn(group)
      yield* append({ seq: 6, who: "agent", name: "ada", text: "Noted." })
      yield* model.push(new ModelError({ reason: "the model is down", retryable: true }))
      yield* Kit.turn(group)
      // Bob's second try at the same lines failed too.
      assert.strictEqual((yield* Kit.requests).length, 5)
      assert.strictEqual(yield* cursorOf(adaKey), 6)
      assert.strictEqual(yield* cursorOf(bobKey), 4)
      assert.strictEqual((yield* failureOf(bobKey))?.times.length, 2)
      assert.isUndefined(yield* failureOf(adaKey))
      assert.strictEqual((yield* Kit.logged(ReviewOutcome.warnings.stopped)).length, 1)
      assert.include(yield* Kit.file("agents/ada/MEMORY.md"), "- Alice prefers aisle seats on trains [source: g1 #5;")

      // No new words of a person: Ada passes the agent's line without a call, Bob stays stopped without one.
      yield* append({ seq: 7, who: "agent", name: "bob", text: "Still here." })
      yield* Kit.turn(group)
      assert.strictEqual((yield* Kit.requests).length, 5)
      assert.strictEqual(yield* cursorOf(adaKey), 7)
      assert.strictEqual(yield* cursorOf(bobKey), 4)
      const lastBob = yield* Effect.flatMap(MemoryReview.MemoryReview, (review) => review.lastReview(bob.id))
      assert.strictEqual(lastBob?.ok, false)
      assert.include(lastBob?.reason ?? "", "the model is down")
      const lastAda = yield* Effect.flatMap(MemoryReview.MemoryReview, (review) => review.lastReview(ada.id))
      assert.strictEqual(lastAda?.ok, true)
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )
})

describe("scheduling", () => {
  it.effect("a turn end queues one review per member, each once however many turn ends come", () =>
    Effect.gen(function* () {
      yield* setUp()
      yield* someLines
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded(group)
      yield* review.turnEnded(group)
      assert.strictEqual(yield* review.pending, 1)
      yield* TestClock.adjust("2 seconds")
      yield* review.turnEnded(group)
      yield* TestClock.adjust("2 seconds")
      yield* review.awaitIdle
      // The first timer's two reviews, then the second's find nothing new.
      assert.strictEqual((yield* Kit.requests).length, 2)
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )

  it.effect("a turn that starts within the delay cancels every member's review", () =>
    Effect.gen(function* () {
      yield* setUp()
      yield* someLines
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded(group)
      yield* TestClock.adjust("1 second")
      yield* review.turnStarted(group)
      yield* TestClock.adjust("5 seconds")
      yield* review.awaitIdle
      assert.strictEqual((yield* Kit.requests).length, 0)
      assert.isUndefined(yield* cursorOf(adaKey))
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )

  it.effect("a member who joins later starts with no cursor; one who leaves keeps its memory and its cursor", () =>
    Effect.gen(function* () {
      yield* setUp()
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "cy", name: "Cy" })
      yield* someLines
      yield* Kit.turn(group)
      yield* host.setMembers(group, [ada.id, "cy"])
      yield* append(
        { seq: 5, who: "agent", name: "cy", text: "Hello, I am Cy." },
        { seq: 6, who: "user", name: "Alice", text: "Welcome Cy. My bike is a red road bike." }
      )
      yield* Kit.turn(group)
      const requests = yield* Kit.requests
      assert.strictEqual(requests.length, 4)
      // Cy's first review reads the last lines (docs/spec.md 4.2's first review), its own as itself.
      const forCy = section(requests[3]!.request, "## New lines")
      assert.include(forCy, 'agent "Cy": "Hello, I am Cy."')
      assert.include(forCy, 'other "Bob": "Found a hotel near the station."')
      assert.strictEqual(yield* cursorOf(ReviewOutcome.memberKey(group, "cy")), 6)
      assert.strictEqual(yield* cursorOf(adaKey), 6)
      // Bob left: not reviewed, its cursor kept aside, its memory untouched.
      assert.strictEqual(yield* cursorOf(bobKey), 4)
      assert.include(yield* Kit.file("agents/bob/MEMORY.md"), "- Alice travels with her bike")
    }).pipe(
      Effect.provide(
        Kit.layer({
          answers: [Kit.answer(), Kit.answer({ op: "add", text: "Alice travels with her bike" })],
          otherwise: Kit.answer()
        })
      )
    )
  )
})

describe("what is kept", () => {
  it.effect("with three people, the request lists them and an entry names the person it is about", () =>
    Effect.gen(function* () {
      yield* setUp()
      yield* append(
        { seq: 1, who: "user", name: "Alice", text: "Carol is joining our trip to Kyoto." },
        { seq: 2, who: "user", name: "Carol", text: "Hi all. I only drink green tea." },
        { seq: 3, who: "user", name: "Dan", text: "I will drive us to the airport." },
        { seq: 4, who: "agent", name: "ada", text: "Noted for the trip." }
      )
      yield* Kit.turn(group)
      const request = (yield* Kit.requests)[0]!.request
      assert.include(section(request, "## Group"), 'People: "Alice", "Carol", "Dan".')
      assert.include(section(request, "## Group"), "An entry about a person says their name")
      assert.include(section(request, "## New lines"), 'user "Carol": "Hi all. I only drink green tea."')
      const memory = yield* Kit.file("agents/ada/MEMORY.md")
      assert.include(memory, "- Carol only drinks green tea [source: g1 #3;")
    }).pipe(
      Effect.provide(
        Kit.layer({
          answers: [Kit.answer({ op: "add", text: "Carol only drinks green tea" })],
          otherwise: Kit.answer()
        })
      )
    )
  )

  it.effect("a member that may not write team memory does not; a fact two members add lands once", () =>
    Effect.gen(function* () {
      yield* setUp({ mayWriteTeam: { ada: true, bob: true } })
      yield* someLines
      yield* Kit.turn(group)
      const team = yield* Kit.file("team/MEMORY.md")
      assert.strictEqual(team.split("\n").filter((line) => line.startsWith("- Alice always travels with")).length, 1)
      const store = yield* MemoryStore.MemoryStore
      const journal = yield* store.journal()
      assert.strictEqual(journal.filter((line) => line.op === "add" && line.scope === "team").length, 1)
    }).pipe(
      Effect.provide(
        Kit.layer({
          answers: [
            Kit.answer({ op: "add", text: "Alice always travels with her bike", team: true }),
            Kit.answer({ op: "add", text: "Alice always travels with her bike", team: true })
          ],
          otherwise: Kit.answer()
        })
      )
    )
  )

  it.effect("a member with mayWriteTeam false writes nothing to team memory from a group", () =>
    Effect.gen(function* () {
      yield* setUp({ mayWriteTeam: { ada: true, bob: false } })
      yield* someLines
      yield* Kit.turn(group)
      const requests = yield* Kit.requests
      assert.include(
        section(requests[1]!.request, "## Agent"),
        'This agent may not write team memory: never use "team".'
      )
      // An add it marks for the team lands in its own memory instead.
      assert.strictEqual(yield* Kit.file("team/MEMORY.md"), "")
      assert.include(yield* Kit.file("agents/bob/MEMORY.md"), "- Alice always travels with her bike")
    }).pipe(
      Effect.provide(
        Kit.layer({
          answers: [Kit.answer(), Kit.answer({ op: "add", text: "Alice always travels with her bike", team: true })],
          otherwise: Kit.answer()
        })
      )
    )
  )
})

describe("no member left behind: beforeDrop", () => {
  /** Ada's reviews answer; Bob's fail, from the second turn on. */
  const laggard = Effect.gen(function* () {
    yield* setUp()
    yield* someLines
    yield* Kit.turn(group)
    yield* append({ seq: 5, who: "user", name: "Alice", text: "I prefer aisle seats on trains." })
    const model = yield* Testing.ScriptedModel
    yield* model.push(Kit.answer(), new ModelError({ reason: "the model is down", retryable: true }))
    yield* Kit.turn(group)
    assert.strictEqual(yield* cursorOf(adaKey), 5)
    assert.strictEqual(yield* cursorOf(bobKey), 4)
  })

  it.effect("a member behind the lines is reviewed first; once it has read them, nothing is lost", () =>
    Effect.gen(function* () {
      yield* laggard
      const model = yield* Testing.ScriptedModel
      yield* model.push(Kit.answer({ op: "add", text: "Alice prefers aisle seats on trains" }))
      const review = yield* MemoryReview.MemoryReview
      const check = yield* review.beforeDrop(group, 5)
      assert.deepStrictEqual(check, { past: [ada.id, bob.id], behind: [] })
      assert.strictEqual(yield* cursorOf(bobKey), 5)
      assert.include(yield* Kit.file("agents/bob/MEMORY.md"), "- Alice prefers aisle seats on trains")
      const state = yield* Effect.flatMap(ReviewState.ReviewState, (state) => state.snapshot)
      assert.isUndefined(state.dropped)
      assert.strictEqual((yield* Kit.logged(ReviewOutcome.warnings.dropped)).length, 0)
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )

  it.effect("a member whose model keeps failing is forced once, then its loss is recorded with one warning", () =>
    Effect.gen(function* () {
      yield* laggard
      const requestsBefore = (yield* Kit.requests).length
      const review = yield* MemoryReview.MemoryReview
      // Bob's record says stop after two failures; beforeDrop forces it past the policy all the same.
      yield* review.turnEnded(group)
      yield* TestClock.adjust("2 seconds")
      yield* review.awaitIdle
      assert.strictEqual((yield* failureOf(bobKey))?.times.length, 2)
      const check = yield* review.beforeDrop(group, 5)
      assert.deepStrictEqual(check, { past: [ada.id], behind: [bob.id] })
      // Ada was past the lines: no call for her; Bob's model was asked once more, forced.
      assert.strictEqual((yield* Kit.requests).length, requestsBefore + 2)
      assert.strictEqual(yield* cursorOf(bobKey), 4)
      const dropped = yield* Effect.flatMap(ReviewState.ReviewState, (state) => state.dropped(bobKey))
      assert.deepStrictEqual(
        dropped.map(({ after, upto }) => ({ after, upto })),
        [{ after: 4, upto: 5 }]
      )
      assert.deepStrictEqual(yield* Effect.flatMap(ReviewState.ReviewState, (state) => state.dropped(adaKey)), [])
      const warnings = yield* Kit.logged(ReviewOutcome.warnings.dropped)
      assert.strictEqual(warnings.length, 1)
      assert.deepStrictEqual(warnings[0]!.annotations["members"], [bob.id])
      const last = yield* review.lastReview(bob.id)
      assert.strictEqual(last?.ok, false)
      assert.include(last?.reason ?? "", 'lines of conversation "g1" after #4 up to #5 were dropped')
      // Nothing of Ada's was lost, and her memory is as it was.
      assert.deepStrictEqual(check.past, [ada.id])
      // The host drops the lines; Bob's next review reads what is left, from its cursor.
      const host = yield* Testing.TranscriptMemory
      yield* host.drop(group, 5)
      yield* append({ seq: 6, who: "user", name: "Alice", text: "And I like window seats on planes." })
      yield* Testing.ScriptedModel.use((model) => model.push(Kit.answer(), Kit.answer()))
      yield* Kit.turn(group)
      assert.strictEqual(yield* cursorOf(bobKey), 6)
      const bobRequest = (yield* Kit.requests).at(-1)!.request
      assert.notInclude(bobRequest, "aisle seats")
      assert.include(bobRequest, "window seats on planes")
    }).pipe(
      Effect.provide(
        Kit.layer({
          answers: [Kit.answer(), Kit.answer()],
          otherwise: new ModelError({ reason: "the model is down", retryable: true })
        })
      )
    )
  )

  it.effect("gives up on a member at the timeout, and records its loss", () =>
    Effect.gen(function* () {
      yield* laggard
      const model = yield* Testing.ScriptedModel
      const asked = yield* Deferred.make<void>()
      yield* model.push(
        Deferred.succeed(asked, undefined).pipe(Effect.andThen(Effect.sleep("10 minutes")), Effect.as(Kit.answer()))
      )
      const review = yield* MemoryReview.MemoryReview
      const fiber = yield* Effect.forkChild(review.beforeDrop(group, 5, { timeout: "30 seconds" }))
      // Bob's model is asked, and does not answer within the timeout.
      yield* Deferred.await(asked)
      yield* TestClock.adjust("31 seconds")
      const check = yield* Fiber.join(fiber)
      assert.deepStrictEqual(check, { past: [ada.id], behind: [bob.id] })
      assert.strictEqual(yield* cursorOf(bobKey), 4)
      assert.strictEqual((yield* Kit.logged(ReviewOutcome.warnings.dropped)).length, 1)
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )

  /** A model answer that says it was asked, then does not come within ten minutes. */
  const hanging = (asked: Deferred.Deferred<void>) =>
    Deferred.succeed(asked, undefined).pipe(Effect.andThen(Effect.sleep("10 minutes")), Effect.as(Kit.answer()))

  it.effect("a member already past the lines is never behind, whoever is caught up before it", () =>
    Effect.gen(function* () {
      yield* laggard
      const host = yield* Testing.TranscriptMemory
      yield* host.setMembers(group, [bob.id, ada.id])
      const lastAda = yield* Effect.flatMap(MemoryReview.MemoryReview, (review) => review.lastReview(ada.id))
      const asked = yield* Deferred.make<void>()
      yield* Testing.ScriptedModel.use((model) => model.push(hanging(asked)))
      const review = yield* MemoryReview.MemoryReview
      const fiber = yield* Effect.forkChild(review.beforeDrop(group, 5, { timeout: "30 seconds" }))
      yield* Deferred.await(asked)
      yield* TestClock.adjust("31 seconds")
      const check = yield* Fiber.join(fiber)
      assert.deepStrictEqual(check, { past: [ada.id], behind: [bob.id] })
      // Nothing is recorded against Ada: no lost lines, her last review as it was, the warning names Bob alone.
      assert.deepStrictEqual(yield* Effect.flatMap(ReviewState.ReviewState, (state) => state.dropped(adaKey)), [])
      assert.deepStrictEqual(yield* review.lastReview(ada.id), lastAda)
      assert.strictEqual(lastAda?.ok, true)
      const warnings = yield* Kit.logged(ReviewOutcome.warnings.dropped)
      assert.strictEqual(warnings.length, 1)
      assert.deepStrictEqual(warnings[0]!.annotations["members"], [bob.id])
      assert.strictEqual(yield* cursorOf(adaKey), 5)
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )

  it.effect("one slow member uses only its share of the time: the next one behind is still caught up", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* setUp()
      yield* host.addAgent({ id: "cy", name: "Cy" })
      yield* host.setMembers(group, [bob.id, "cy", ada.id])
      yield* someLines
      yield* Kit.turn(group)
      // Line 5 comes; only Ada has read it when the host wants to drop it.
      yield* append({ seq: 5, who: "user", name: "Alice", text: "I prefer aisle seats on trains." })
      const review = yield* MemoryReview.MemoryReview
      yield* review.reviewNow(group, ada.id)
      const cyKey = ReviewOutcome.memberKey(group, "cy")
      assert.deepStrictEqual([yield* cursorOf(bobKey), yield* cursorOf(cyKey), yield* cursorOf(adaKey)], [4, 4, 5])
      // Bob's model hangs; Cy's answers at once.
      const asked = yield* Deferred.make<void>()
      yield* Testing.ScriptedModel.use((model) =>
        model.push(hanging(asked), Kit.answer({ op: "add", text: "Alice prefers aisle seats on trains" }))
      )
      const fiber = yield* Effect.forkChild(review.beforeDrop(group, 5, { timeout: "30 seconds" }))
      yield* Deferred.await(asked)
      // Half the time, Bob's share of the two members behind, and a little more: Bob is given up, Cy is caught up.
      yield* TestClock.adjust("16 seconds")
      const check = yield* Fiber.join(fiber).pipe(Effect.timeoutOption("5 seconds"), TestClock.withLive)
      assert.deepStrictEqual(Option.getOrUndefined(check), { past: ["cy", ada.id], behind: [bob.id] })
      assert.strictEqual(yield* cursorOf(cyKey), 5)
      assert.include(yield* Kit.file("agents/cy/MEMORY.md"), "- Alice prefers aisle seats on trains")
      assert.strictEqual(yield* cursorOf(bobKey), 4)
      assert.deepStrictEqual(yield* Effect.flatMap(ReviewState.ReviewState, (state) => state.dropped(cyKey)), [])
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )
})
