/** `NodePlatform`'s SHA-256, which loads node:crypto on its first use: the digest of the text's UTF-8 bytes, in hex. */
import { assert, it } from "@effect/vitest"
import { Platform } from "@mneme/review"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { NodePlatform } from "../src/index.ts"

it.effect("hashes a text's UTF-8 bytes with SHA-256, as hexadecimal", () =>
  Effect.gen(function* () {
    const platform = yield* Platform.Platform
    assert.strictEqual(platform.sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    for (const text of ["", "Ada Lovelace", "ünï 😀 中"]) {
      assert.strictEqual(platform.sha256(text), createHash("sha256").update(text, "utf8").digest("hex"))
    }
  }).pipe(Effect.provide(NodePlatform.layer))
)
