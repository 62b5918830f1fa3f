import { assert, describe, it } from "@effect/vitest"
import * as LetterKinds from "../src/internal/letterKinds.ts"

describe("letterKinds", () => {
  it("tells every code point beyond ASCII as its Unicode properties do, met once or again", () => {
    const differing: Array<number> = []
    const known = new Map<number, number>()
    for (let c = 128; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue
      if (
        [LetterKinds.kindOf(c, known), LetterKinds.kindOf(c, known)].some(
          (kind) => kind !== LetterKinds.kindByProperties(c)
        )
      )
        differing.push(c)
    }
    assert.deepStrictEqual(differing, [])
  })
})
