/**
 * Forgetting that erases over Postgres: every row of every table of the root's schema is read back after a purge.
 */
import { PostgresRoot } from "@mneme/sql"
import { Effect } from "effect"
import { purgeSuite } from "../../review/test/purgeSuite.ts"
import { freshSchema, rootOptions, withClient } from "./fixtures/postgres.ts"

/** Every row of every table of `schema`, each as its text, one after the other. */
const everything = (schema: string) =>
  withClient((sql) =>
    Effect.gen(function* () {
      const tables = yield* sql<{ readonly name: string }>`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = ${schema}`
      const texts: Array<string> = []
      for (const { name } of tables) {
        const rows = yield* sql<{ readonly row: string }>`SELECT t::text AS row FROM ${sql(`${schema}.${name}`)} t`
        texts.push(...rows.map((row) => row.row))
      }
      return texts.join("\n")
    })
  )

purgeSuite({
  name: "Postgres",
  fresh: Effect.map(freshSchema, (schema) => ({
    layer: PostgresRoot.layer(rootOptions(schema)),
    everything: everything(schema)
  }))
})
