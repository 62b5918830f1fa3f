/**
 * The typed errors that quote outside text (a topic, a match, a reason, a path) keep no secret in any field, their
 * message or their JSON, however they are made.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Errors from "../src/Errors.ts"

/** A card number, as outside text may hold one anywhere. */
const card = "4111 1111 1111 1111"
const hidden = /4111/

/** Every error of the core that quotes outside text, each made with the card number in every text it takes. */
const made: ReadonlyArray<Errors.MnemeError | Errors.StorageReason | Errors.DeniedReason> = [
  new Errors.MalformedAnswer({ reason: `bad ${card}`, excerpt: `{"changes": "${card}"}` }),
  new Errors.BadTopic({ topic: card }),
  new Errors.NoSuchTopic({ topic: card, where: `agents/${card}`, topics: ["travel", card] }),
  new Errors.MemoryFull({ file: `agents/${card}/MEMORY.md`, size: 10, limit: 5 }),
  new Errors.NoMatch({ file: "MEMORY.md", match: card, candidates: [`the card is ${card}`] }),
  new Errors.TeamMemory({ agentId: card }),
  new Errors.TooManyTopics({ scope: `agents/${card}`, limit: 40 }),
  new Errors.NotUndoable({ file: "MEMORY.md", detail: `it holds ${card}` }),
  new Errors.ModelError({ reason: `the server said ${card}` }),
  new Errors.TranscriptError({ reason: `line 3 is ${card}` }),
  new Errors.ReadFailed({ file: card, detail: card }),
  new Errors.NotText({ file: card }),
  new Errors.WriteFailed({ file: card, detail: card }),
  new Errors.Busy({ lock: `/tmp/${card}/.lock`, waited: 1000 }),
  new Errors.NewerFormat({ file: card, version: 9 }),
  new Errors.OutsideRoot({ path: card, detail: card }),
  new Errors.LinkedFile({ path: card, target: card }),
  new Errors.NotAFolder({ path: card }),
  new Errors.RootUnusable({ root: card, detail: card }),
  new Errors.NotFound({ path: card, detail: card })
]

describe("typed errors", () => {
  it("keep no secret of the outside text they quote: not in a field, the message or the JSON", () => {
    for (const error of made) {
      for (const [field, value] of Object.entries(error)) {
        assert.notMatch(JSON.stringify(value), hidden, `${error._tag}.${field}`)
      }
      assert.notMatch(error.message, hidden, error._tag)
      assert.notMatch(JSON.stringify(error), hidden, error._tag)
      assert.include(JSON.stringify(error), "[secret]", error._tag)
    }
  })

  it("keep the rest of the text, and a secret inside a wrapping error is masked too", () => {
    const error = new Errors.StorageError({
      reason: new Errors.ReadFailed({ file: "agents/ada/MEMORY.md", detail: card })
    })
    assert.strictEqual(error.message, "agents/ada/MEMORY.md: could not read it: [secret]")
    assert.strictEqual((error.reason as Errors.ReadFailed).detail, "[secret]")
    const match = new Errors.NoMatch({ file: "MEMORY.md", match: `card ${card}`, candidates: [] })
    assert.strictEqual(match.match, "card [secret]")
    assert.strictEqual(match.message, 'no entry in MEMORY.md holds "card [secret]"')
  })

  it("are masked when decoded from fields that were not", () => {
    const decoded = Schema.decodeUnknownSync(Errors.BadTopic)({ _tag: "BadTopic", topic: card })
    assert.instanceOf(decoded, Errors.BadTopic)
    assert.strictEqual(decoded.topic, "[secret]")
  })
})
