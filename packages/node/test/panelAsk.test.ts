/**
 * The panel's "ask or change" box, step by step: what the model is shown (the entries numbered and quoted as the
 * review shows them, secrets masked), the reply it gives, and the proposal its changes make once `Answer` has judged
 * them: an edit or remove names the listed entry exactly, an add goes where it says, what memory cannot keep is
 * left out.
 */
import { assert, describe, it } from "@effect/vitest"
import { Answer, MemoryConfig, MemoryFile, MemoryScope, Text } from "@mneme/core"
import type { MemoryRoot } from "@mneme/review"
import { Effect } from "effect"
import * as Ask from "../src/internal/panel/ask.ts"

const settings = MemoryConfig.defaults

const stored = (file: string, topic: string | undefined, content: string): MemoryRoot.StoredFile => ({
  file,
  topic,
  exists: true,
  parsed: MemoryFile.parse(content),
  size: Text.length(content)
})

const own: MemoryRoot.StoredScope = {
  scope: MemoryScope.own("ada"),
  dir: "agents/ada",
  files: [
    stored(
      "agents/ada/MEMORY.md",
      undefined,
      "# Memory\n\n- Ada works at Initech [added: 2026-01-02]\n- Ada's key is sk-proj-abcdefghijklmnopqrstuvwx0123\n\n## Index\n- [[travel]]\n"
    ),
    stored("agents/ada/travel.md", "travel", "# travel\n\n- Ada flies to Lisbon in May\n")
  ],
  unreadable: []
}

const team: MemoryRoot.StoredScope = {
  scope: MemoryScope.team,
  dir: "team",
  files: [stored("team/MEMORY.md", undefined, "# Memory\n\n- The team ships on Fridays\n")],
  unreadable: []
}

describe("panel ask", () => {
  it("lists own MEMORY.md, team MEMORY.md, then topics, numbered, and masks secrets in what the model sees", () => {
    const listed = Ask.list(own, team, "travel plans", settings)
    assert.deepStrictEqual(
      listed.shown.map((entry) => [entry.number, entry.scope, entry.topic, entry.text]),
      [
        [1, "own", undefined, "Ada works at Initech"],
        [2, "own", undefined, "Ada's key is sk-proj-abcdefghijklmnopqrstuvwx0123"],
        [3, "team", undefined, "The team ships on Fridays"],
        [4, "own", "travel", "Ada flies to Lisbon in May"]
      ]
    )
    const request = Ask.request(
      { agentId: "ada", sizes: { own: 120, team: 40 }, listed, words: 'Forget my old job "now"' },
      settings
    )
    assert.include(request, '1. own MEMORY.md: "Ada works at Initech"')
    assert.include(request, `2. own MEMORY.md: "Ada's key is [secret]"`)
    assert.include(request, '4. own topic "travel": "Ada flies to Lisbon in May"')
    assert.include(request, '## What the person wrote\n"Forget my old job \\"now\\""')
    assert.notInclude(request, "sk-proj")
    assert.include(Ask.system(settings), "at most 8 changes")
    assert.include(Ask.system(settings), "at most 300 characters")
  })

  it("reads the reply of an answer, secrets masked, and none where it has none", () => {
    assert.strictEqual(Ask.replyOf('Sure: {"reply": " Ada flies in May. ", "changes": []}'), "Ada flies in May.")
    assert.strictEqual(
      Ask.replyOf('{"reply": "the key is sk-proj-abcdefghijklmnopqrstuvwx0123"}'),
      "the key is [secret]"
    )
    assert.strictEqual(Ask.replyOf('{"changes": []}'), "")
    assert.strictEqual(Ask.replyOf('{"reply": 3, "changes": []}'), "")
  })

  it.effect("proposes the changes Answer lets through, on the listed entries exactly, as a person's", () =>
    Effect.gen(function* () {
      const listed = Ask.list(own, team, "", settings)
      const answer =
        '{"reply": "Done.", "changes": [' +
        '{"op": "remove", "entry": 1}, {"op": "edit", "entry": "2", "text": "Ada keeps keys in a vault"}, ' +
        '{"op": "add", "text": "Ada now works at Globex", "team": true, "topic": "Work History"}, ' +
        `{"op": "add", "text": "${"x".repeat(301)}"}, {"op": "add", "text": "Ada's PIN is 4421"}, ` +
        '{"op": "remove", "entry": 1}]}'
      const vetted = yield* Answer.vet(yield* Answer.parse(answer), listed.shown.length, settings)
      const proposal = Ask.propose("ada", listed, vetted)
      assert.deepStrictEqual(
        proposal.changes.map(({ op, scope, topic, text, before }) => ({ op, scope, topic, text, before })),
        [
          { op: "remove", scope: "own", topic: undefined, text: "Ada works at Initech", before: undefined },
          {
            op: "edit",
            scope: "own",
            topic: undefined,
            text: "Ada keeps keys in a vault",
            before: "Ada's key is [secret]"
          },
          { op: "add", scope: "team", topic: "work-history", text: "Ada now works at Globex", before: undefined }
        ]
      )
      assert.deepStrictEqual(proposal.changes[1]!.change, {
        op: "replace",
        scope: MemoryScope.own("ada"),
        match: "Ada's key is sk-proj-abcdefghijklmnopqrstuvwx0123",
        exact: true,
        text: "Ada keeps keys in a vault",
        actor: "person"
      })
      assert.deepStrictEqual(proposal.changes[2]!.change, {
        op: "add",
        scope: MemoryScope.team,
        topic: "work-history",
        text: "Ada now works at Globex",
        actor: "person"
      })
      assert.deepStrictEqual(proposal.leftOut, [
        { text: "x".repeat(301), problem: "the entry is 301 characters, over the limit of 300" }
      ])
      assert.strictEqual(proposal.secretsDropped, 1)
    })
  )

  it.effect("fails the whole answer where it names an entry that was not listed", () =>
    Effect.gen(function* () {
      const listed = Ask.list(own, team, "", settings)
      const error = yield* Effect.flip(
        Answer.vet(yield* Answer.parse('{"changes": [{"op": "remove", "entry": 9}]}'), listed.shown.length, settings)
      )
      assert.strictEqual(error._tag, "UnlistedEntry")
    })
  )
})
