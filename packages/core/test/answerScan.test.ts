import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as AnswerScan from "../src/internal/answerScan.ts"

/** JSON text near what a model gives: changes of known and other keys, odd values, white space and escapes. */
const space = fc.constantFrom("", " ", "\n", "\t", "\r\n", "  ")
const token = fc.constantFrom(
  '"add"',
  '"edit"',
  '"remove"',
  '"The user likes tea"',
  '""',
  '"a\\"b"',
  '"a\\u0041"',
  '"tab\there"',
  '"茶 \u2028 😀"',
  "1",
  "0",
  "01",
  "-1",
  "1.5",
  "2e3",
  "12345678901234567890",
  "true",
  "false",
  "null",
  "[1, 2]",
  '["3"]',
  "[]",
  "{}",
  "tru"
)
const key = fc.constantFrom('"op"', '"text"', '"entry"', '"topic"', '"team"', '"from"', '"other"', '"op\\u0020"')
const member = fc.tuple(space, key, space, token, space).map(([a, k, b, v, c]) => `${a}${k}${b}:${v}${c}`)
const change = fc
  .array(member, { maxLength: 5 })
  .chain((members) => fc.constantFrom(`{${members.join(",")}}`, `{${members.join(",")},}`, `{${members.join("")}}`))
const answer = fc
  .tuple(space, fc.array(change, { maxLength: 4 }), space, fc.constantFrom('"changes"', '"change"', '"changes" '))
  .chain(([s, changes, t, name]) =>
    fc.constantFrom(
      `${s}{${name}:${t}[${changes.join(",")}]${s}}`,
      `{${name}:[${changes.join(`,${t}`)}]}${s}`,
      `{${name}:[${changes.join(",")}],"more":1}`,
      `{${name}:[${changes.join(",")}]}}`,
      `{${name}:[${changes.join(",")}]`
    )
  )

/** What `JSON.parse` gives, or `undefined` where it fails. */
const parsed = (json: string): unknown => {
  try {
    return JSON.parse(json) as unknown
  } catch {
    return undefined
  }
}

describe("answerScan", () => {
  it("reads an ordinary answer as JSON.parse does", () => {
    const json =
      '{"changes":[{"op":"add","text":"The user likes tea","topic":"drinks","team":true,"from":[1,"2"]},{"op":"remove","entry":"3"}]}'
    assert.deepStrictEqual(AnswerScan.scan(json), JSON.parse(json))
  })

  it("property: gives what JSON.parse gives, or nothing", () => {
    fc.assert(
      fc.property(answer, (json) => {
        const scanned = AnswerScan.scan(json)
        if (scanned !== undefined) assert.deepStrictEqual(scanned, parsed(json), json)
      }),
      { numRuns: 10_000 }
    )
  })

  it("property: reads every answer of its shape", () => {
    const plain = fc
      .string()
      .filter((s) => Array.from(s).every((ch) => ch !== '"' && ch !== "\\" && ch.charCodeAt(0) >= 32))
    const value = fc.oneof(
      plain.map((s) => JSON.stringify(s)),
      fc.nat().map(String),
      fc.boolean().map(String),
      fc.array(fc.nat({ max: 99 }), { maxLength: 3 }).map((list) => JSON.stringify(list))
    )
    const changeOf = fc
      .uniqueArray(fc.constantFrom("op", "text", "entry", "topic", "team", "from"), { maxLength: 6 })
      .chain((names) => fc.tuple(...names.map((name) => value.map((v) => `"${name}":${v}`))))
      .map((members) => `{${members.join(",")}}`)
    fc.assert(
      fc.property(fc.array(changeOf, { maxLength: 5 }), (changes) => {
        const json = `{"changes":[${changes.join(",")}]}`
        assert.deepStrictEqual(AnswerScan.scan(json), JSON.parse(json), json)
      }),
      { numRuns: 2_000 }
    )
  })
})
