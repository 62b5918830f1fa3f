/**
 * The review budget in the CLI: `mneme agents` shows what each agent's reviews spent today and in the last 7 days,
 * against the budget per day of MNEME_REVIEW_CALLS_PER_DAY and MNEME_REVIEW_TOKENS_PER_DAY. The built command runs as
 * a child process, in a folder of its own; and the panel's agents page.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertFailure, mneme, review, scratch } from "./cliKit.ts"
import { cookie, send, startPanel } from "./panelKit.ts"

interface Listed {
  readonly agent: string
  readonly reviews: { today: { calls: number; tokens: number }; week: { calls: number; tokens: number } } | null
}

describe("mneme agents and the review budget", () => {
  it("shows today's and the last 7 days' calls and tokens against the budget", () => {
    const { memory } = scratch()
    const reviewed = review(memory)
    assert.strictEqual(reviewed.code, 0, reviewed.stderr)
    const budget = { MNEME_REVIEW_CALLS_PER_DAY: "5", MNEME_REVIEW_TOKENS_PER_DAY: "100000" }
    const listed = mneme(["agents", "--json", "--memory", memory], budget)
    assert.strictEqual(listed.code, 0, listed.stderr)
    const json = JSON.parse(listed.stdout)
    assert.deepStrictEqual([json.budget.calls, json.budget.tokens], [5, 100_000])
    assert.match(json.budget.today, /^\d{4}-\d{2}-\d{2}$/)
    const [ada] = json.agents as Array<Listed>
    const spent = ada!.reviews!
    // The example's review asks its recorded model twice, and the tokens are estimated, none being reported.
    assert.strictEqual(spent.today.calls, 2)
    assert.isAbove(spent.today.tokens, 1_000)
    assert.deepStrictEqual(spent.week, spent.today)

    const table = mneme(["agents", "--memory", memory], budget)
    const [header, row] = table.stdout.trimEnd().split("\n")
    assert.include(header, "REVIEWS TODAY")
    assert.include(header, "LAST 7 DAYS")
    const tokens = new Intl.NumberFormat("en-US").format(spent.today.tokens)
    assert.include(row, `2/5 calls, ${tokens}/100,000 tokens`)
    assert.include(row, `2/35 calls, ${tokens}/700,000 tokens`)

    // Without a budget, the figures alone.
    const plain = mneme(["agents", "--memory", memory])
    assert.include(plain.stdout, `2 calls, ${tokens} tokens`)
  })

  it("the panel's agents page shows them too", async () => {
    const { memory } = scratch()
    assert.strictEqual(review(memory).code, 0)
    const served = await startPanel(["--memory", memory], { MNEME_REVIEW_CALLS_PER_DAY: "5" })
    const page = await send(served.port, "/", { headers: cookie(served) })
    assert.strictEqual(page.status, 200)
    assert.include(page.body, "<th>Reviews spent</th>")
    assert.match(page.body, /Today: 2\/5 calls, [\d,]+ tokens/)
    assert.match(page.body, /Last 7 days: 2\/35 calls, [\d,]+ tokens/)
  })

  it("a budget that is not a whole number above 0 is a usage error naming it", () => {
    const { memory } = scratch()
    assert.strictEqual(review(memory).code, 0)
    const run = mneme(["agents", "--memory", memory], { MNEME_REVIEW_CALLS_PER_DAY: "0" })
    assertFailure(run, 2, 'MNEME_REVIEW_CALLS_PER_DAY must be a whole number above 0, not "0"')
  })
})
