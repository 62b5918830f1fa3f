import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Result, Schema, SchemaIssue } from "effect"
import * as fc from "fast-check"
import * as Answer from "../src/Answer.ts"
import * as MemoryConfig from "../src/MemoryConfig.ts"
import * as Secret from "../src/Secret.ts"

/** The JSON answer holding these changes. */
const answerOf = (...changes: ReadonlyArray<unknown>) => JSON.stringify({ changes })

/** Parses and vets an answer, as the review does. */
const review = (answer: string, listed: number, overrides: Partial<MemoryConfig.Settings> = {}) =>
  Answer.parse(answer).pipe(Effect.flatMap((changes) => Answer.vet(changes, listed, MemoryConfig.make(overrides))))

const tooLong = "x".repeat(348)

describe("Answer.parse", () => {
  it.effect("reads every kind of change, in order, with entry numbers as numbers or digit strings", () =>
    Effect.gen(function* () {
      const changes = yield* Answer.parse(
        answerOf(
          { op: "add", text: "Likes tea", topic: "drinks", team: true },
          { op: "add", text: "Lives in Lyon" },
          { op: "edit", entry: "12", text: "Likes green tea" },
          { op: "remove", entry: 3 },
          { op: "remove", entry: "007" }
        )
      )
      assert.deepStrictEqual(changes, [
        { op: "add", text: "Likes tea", topic: "drinks", team: true },
        { op: "add", text: "Lives in Lyon" },
        { op: "edit", entry: 12, text: "Likes green tea" },
        { op: "remove", entry: 3 },
        { op: "remove", entry: 7 }
      ])
    })
  )

  it.effect("reads an answer in a code fence with prose around it", () =>
    Effect.gen(function* () {
      const answer = 'Here is what to change:\n```json\n{"changes": [{"op": "remove", "entry": 1}]}\n```\nThat is all.'
      assert.deepStrictEqual(yield* Answer.parse(answer), [{ op: "remove", entry: 1 }])
    })
  )

  it.effect("reads an empty list of changes, and ignores unknown keys", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Answer.parse('{"changes": [], "note": "nothing new"}'), [])
      assert.deepStrictEqual(yield* Answer.parse(answerOf({ op: "remove", entry: 2, why: "outdated", text: "x" })), [
        { op: "remove", entry: 2 }
      ])
    })
  )

  const badEntries: ReadonlyArray<readonly [string, unknown, string]> = [
    ["true", true, "expected number | string"],
    ["[3]", [3], "expected number | string"],
    ['"0x10"', "0x10", "expected a string matching the RegExp ^[0-9]+$"],
    ['" 4 "', " 4 ", "expected a string matching the RegExp ^[0-9]+$"],
    ['"1e3"', "1e3", "expected a string matching the RegExp ^[0-9]+$"],
    ['""', "", "expected a string matching the RegExp ^[0-9]+$"],
    ["1.5", 1.5, "expected an integer"],
    ["0", 0, "expected a value greater than or equal to 1"],
    ['"0"', "0", "expected a value greater than or equal to 1"],
    ["-1", -1, "expected a value greater than or equal to 1"],
    ["null", null, "expected number | string"],
    ["2^53 + 2", 2 ** 53 + 2, "expected an integer"],
    ['"99999999999999999999"', "99999999999999999999", "expected an integer"]
  ]
  for (const [name, entry, expected] of badEntries) {
    it.effect(`fails the whole answer on the entry number ${name}`, () =>
      Effect.gen(function* () {
        const answer = answerOf({ op: "remove", entry: 1 }, { op: "edit", entry, text: "Likes tea" })
        const error = yield* Effect.flip(Answer.parse(answer))
        assert.strictEqual(error._tag, "MalformedAnswer")
        assert.strictEqual(error.reason, `changes[1].entry: ${expected}`)
        // The answer is shorter than the 120 characters quoted; an entry number as long as a card number is masked.
        assert.strictEqual(error.excerpt, Secret.redact(answer))
        assert.strictEqual(
          error.message,
          `the model's answer is not a list of changes (${error.reason}): ${JSON.stringify(error.excerpt)}`
        )
      })
    )
  }

  it.effect("reads `from` on an add or an edit as a list of line numbers, given as numbers or digit strings", () =>
    Effect.gen(function* () {
      const changes = yield* Answer.parse(
        answerOf(
          { op: "add", text: "Marco is a backend developer", from: 1 },
          { op: "add", text: "Marco lives in Turin", topic: "home", from: ["3", 5] },
          { op: "edit", entry: 2, text: "Marco drinks espresso", from: "007" },
          { op: "edit", entry: 1, text: "Marco codes in Go", from: [4, 4, 2] },
          { op: "add", text: "Marco has a cat" }
        )
      )
      assert.deepStrictEqual(changes, [
        { op: "add", text: "Marco is a backend developer", from: [1] },
        { op: "add", text: "Marco lives in Turin", topic: "home", from: [3, 5] },
        { op: "edit", entry: 2, text: "Marco drinks espresso", from: [7] },
        { op: "edit", entry: 1, text: "Marco codes in Go", from: [4, 4, 2] },
        { op: "add", text: "Marco has a cat" }
      ])
    })
  )

  it.effect("ignores `from` on a remove, as any key a remove does not have", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Answer.parse(answerOf({ op: "remove", entry: 2, from: "nonsense" })), [
        { op: "remove", entry: 2 }
      ])
    })
  )

  const badFroms: ReadonlyArray<readonly [string, unknown, string]> = [
    ["[]", [], "changes[1].from: expected a value with a length of at least 1"],
    ["0", 0, "changes[1].from: expected a value greater than or equal to 1"],
    ["[0]", [0], "changes[1].from[0]: expected a value greater than or equal to 1"],
    ["[2, -1]", [2, -1], "changes[1].from[1]: expected a value greater than or equal to 1"],
    ['"0x10"', "0x10", "changes[1].from: expected a string matching the RegExp ^[0-9]+$"],
    ['"L3"', "L3", "changes[1].from: expected a string matching the RegExp ^[0-9]+$"],
    ['["3", " 4 "]', ["3", " 4 "], "changes[1].from[1]: expected a string matching the RegExp ^[0-9]+$"],
    ["1.5", 1.5, "changes[1].from: expected an integer"],
    ["null", null, "changes[1].from: expected number | string | array"],
    ["true", true, "changes[1].from: expected number | string | array"],
    ["[[1]]", [[1]], "changes[1].from[0]: expected number | string"],
    ['{"line": 1}', { line: 1 }, "changes[1].from: expected number | string | array"]
  ]
  for (const [name, from, reason] of badFroms) {
    for (const op of ["add", "edit"] as const) {
      it.effect(`fails the whole answer on an ${op} from ${name}`, () =>
        Effect.gen(function* () {
          const change = op === "add" ? { op, text: "Likes tea", from } : { op, entry: 1, text: "Likes tea", from }
          const answer = answerOf({ op: "remove", entry: 1 }, change)
          const error = yield* Effect.flip(Answer.parse(answer))
          assert.strictEqual(error._tag, "MalformedAnswer")
          assert.strictEqual(error.reason, reason)
          assert.strictEqual(error.excerpt, answer.slice(0, 120))
        })
      )
    }
  }

  it.effect("fails on a JSON number beyond the safe integer range, as written in the answer", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Answer.parse('{"changes":[{"op":"remove","entry":9007199254740993}]}'))
      assert.strictEqual(error._tag, "MalformedAnswer")
      assert.strictEqual(error.reason, "changes[0].entry: expected an integer")
    })
  )

  const badAnswers: ReadonlyArray<readonly [string, string, string]> = [
    ["no braces", "I have nothing to change.", "no JSON object in it"],
    ["braces the wrong way round", '} "changes": [] {', "no JSON object in it"],
    ["many { and no }", "{".repeat(1_000), "no JSON object in it"],
    ["JSON that does not parse", '{"changes": [{"op": "remove", "entry": 1},]}', "expected a valid JSON string"],
    ["no changes", '{"change": []}', "changes: missing key"],
    ["changes that are not a list", '{"changes": {"op": "remove", "entry": 1}}', "changes: expected array"],
    [
      "a change that is not an object",
      '{"changes": ["remove 1"]}',
      'changes[0]: expected a change whose "op" is "add", "edit" or "remove"'
    ],
    [
      "an unknown op",
      answerOf({ op: "move", entry: 1 }),
      'changes[0]: expected a change whose "op" is "add", "edit" or "remove"'
    ],
    ["an add without text", answerOf({ op: "add" }), "changes[0].text: missing key"],
    [
      "an add with empty text",
      answerOf({ op: "add", text: "" }),
      "changes[0].text: expected a value with a length of at least 1"
    ],
    ["an add whose text is not a string", answerOf({ op: "add", text: 5 }), "changes[0].text: expected string"],
    [
      "an add whose topic is not a string",
      answerOf({ op: "add", text: "a", topic: 3 }),
      "changes[0].topic: expected string"
    ],
    [
      "an add whose team is not a boolean",
      answerOf({ op: "add", text: "a", team: "yes" }),
      "changes[0].team: expected boolean"
    ],
    ["an edit without text", answerOf({ op: "edit", entry: 2 }), "changes[0].text: missing key"],
    ["an edit without an entry", answerOf({ op: "edit", text: "a" }), "changes[0].entry: missing key"],
    ["a remove without an entry", answerOf({ op: "remove" }), "changes[0].entry: missing key"]
  ]
  for (const [name, answer, reason] of badAnswers) {
    it.effect(`fails the whole answer on ${name}`, () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(Answer.parse(answer))
        assert.strictEqual(error._tag, "MalformedAnswer")
        assert.strictEqual(error.reason, reason)
        assert.strictEqual(error.excerpt, answer.slice(0, 120))
      })
    )
  }

  it.effect("quotes the first 120 code points of the answer, never half a surrogate pair", () =>
    Effect.gen(function* () {
      const answer = "a".repeat(119) + "😀😀 no JSON here"
      const error = yield* Effect.flip(Answer.parse(answer))
      assert.strictEqual(error._tag, "MalformedAnswer")
      assert.strictEqual(error.excerpt, "a".repeat(119) + "😀")
      const chinese = "不".repeat(200) + " {oops}"
      assert.strictEqual((yield* Effect.flip(Answer.parse(chinese))).excerpt, "不".repeat(120))
    })
  )

  it.effect("masks secrets in the excerpt it quotes, so a password never reaches the review state or a screen", () =>
    Effect.gen(function* () {
      const answer = 'The root password is hunter2zz, so {"changes": [{"op": "add"}]}'
      const error = yield* Effect.flip(Answer.parse(answer))
      assert.strictEqual(error._tag, "MalformedAnswer")
      assert.strictEqual(error.reason, "changes[0].text: missing key")
      assert.strictEqual(error.excerpt, 'The root password is [secret], so {"changes": [{"op": "add"}]}')
      assert.strictEqual(
        error.message,
        `the model's answer is not a list of changes (changes[0].text: missing key): ${JSON.stringify(error.excerpt)}`
      )
    })
  )

  it.effect("masks whole a secret the excerpt's end cuts", () =>
    Effect.gen(function* () {
      const key = "ghp_aB3xY7kLm9Qr2sT5vW8zC1dF4gH6jK0nP2qR"
      const error = yield* Effect.flip(Answer.parse("a".repeat(110) + " " + key + " {"))
      assert.strictEqual(error._tag, "MalformedAnswer")
      assert.strictEqual(error.reason, "no JSON object in it")
      assert.strictEqual(error.excerpt, "a".repeat(110) + " [secret]")
    })
  )

  it.effect("keeps the reason short on a 1 MB answer", () =>
    Effect.gen(function* () {
      const answer = `{"changes": [{"op": "add", "text": "${"a".repeat(1_000_000)}", "team": 1}]}`
      const error = yield* Effect.flip(Answer.parse(answer))
      assert.strictEqual(error._tag, "MalformedAnswer")
      assert.strictEqual(error.reason, "changes[0].team: expected boolean")
      assert.strictEqual(error.excerpt.length, 120)
    })
  )
})

/** What the answer's schema alone makes of an answer (the reading `parse` had before its fast path): its changes, or
 * the first problem worded as "changes[2].entry: expected an integer". */
const bySchema = (answer: string): { readonly changes: unknown } | { readonly reason: string } => {
  const start = answer.indexOf("{")
  const end = answer.lastIndexOf("}")
  if (start < 0 || end < start) return { reason: "no JSON object in it" }
  const decoded = Schema.decodeUnknownResult(Schema.fromJsonString(Answer.AnswerSchema))(answer.slice(start, end + 1))
  if (Result.isSuccess(decoded)) return { changes: decoded.success.changes }
  const first = SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure.issue).issues[0]
  if (first === undefined) return { reason: "not a list of changes" }
  const keys = (first.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
  const path = keys.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("")
  const message = first.message.charAt(0).toLowerCase() + first.message.slice(1)
  return { reason: path === "" ? message : `${path.slice(path.startsWith(".") ? 1 : 0)}: ${message}` }
}

/** Values of every kind for each field of a change, well formed or not. */
const anything = fc.constantFrom<unknown>("", "a", "Likes tea", 0, 1, 3, -1, 1.5, true, false, null, [3], {}, "x y")
/** Line numbers as a change's `from` gives them: one, or a list, as numbers or digit strings. */
const lineNumber = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom("3", "007"))
const lineNumbers = fc.oneof(lineNumber, fc.array(lineNumber, { minLength: 1, maxLength: 4 }))
const wellFormedChange = fc.oneof(
  fc.record(
    {
      op: fc.constant("add"),
      text: fc.constantFrom("Likes tea", "茶", " "),
      topic: fc.constantFrom("travel", "Travel Plans", ""),
      team: fc.boolean(),
      from: lineNumbers,
      why: anything
    },
    { requiredKeys: ["op", "text"] }
  ),
  fc.record(
    {
      op: fc.constant("edit"),
      entry: fc.oneof(fc.nat(40), fc.constantFrom("3", "007")),
      text: fc.string(),
      from: lineNumbers
    },
    { requiredKeys: ["op", "entry", "text"] }
  ),
  fc.record({
    op: fc.constant("remove"),
    entry: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom("3", "007"))
  })
)
/** A change with any of its fields, each of any kind. */
const anyChange = fc.record(
  {
    op: fc.oneof(fc.constantFrom("add", "edit", "remove"), fc.constantFrom<unknown>("move", "ADD", 1, null)),
    text: fc.oneof(fc.constantFrom("Likes tea", "茶", " "), anything),
    entry: fc.oneof(
      fc.integer({ min: 1, max: 40 }),
      fc.constantFrom<unknown>("3", "007", " 4 ", "0x10", "", "1e3", "0", 2 ** 53, 2 ** 53 + 2, "99999999999999999999"),
      anything
    ),
    topic: fc.oneof(fc.constantFrom("travel", "Travel Plans"), anything),
    team: fc.oneof(fc.boolean(), anything),
    from: fc.oneof(lineNumbers, fc.constantFrom<unknown>([], [0], ["3", " 4 "], [[2]], "0x10"), anything),
    why: anything
  },
  { requiredKeys: [] }
)
const changes = fc.array(
  fc.oneof({ weight: 12, arbitrary: wellFormedChange }, { weight: 3, arbitrary: anyChange }, anything),
  { maxLength: 10 }
)
const answerValue = fc.oneof(
  { weight: 12, arbitrary: fc.record({ changes }) },
  fc.record({ changes: anything }),
  fc.record({ change: changes }),
  fc.record({ changes, note: anything })
)
/** Answers as text: JSON, alone, in prose or a fence; sometimes cut short or with a stray comma or brace. */
const answerText = fc
  .tuple(answerValue, fc.constantFrom("", "Here you go:\n```json\n", "{ "), fc.constantFrom("", "\n```", "}"), fc.nat())
  .chain(([value, before, after, at]) => {
    const json = JSON.stringify(value)
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant(json) },
      { weight: 4, arbitrary: fc.constant(before + json + after) },
      fc.constant(json.slice(0, at % (json.length + 1)) + "}"),
      fc.constant(json.replace("}", "},"))
    )
  })

describe("Answer.parse, read fast where the answer is well formed", () => {
  it("property: the same changes, or the same error, as the schema alone gives", () => {
    fc.assert(
      fc.property(answerText, (answer) => {
        const exit = Effect.runSyncExit(Answer.parse(answer))
        const expected = bySchema(answer)
        if (Exit.isSuccess(exit)) assert.deepStrictEqual({ changes: exit.value }, expected, answer)
        else {
          const error = exit.cause.reasons[0]
          const failure = error?._tag === "Fail" ? error.error : undefined
          assert.strictEqual(failure?._tag, "MalformedAnswer", answer)
          assert.strictEqual(failure?.reason, "reason" in expected ? expected.reason : "(the schema reads it)", answer)
        }
      }),
      { numRuns: 5000 }
    )
  })

  it.effect("keeps only the keys the schema knows, in its order, with entry numbers as numbers", () =>
    Effect.gen(function* () {
      const changes = yield* Answer.parse(
        answerOf(
          { team: false, topic: "travel", text: "Likes tea", op: "add", why: "because" },
          { text: "Likes coffee", entry: "007", op: "edit", topic: "x" },
          { entry: 2, op: "remove", text: "gone" }
        )
      )
      assert.deepStrictEqual(
        changes.map((c) => Object.entries(c)),
        [
          [
            ["op", "add"],
            ["text", "Likes tea"],
            ["topic", "travel"],
            ["team", false]
          ],
          [
            ["op", "edit"],
            ["entry", 7],
            ["text", "Likes coffee"]
          ],
          [
            ["op", "remove"],
            ["entry", 2]
          ]
        ]
      )
      const schema = bySchema(answerOf({ team: false, topic: "travel", text: "Likes tea", op: "add", why: "because" }))
      assert.deepStrictEqual("changes" in schema ? Object.keys((schema.changes as Array<object>)[0]!) : [], [
        "op",
        "text",
        "topic",
        "team"
      ])
    })
  )
})

/** Whether `value` satisfies `schema`, for the few JSON Schema keywords the answer's document uses (and no other). */
const satisfies = (schema: Readonly<Record<string, unknown>>, value: unknown): boolean => {
  const known = ["type", "properties", "required", "additionalProperties", "items", "anyOf", "enum"]
  const checks = ["minLength", "minimum", "maximum", "pattern", "minItems", "description"]
  for (const key of Object.keys(schema)) assert.include([...known, ...checks], key, "a keyword this check reads")
  const isRecord = typeof value === "object" && value !== null && !Array.isArray(value)
  const types: Record<string, boolean> = {
    object: isRecord,
    array: Array.isArray(value),
    string: typeof value === "string",
    boolean: typeof value === "boolean",
    integer: Number.isInteger(value)
  }
  if (schema.type !== undefined && types[schema.type as string] !== true) return false
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((option) => satisfies(option, value))) return false
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && [...value].length < schema.minLength) return false
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) return false
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return false
    if (typeof schema.maximum === "number" && value > schema.maximum) return false
  }
  if (Array.isArray(value) && typeof schema.minItems === "number" && value.length < schema.minItems) return false
  if (Array.isArray(value) && schema.items !== undefined) {
    if (!value.every((item) => satisfies(schema.items as Record<string, unknown>, item))) return false
  }
  if (isRecord) {
    const object = value as Record<string, unknown>
    if (Array.isArray(schema.required) && !schema.required.every((key) => key in object)) return false
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
    for (const [key, property] of Object.entries(properties)) {
      if (key in object && !satisfies(property, object[key])) return false
    }
  }
  return true
}

describe("Answer.jsonSchema", () => {
  it("is satisfied by every answer parse reads as well formed", () => {
    assert.strictEqual(Answer.jsonSchema.dialect, "draft-2020-12")
    fc.assert(
      fc.property(answerValue, (value) => {
        const read = Effect.runSyncExit(Answer.parse(JSON.stringify(value)))
        if (Exit.isSuccess(read)) assert.isTrue(satisfies(Answer.jsonSchema.schema, value), JSON.stringify(value))
      }),
      { numRuns: 2000 }
    )
  })

  it("refuses answers no model should give", () => {
    for (const value of [
      { change: [] },
      { changes: [{ op: "move", entry: 1 }] },
      { changes: [{ op: "add", text: "" }] },
      { changes: [{ op: "edit", entry: 0, text: "x" }] },
      { changes: [{ op: "remove", entry: "0x10" }] },
      { changes: [{ op: "add", text: "x", team: "yes" }] },
      { changes: [{ op: "add", text: "x", from: [] }] },
      { changes: [{ op: "add", text: "x", from: 0 }] },
      { changes: [{ op: "edit", entry: 1, text: "x", from: ["L3"] }] },
      { changes: [{ op: "edit", entry: 1, text: "x", from: null }] }
    ]) {
      assert.isFalse(satisfies(Answer.jsonSchema.schema, value), JSON.stringify(value))
    }
  })

  it("has `from` on an add and an edit: a line number, or a non-empty list of them", () => {
    const [add, edit, remove] = (
      (Answer.jsonSchema.schema.properties as Record<string, Record<string, unknown>>).changes!.items as {
        readonly anyOf: ReadonlyArray<{ readonly properties: Record<string, Record<string, unknown>> }>
      }
    ).anyOf
    const entry = edit!.properties.entry
    const from = { anyOf: [...(entry!.anyOf as ReadonlyArray<unknown>), { type: "array", items: entry, minItems: 1 }] }
    assert.deepInclude(add!.properties.from, from)
    assert.deepInclude(edit!.properties.from, from)
    assert.isUndefined(remove!.properties.from)
    for (const value of [3, "3", [1, "2"]]) {
      assert.isTrue(satisfies(Answer.jsonSchema.schema, { changes: [{ op: "add", text: "x", from: value }] }))
      assert.isTrue(
        satisfies(Answer.jsonSchema.schema, { changes: [{ op: "edit", entry: 1, text: "x", from: value }] })
      )
    }
  })
})

describe("Answer.vet", () => {
  it.effect("leaves out an over-long add on its own: the remove beside it applies, with one warning (report 000)", () =>
    Effect.gen(function* () {
      const vetted = yield* review(answerOf({ op: "add", text: tooLong }, { op: "remove", entry: 1 }), 1)
      const problem = { _tag: "TooLong", length: 348, max: 300 } as const
      assert.deepStrictEqual(vetted, {
        apply: [{ op: "remove", entry: 1 }],
        leftOut: [{ change: { op: "add", text: tooLong }, problem }],
        secretsDropped: 0,
        atCap: false,
        warning: Answer.warning(problem, 1)
      })
      assert.strictEqual(
        vetted.warning,
        "the model's answer holds an entry memory cannot keep, left out while the rest applies: " +
          "the entry is 348 characters, over the limit of 300"
      )
    })
  )

  it.effect("drops a secret add silently while the rest applies", () =>
    Effect.gen(function* () {
      const vetted = yield* review(
        answerOf(
          { op: "add", text: "The root password is hunter2" },
          { op: "add", text: "Likes tea" },
          { op: "remove", entry: 2 }
        ),
        2
      )
      assert.deepStrictEqual(vetted, {
        apply: [
          { op: "add", text: "Likes tea" },
          { op: "remove", entry: 2 }
        ],
        leftOut: [],
        secretsDropped: 1,
        atCap: false,
        warning: undefined
      })
    })
  )

  it.effect("drops a secret edit silently, and asks the host's own secret test", () =>
    Effect.gen(function* () {
      const vetted = yield* review(
        answerOf(
          { op: "edit", entry: 1, text: "Badge code TOPSECRET-42" },
          { op: "edit", entry: 2, text: "Likes tea" }
        ),
        2,
        { isSecret: (text) => text.includes("TOPSECRET") }
      )
      assert.deepStrictEqual(vetted.apply, [{ op: "edit", entry: 2, text: "Likes tea" }])
      assert.strictEqual(vetted.secretsDropped, 1)
      assert.strictEqual(vetted.warning, undefined)
    })
  )

  it.effect("leaves out every entry memory cannot keep, with one warning naming the first problem", () =>
    Effect.gen(function* () {
      const vetted = yield* review(
        answerOf(
          { op: "edit", entry: 1, text: "- [source: part 1 #3]" },
          { op: "add", text: tooLong },
          { op: "add", text: "Likes tea" }
        ),
        1
      )
      assert.deepStrictEqual(vetted.apply, [{ op: "add", text: "Likes tea" }])
      assert.deepStrictEqual(
        vetted.leftOut.map(({ change, problem }) => [change.op, problem._tag]),
        [
          ["edit", "Empty"],
          ["add", "TooLong"]
        ]
      )
      assert.strictEqual(vetted.warning, Answer.warning({ _tag: "Empty" }, 2))
      assert.isTrue(vetted.warning?.startsWith("the model's answer holds 2 entries memory cannot keep"))
    })
  )

  it.effect("never filters a remove", () =>
    Effect.gen(function* () {
      const vetted = yield* review(
        answerOf({ op: "remove", entry: 3 }, { op: "add", text: " " }, { op: "remove", entry: "1" }),
        3,
        { entryMax: 1, isSecret: () => true }
      )
      assert.deepStrictEqual(vetted.apply, [
        { op: "remove", entry: 3 },
        { op: "remove", entry: 1 }
      ])
    })
  )

  it.effect("hands on cleaned texts and topic names", () =>
    Effect.gen(function* () {
      const vetted = yield* review(
        answerOf(
          {
            op: "add",
            text: "- -  Likes\n green   tea [source: part 1 #10; added: 2026-11-06]",
            topic: " Travel  Plans ",
            team: true
          },
          { op: "edit", entry: 1, text: "* Lives in\tLyon" }
        ),
        1
      )
      assert.deepStrictEqual(vetted.apply, [
        { op: "add", text: "Likes green tea", topic: "travel-plans", team: true },
        { op: "edit", entry: 1, text: "Lives in Lyon" }
      ])
    })
  )

  it.effect("counts characters as code points: 300 Chinese or emoji characters fit, 301 do not", () =>
    Effect.gen(function* () {
      const vetted = yield* review(
        answerOf(
          { op: "add", text: "茶".repeat(300) },
          { op: "add", text: "🍵".repeat(300) },
          { op: "add", text: "茶".repeat(301) },
          { op: "add", text: "🍵".repeat(301) }
        ),
        0
      )
      assert.deepStrictEqual(vetted.apply, [
        { op: "add", text: "茶".repeat(300) },
        { op: "add", text: "🍵".repeat(300) }
      ])
      assert.deepStrictEqual(
        vetted.leftOut.map(({ problem }) => problem),
        [
          { _tag: "TooLong", length: 301, max: 300 },
          { _tag: "TooLong", length: 301, max: 300 }
        ]
      )
    })
  )

  it.effect("uses only the first 8 changes: an unlisted entry in the 9th does not fail the answer", () =>
    Effect.gen(function* () {
      const adds = Array.from({ length: 8 }, (_, i) => ({ op: "add", text: `Fact ${i + 1}` }))
      const vetted = yield* review(answerOf(...adds, { op: "remove", entry: 99 }), 2)
      assert.deepStrictEqual(
        vetted.apply.map((change) => (change.op === "add" ? change.text : "")),
        adds.map((add) => add.text)
      )
      assert.isTrue(vetted.atCap)
    })
  )

  it.effect("is at the cap with 8 changes or more, counted before the cap and the left-out entries", () =>
    Effect.gen(function* () {
      const changes = (count: number) => Array.from({ length: count }, () => ({ op: "add", text: tooLong }))
      assert.isTrue((yield* review(answerOf(...changes(8)), 0)).atCap)
      assert.isTrue((yield* review(answerOf(...changes(12)), 0)).atCap)
      assert.isFalse((yield* review(answerOf(...changes(7)), 0)).atCap)
      assert.isTrue((yield* review(answerOf(...changes(3)), 0, { answerChangesMax: 3 })).atCap)
    })
  )

  it.effect("fails the whole answer on an edit or remove naming an entry that was not listed", () =>
    Effect.gen(function* () {
      const edit = yield* Effect.flip(
        review(answerOf({ op: "add", text: "Likes tea" }, { op: "edit", entry: 4, text: "Likes coffee" }), 3)
      )
      assert.strictEqual(edit._tag, "UnlistedEntry")
      assert.strictEqual(edit.message, "the model's answer names entry 4, but the review listed 3 entries")
      const remove = yield* Effect.flip(review(answerOf({ op: "remove", entry: "2" }), 1))
      assert.strictEqual(remove._tag, "UnlistedEntry")
      assert.strictEqual(remove.message, "the model's answer names entry 2, but the review listed 1 entry")
    })
  )

  it.effect("fails on an unlisted entry even beside an entry memory cannot keep", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(review(answerOf({ op: "add", text: tooLong }, { op: "remove", entry: 1 }), 0))
      assert.strictEqual(error._tag, "UnlistedEntry")
      assert.strictEqual(error.message, "the model's answer names entry 1, but the review listed 0 entries")
    })
  )

  for (const topic of ["memory", "../etc", "", "-notes", "a".repeat(49)]) {
    it.effect(`fails the whole answer on an add to the topic ${JSON.stringify(topic)}`, () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          review(answerOf({ op: "remove", entry: 1 }, { op: "add", text: "Likes tea", topic }), 1)
        )
        assert.strictEqual(error._tag, "BadTopic")
        assert.strictEqual(
          error.message,
          `${JSON.stringify(topic)} is not a topic name: use 1-48 letters, digits, "_" or "-", starting with a letter or digit, not "memory", a device name such as "con", or anything that looks secret`
        )
      })
    )
  }

  it.effect("fails on a topic that looks secret with a BadTopic whose fields and JSON keep no secret", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(review(answerOf({ op: "add", text: "Likes tea", topic: "4111111111111111" }), 0))
      assert.strictEqual(error._tag, "BadTopic")
      assert.strictEqual(error._tag === "BadTopic" ? error.topic : undefined, "[secret]")
      assert.isTrue(error.message.startsWith('"[secret]" is not a topic name'))
      assert.notInclude(JSON.stringify(error), "4111")
    })
  )

  it.effect("fails on a bad topic even when that add is itself too long", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(review(answerOf({ op: "add", text: tooLong, topic: "memory" }), 0))
      assert.strictEqual(error._tag, "BadTopic")
      assert.isTrue(error.message.startsWith('"memory" is not a topic name'))
    })
  )
})
