/** One rendering of a review's outcome: each caller's sentence around the same phrase, by the outcome's kind. */
import { assert, describe, it } from "@effect/vitest"
import { ModelError } from "@mneme/core"
import { ReviewOutcome } from "@mneme/review"
import * as OutcomeText from "../src/internal/outcomeText.ts"

const common = (cursor: number | undefined) => ({
  conversationId: "c",
  agentId: "ada",
  cursor,
  passes: 1,
  modelCalls: 2,
  changes: {
    ...ReviewOutcome.noChanges,
    added: [{ scope: "own" as const, topic: undefined, text: "likes tea" }],
    secretsDropped: 1
  },
  moreFollow: false
})

const sentences: OutcomeText.Sentences<string> = {
  reviewed: (phrase) => `reviewed ${phrase}`,
  nothingNew: (phrase) => `nothing new ${phrase}`,
  noUserLine: (phrase) => `no user line ${phrase}`,
  notDone: (phrase) => `not done ${phrase}`
}

describe("OutcomeText.render", () => {
  it("says where each kind of outcome got to, and what it changed", () => {
    assert.strictEqual(
      OutcomeText.render(ReviewOutcome.Outcome.Reviewed(common(12)), sentences, { last: 40 }),
      "reviewed to #12 of #40 (2 model calls): 1 added, 0 edited, 0 removed, 0 left out"
    )
    assert.strictEqual(
      OutcomeText.render(ReviewOutcome.Outcome.Reviewed(common(12)), sentences, { full: true }),
      "reviewed to #12 (2 model calls): 1 added, 0 edited, 0 removed, 0 left out, 1 secret dropped"
    )
    assert.strictEqual(
      OutcomeText.render(ReviewOutcome.Outcome.NothingNew(common(undefined)), sentences, { last: null }),
      "nothing new after the start"
    )
    assert.strictEqual(
      OutcomeText.render(ReviewOutcome.Outcome.NoUserLine(common(3)), sentences, { last: 3 }),
      "no user line up to #3 of #3"
    )
  })

  it("says why a review was not done, the reason masked as asked", () => {
    const failed = ReviewOutcome.Outcome.Failed({
      ...common(5),
      error: new ModelError({ reason: "down" }),
      reason: "the model failed: key sk-123",
      stopped: false
    })
    assert.strictEqual(
      OutcomeText.render(failed, sentences, { mask: (reason) => reason.replace("sk-123", "…") }),
      "not done at #5: the model failed: key …"
    )
    assert.strictEqual(
      OutcomeText.render(ReviewOutcome.Outcome.AgentGone(common(5)), sentences),
      "not done at #5: the agent was deleted"
    )
  })
})
