/**
 * Forgetting that erases over the files backend: every file under the root is read back after a purge.
 */
import { NodeServices } from "@effect/platform-node"
import { FileRoot, Platform } from "@mneme/review"
import { Effect, FileSystem, Layer, Path } from "effect"
import { purgeSuite } from "./purgeSuite.ts"

/** The text of every file under `root`, one after the other. */
const everything = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const names = yield* fs.readDirectory(root, { recursive: true })
    const texts: Array<string> = []
    for (const name of names) {
      const absolute = path.join(root, name)
      if ((yield* fs.stat(absolute)).type === "File") texts.push(yield* fs.readFileString(absolute))
    }
    return texts.join("\n")
  }).pipe(Effect.provide(NodeServices.layer))

purgeSuite({
  name: "files",
  fresh: Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "mneme-purge-" })).pipe(
    Effect.map((root) => ({
      layer: FileRoot.layer({ root }).pipe(Layer.provide(Platform.layerTest()), Layer.provide(NodeServices.layer)),
      everything: everything(root)
    })),
    Effect.provide(NodeServices.layer)
  )
})
