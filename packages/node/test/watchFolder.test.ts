/**
 * What `mneme watch` makes of two looks at a folder: files that appeared, grew, were cut, renamed, rotated (moved to a
 * new name while a new file takes the old one), rewritten whole under their name, or vanished.
 */
import { assert, describe, it } from "@effect/vitest"
import * as WatchFolder from "../src/internal/watchFolder.ts"

const file = (size: number, identity: string | undefined, mtime = 1) => ({ size, mtime, identity })
const snapshot = (entries: Record<string, WatchFolder.Seen>): WatchFolder.Snapshot => new Map(Object.entries(entries))
const none = { appeared: [], changed: [], replaced: [], renamed: [], vanished: [] }

describe("WatchFolder.diff", () => {
  it("files that appear, grow, change in place, are cut, or vanish", () => {
    const before = snapshot({ a: file(10, "1"), b: file(10, "2"), c: file(10, "3"), d: file(10, "4"), e: file(5, "5") })
    const after = snapshot({
      a: file(10, "1"),
      b: file(12, "2"),
      c: file(10, "3", 2),
      d: file(4, "4"),
      f: file(1, "6")
    })
    assert.deepStrictEqual(WatchFolder.diff(before, after), {
      ...none,
      appeared: ["f"],
      changed: ["b", "c"],
      replaced: ["d"],
      vanished: ["e"]
    })
    assert.deepStrictEqual(WatchFolder.diff(after, after), none)
  })

  it("a file renamed keeps being the same file; rotated, its old name holds a new one", () => {
    const before = snapshot({ "a.log": file(10, "1") })
    assert.deepStrictEqual(WatchFolder.diff(before, snapshot({ "b.log": file(10, "1") })), {
      ...none,
      renamed: [{ from: "a.log", to: "b.log" }],
      vanished: ["a.log"]
    })
    assert.deepStrictEqual(WatchFolder.diff(before, snapshot({ "a.log": file(30, "2"), "a.log.1": file(10, "1") })), {
      ...none,
      replaced: ["a.log"],
      renamed: [{ from: "a.log", to: "a.log.1" }]
    })
  })

  it("a file written whole again under its name (a new file on the disk), and longer, has changed", () => {
    const before = snapshot({ "chat.json": file(10, "1") })
    assert.deepStrictEqual(WatchFolder.diff(before, snapshot({ "chat.json": file(20, "2") })), {
      ...none,
      changed: ["chat.json"]
    })
    // Where the platform does not say which file is which, sizes still tell.
    const blind = snapshot({ x: file(10, undefined) })
    assert.deepStrictEqual(WatchFolder.diff(blind, snapshot({ x: file(3, undefined) })), { ...none, replaced: ["x"] })
    assert.deepStrictEqual(WatchFolder.diff(blind, snapshot({ y: file(10, undefined) })), {
      ...none,
      appeared: ["y"],
      vanished: ["x"]
    })
  })
})
