import { assert, describe, it } from "@effect/vitest"
import { PostgresRoot } from "@mneme/sql"
import { Redacted, Result } from "effect"
import * as MemoryLocation from "../src/internal/cli/memoryLocation.ts"

describe("MemoryLocation.parse", () => {
  it("gives a URL without ?schema= the Postgres backend's own default schema", () => {
    assert.strictEqual(MemoryLocation.defaultSchema, PostgresRoot.defaultSchema)
    const location = Result.getOrThrow(MemoryLocation.parse("postgres://ada:s3cret@db.local:5433/memory"))
    assert.deepStrictEqual(location._tag === "Postgres" && [location.schema, location.shown], [
      PostgresRoot.defaultSchema,
      `postgres://ada@db.local:5433/memory (schema ${PostgresRoot.defaultSchema})`
    ])
    assert.strictEqual(
      location._tag === "Postgres" && Redacted.value(location.url),
      "postgres://ada:s3cret@db.local:5433/memory"
    )
  })

  it("reads a folder as a folder", () => {
    assert.deepStrictEqual(Result.getOrThrow(MemoryLocation.parse("./memory")), {
      _tag: "Folder",
      path: "./memory",
      shown: "./memory"
    })
  })
})
