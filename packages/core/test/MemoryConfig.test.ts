import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { vi } from "vitest"

it("importing MemoryConfig, making its layer and its settings look up no time zone; reading the time zone does", async () => {
  vi.resetModules()
  const original = Intl.DateTimeFormat
  const calls: Array<string> = []
  const spy = new Proxy(original, {
    apply: (target, self, args: Array<never>) => (calls.push("call"), Reflect.apply(target, self, args)),
    construct: (target, args: Array<never>) => (calls.push("new"), Reflect.construct(target, args))
  })
  Object.defineProperty(Intl, "DateTimeFormat", { value: spy, configurable: true, writable: true })
  try {
    const MemoryConfig = await import("../src/MemoryConfig.ts")
    const layer = MemoryConfig.layer({ memoryMax: 40 })
    assert.deepStrictEqual(calls, [], "no time zone looked up at import, nor when the layer is made")
    const settings = Effect.runSync(Effect.provide(MemoryConfig.MemoryConfig, layer))
    assert.strictEqual(settings.memoryMax, 40)
    assert.deepStrictEqual(calls, [], "nor when the settings are made, nor when another setting is read")
    assert.strictEqual(settings.timeZone, original().resolvedOptions().timeZone)
    assert.isAbove(calls.length, 0)
  } finally {
    Object.defineProperty(Intl, "DateTimeFormat", { value: original, configurable: true, writable: true })
  }
})

it("a host's time zone overrides the process's own", async () => {
  const MemoryConfig = await import("../src/MemoryConfig.ts")
  assert.strictEqual(MemoryConfig.make({ timeZone: "Asia/Tokyo" }).timeZone, "Asia/Tokyo")
  const settings = Effect.runSync(Effect.provide(MemoryConfig.MemoryConfig, MemoryConfig.layer({ timeZone: "UTC" })))
  assert.strictEqual(settings.timeZone, "UTC")
})
