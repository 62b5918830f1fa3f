/**
 * The machine's Postgres for the CLI's tests (127.0.0.1:5432, trust auth, database `test`): statements run with psql,
 * and memory roots in schemas of their own, each dropped after its test.
 */
import { afterEach, assert } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { schemaName } from "../packages/sql/test/fixtures/postgres.ts"

/** Runs `statement` on the test database with psql; its output. */
export const psql = (statement: string) => {
  const result = spawnSync(
    "psql",
    ["-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-d", "test", "-v", "ON_ERROR_STOP=1", "-Atc", statement],
    { encoding: "utf8" }
  )
  assert.strictEqual(result.status, 0, result.stderr)
  return result.stdout
}

const schemas: Array<string> = []
afterEach(() => {
  for (const schema of schemas.splice(0)) psql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
})

/** A Postgres root in a new schema of the test database, dropped after the test: its schema and `--memory` URL. */
export const freshRoot = (scheme = "postgres") => {
  const schema = schemaName("mneme_cli")
  schemas.push(schema)
  return { schema, url: `${scheme}://postgres@127.0.0.1:5432/test?schema=${schema}` }
}
