/**
 * The shape of the library (docs/design.md, "The shape"): the pure core and the services import nothing from `node:`, and
 * no package's modules import each other in a cycle. Read from the sources, so a change that breaks the shape fails
 * here.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repo = fileURLToPath(new URL("..", import.meta.url))

/** Every `.ts` file under `dir`, absolute. */
const sources = (dir: string): Array<string> =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(dir, name))

/** The module specifiers a file imports or re-exports (static and dynamic). */
const specifiers = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  const found: Array<string> = []
  for (const match of text.matchAll(/^(?:import|export)[^"]*?from "([^"]+)"/gm)) found.push(match[1]!)
  for (const match of text.matchAll(/^import "([^"]+)"/gm)) found.push(match[1]!)
  for (const match of text.matchAll(/import\("([^"]+)"\)/g)) found.push(match[1]!)
  return found
}

/** The import graph of a package's sources: each file and the files of the package it imports. */
const graph = (dir: string): Map<string, Array<string>> =>
  new Map(
    sources(dir).map((file) => [
      file,
      specifiers(file)
        .filter((specifier) => specifier.startsWith("."))
        .map((specifier) => resolve(dirname(file), specifier))
    ])
  )

/** A cycle of the graph, as the files in it (the first again at the end), or `undefined`. */
const cycleOf = (edges: Map<string, Array<string>>): Array<string> | undefined => {
  const done = new Set<string>()
  const path: Array<string> = []
  const visit = (file: string): Array<string> | undefined => {
    const at = path.indexOf(file)
    if (at !== -1) return [...path.slice(at), file]
    if (done.has(file)) return undefined
    path.push(file)
    for (const next of edges.get(file) ?? []) {
      const cycle = visit(next)
      if (cycle !== undefined) return cycle
    }
    path.pop()
    done.add(file)
    return undefined
  }
  for (const file of edges.keys()) {
    const cycle = visit(file)
    if (cycle !== undefined) return cycle
  }
  return undefined
}

const packages = ["core", "review", "node"].map((name) => join(repo, "packages", name, "src"))

describe("the shape of the library", () => {
  it("the core and the services import nothing from node:", () => {
    for (const dir of packages.slice(0, 2)) {
      const platform = sources(dir).flatMap((file) =>
        specifiers(file)
          .filter((specifier) => specifier.startsWith("node:"))
          .map((specifier) => `${relative(repo, file)}: ${specifier}`)
      )
      assert.deepStrictEqual(platform, [])
    }
  })

  it("no package's modules import each other in a cycle", () => {
    for (const dir of packages) {
      const edges = graph(dir)
      assert.isAbove(edges.size, 5)
      assert.isAbove([...edges.values()].flat().length, 5)
      assert.deepStrictEqual(
        cycleOf(edges)?.map((file) => relative(repo, file)),
        undefined
      )
    }
  })

  it("the cycle check finds a cycle where there is one", () => {
    const edges = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", []]
    ])
    assert.deepStrictEqual(cycleOf(edges), ["a", "b", "c", "a"])
    assert.isUndefined(
      cycleOf(
        new Map([
          ["a", ["b"]],
          ["b", []]
        ])
      )
    )
  })
})
