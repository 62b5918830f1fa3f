/**
 * The memory store's suite over both backends of the storage port: a folder, and a Postgres schema.
 */
import { NodeServices } from "@effect/platform-node"
import { FileRoot, Platform } from "@mneme/review"
import { PostgresRoot } from "@mneme/sql"
import { Effect, FileSystem, Layer } from "effect"
import { storeSuite } from "../../review/test/storeSuite.ts"
import { freshSchema, rootOptions } from "./fixtures/postgres.ts"

storeSuite({
  name: "files",
  fresh: Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "mneme-suite-" })).pipe(
    Effect.map((root) =>
      FileRoot.layer({ root }).pipe(Layer.provide(Platform.layerTest()), Layer.provide(NodeServices.layer))
    ),
    Effect.provide(NodeServices.layer)
  )
})

storeSuite({
  name: "Postgres",
  fresh: Effect.map(freshSchema, (schema) => PostgresRoot.layer(rootOptions(schema)))
})
