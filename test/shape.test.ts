/**
 * The shape of the library (docs/design.md, "The shape"): the pure core and the services import nothing from `node:`,
 * no package's modules import each other in a cycle, the core keeps no state at module level, and no module is over
 * 400 lines. Read from the sources, so a change that breaks the shape fails here.
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

/** A module's source without its comments (each replaced by as many spaces, so lines stay where they are). */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (comment) => comment.replace(/[^\n]/g, " "))

/** The declarations of named types in `files`: each name and the text of each of its declarations (an interface's
 * block, a type's right side up to the next line starting at the margin). */
const typeDeclarations = (files: ReadonlyArray<string>): ReadonlyMap<string, ReadonlyArray<string>> => {
  const found = new Map<string, Array<string>>()
  const add = (name: string, text: string) => found.set(name, [...(found.get(name) ?? []), text])
  for (const file of files) {
    const text = withoutComments(readFileSync(file, "utf8"))
    for (const match of text.matchAll(/^(?:export )?interface (\w+)[^{\n]*\{\n([\s\S]*?)\n\}/gm)) {
      add(match[1]!, `{\n${match[2]}\n}`)
    }
    for (const match of text.matchAll(/^(?:export )?type (\w+)(?:<[^=]*>)? =([\s\S]*?)\n(?=\S|\n)/gm)) {
      add(match[1]!, match[2]!)
    }
  }
  return found
}

/** Collections that can be written to, by the name of their type or constructor. */
const MUTABLE =
  /(?<![\w.])(?:Array|Map|Set|WeakMap|WeakSet|Record|ArrayBuffer|(?:Int|Uint|Float|BigInt|BigUint)(?:8|16|32|64)(?:Clamped)?Array)\b(?!\.)/

/** Whether a type (as written) lets nothing write to a value of it: no mutable collection, no member of an object type
 * without `readonly`, and every named type it uses of `types` the same. What a function takes is not looked at. */
const readOnly = (
  written: string,
  types: ReadonlyMap<string, ReadonlyArray<string>>,
  seen: ReadonlySet<string> = new Set()
): boolean => {
  let type = written
  for (let before = ""; before !== type;) {
    before = type
    type = type.replace(/\([^()]*\)\s*=>/g, "=>") // a function's parameters
  }
  if (/\w\[\]/.test(type) || MUTABLE.test(type.replace(/\bReadonly(?:Array|Map|Set)?<(?:Record\b)?/g, "<")))
    return false
  for (const block of type.match(/\{[^{}]*\}/g) ?? []) {
    for (const member of block.slice(1, -1).split(/[\n;,]/)) {
      if (/^\s*(?:[\w$]+\??\s*:|\[[^\]]*\]\s*:)/.test(member)) return false // a member without `readonly`
    }
  }
  for (const [name] of type.matchAll(/\b[A-Z]\w*\b(?!\.)/g)) {
    if (seen.has(name)) continue
    const inner = new Set([...seen, name])
    if (!(types.get(name) ?? []).every((declared) => readOnly(declared, types, inner))) return false
  }
  return true
}

/** What a value made this way is: writable, whatever its annotation says it may be read as. */
const MAKES_MUTABLE =
  /^(?:new (?:Map|Set|WeakMap|WeakSet|Array|ArrayBuffer|(?:Int|Uint|Float|BigInt|BigUint)(?:8|16|32|64)(?:Clamped)?Array)\b|Map\.groupBy\(|Object\.fromEntries\(|Array\.(?:from|of)\(|\[|\{)/

/** A pattern that keeps where it stopped (`lastIndex`) from one use to the next: a global or sticky regular expression,
 * as a literal or made by `new RegExp` with its flags. */
const KEEPS_POSITION = /^(?:\/(?:[^/\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+\/[a-z]*[gy]|new RegExp\(.*,\s*["'`][a-z]*[gy])/

/**
 * The state a module keeps at its top level, as `file:line: text`: a `let` or `var`; a `const` whose value can be
 * written (a collection or an object or array literal) unless its type lets nothing write to it (a read-only table
 * built by a function, a `ReadonlyMap`); a global or sticky regular expression, whatever its type (its `lastIndex`
 * moves as it is used); and any statement other than a declaration, which could write to one at load.
 */
const moduleStateOf = (
  text: string,
  file: string,
  types: ReadonlyMap<string, ReadonlyArray<string>>
): Array<string> => {
  const found: Array<string> = []
  withoutComments(text)
    .split("\n")
    .forEach((line, index) => {
      const at = `${relative(repo, file)}:${index + 1}: ${line.trim()}`
      if (/^(?:export )?(?:let|var)\b/.test(line)) return void found.push(at)
      const binding = /^(?:export )?const [\w$]+(?:: (.+?))? = (.*)$/.exec(line)
      if (binding !== null) {
        const [, type, value] = binding
        if (KEEPS_POSITION.test(value!)) found.push(at)
        else if (MAKES_MUTABLE.test(value!) && (type === undefined || !readOnly(type, types))) found.push(at)
        return
      }
      if (/^(?:for|while|do|if|switch|try)\b|^[\w$]+\s*(?:[.[(]|[-+*/|&]?=[^=>])/.test(line)) {
        if (!/^(?:import|export|const|type|interface|function|class|declare|enum)\b/.test(line)) found.push(at)
      }
    })
  return found
}

/** The state `file` keeps at its top level (see `moduleStateOf`). */
const moduleState = (file: string, types: ReadonlyMap<string, ReadonlyArray<string>>): Array<string> =>
  moduleStateOf(readFileSync(file, "utf8"), file, types)

/** The members a service's shape (`Context.Service<Self, { … }>`) declares optional, as `file: name`. Only the shape's
 * own members count: an optional field of an argument a method takes is a choice its caller has, not a method that may
 * be missing. */
const optionalMembersOf = (text: string, file: string): Array<string> => {
  const found: Array<string> = []
  const code = withoutComments(text)
  for (const start of code.matchAll(/Context\.Service<\s*\w+\s*,\s*\{/g)) {
    let depth = 1
    let member = ""
    for (let at = start.index + start[0].length; at < code.length && depth > 0; at++) {
      const char = code[at]!
      if (char === "{" || char === "(" || char === "[" || char === "<") depth++
      else if (char === "}" || char === ")" || char === "]" || (char === ">" && code[at - 1] !== "=")) depth--
      if (depth === 1 && char === "\n") {
        const optional = /^\s*(?:readonly\s+)?([\w$]+)\?\s*:/.exec(member)
        if (optional !== null) found.push(`${relative(repo, file)}: ${optional[1]}`)
        member = ""
      } else if (depth === 1) member += char
    }
  }
  return found
}

/** What a package exports that lives under `internal/`: its `package.json` exports and its index's re-exports. */
const internalExports = (name: string): Array<string> => {
  const root = join(repo, "packages", name)
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { readonly exports?: unknown }
  const exported = JSON.stringify(manifest.exports ?? {})
    .split('"')
    .filter((value) => value.includes("internal"))
  const index = specifiers(join(root, "src", "index.ts")).filter((specifier) => specifier.includes("internal"))
  return [...exported, ...index].map((found) => `${name}: ${found}`)
}

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

  it("the core keeps no state at module level: no let, no writable collection, no statement run at load", () => {
    const files = sources(packages[0]!)
    const types = typeDeclarations(files)
    assert.deepStrictEqual(
      files.flatMap((file) => moduleState(file, types)),
      []
    )
  })

  it("the module state check finds state where there is some, and leaves read-only tables alone", () => {
    const types = new Map([
      ["Table", ["{\n  readonly [index: number]: number\n}"]],
      ["Rule", ["{\n  readonly name: string\n  readonly scan: (scan: Scan, at: number) => void\n}"]],
      ["Scan", ["{\n  found: Array<number>\n}"]],
      ["Loose", ["{\n  name: string\n}"]],
      ["Pair", [" readonly [key: string, value: string]"]]
    ])
    const kept = [
      "const TABLE: Table = table()",
      "const WORDS: ReadonlySet<string> = new Set(list)",
      "const BY_FIRST: ReadonlyMap<number, ReadonlyArray<Rule>> = Map.groupBy(rules, first)",
      'export const rule: Rule = { name: "x", scan }',
      "const PAIRS: ReadonlyArray<Pair> = []",
      'const mask = "[secret]"',
      "const word = /[a-z/]+\\/g/u",
      'const pattern = new RegExp(source, "u")',
      "const is = (c: number) => c > 0",
      "export const layer = Layer.effect(Tag, make)"
    ]
    const state = [
      "let index = 0",
      "export let count = 0",
      "var seen = 0",
      "const cache = new Map<string, string>()",
      "const seen: Set<string> = new Set()",
      "const buffers = { start: new Int32Array(16) }",
      "const table = new Uint8Array(256)",
      "const names = []",
      'const loose: Loose = { name: "x" }',
      "const labels: Record<string, string> = {",
      "const grouped = Map.groupBy(rules, first)",
      "const list: Array<string> = []",
      "const list: string[] = []",
      "const token = /[A-Za-z]+|[0-9]+/g",
      "const run = /[a-z/]+\\/x/gu",
      "const sticky: Readonly<RegExp> = /a/y",
      'const pattern = new RegExp(source, "gu")',
      "TABLE[64] = 1",
      "mark(SPACE, [32])",
      "for (const c of units) table[c] = 1",
      "cache.set(key, value)"
    ]
    const check = (line: string) => moduleStateOf(line, join(repo, "test", "example.ts"), types)
    for (const line of kept) assert.deepStrictEqual(check(line), [], line)
    for (const line of state) assert.strictEqual(check(line).length, 1, line)
  })

  it("no module of any package is over 400 lines", () => {
    const long = readdirSync(join(repo, "packages"))
      .flatMap((name) => sources(join(repo, "packages", name, "src")))
      .filter((file) => readFileSync(file, "utf8").split("\n").length - 1 > 400)
      .map((file) => relative(repo, file))
    assert.deepStrictEqual(long, [])
  })

  it("no service's shape has an optional member: a port's maker fills what a host leaves out", () => {
    const optional = readdirSync(join(repo, "packages")).flatMap((name) =>
      sources(join(repo, "packages", name, "src")).flatMap((file) =>
        optionalMembersOf(readFileSync(file, "utf8"), file)
      )
    )
    assert.deepStrictEqual(optional, [])
  })

  it("the optional member check finds a shape's own optional members and leaves its arguments' alone", () => {
    const file = join(repo, "test", "example.ts")
    const shape = (members: string) =>
      `export class Port extends Context.Service<\n  Port,\n  {\n${members}\n  }\n>()("@mneme/Port") {}\n`
    assert.deepStrictEqual(optionalMembersOf(shape("    readonly read?: () => Effect.Effect<string>"), file), [
      "test/example.ts: read"
    ])
    assert.deepStrictEqual(optionalMembersOf(shape("    write?: (text: string) => Effect.Effect<void>"), file), [
      "test/example.ts: write"
    ])
    const kept = [
      "    readonly read: () => Effect.Effect<string>",
      "    readonly list: (options?: {\n      readonly limit?: number\n    }) => Effect.Effect<Array<string>>",
      "    /** A map<string, number> of names?: none */\n    readonly names: Map<string, number>",
      "    readonly pick: (a: number) => Effect.Effect<{ readonly b?: string }>"
    ]
    for (const members of kept) assert.deepStrictEqual(optionalMembersOf(shape(members), file), [], members)
  })

  it("no package exports a module of its internal/ folder", () => {
    const packagesAll = readdirSync(join(repo, "packages"))
    assert.isAbove(packagesAll.length, 3)
    assert.deepStrictEqual(packagesAll.flatMap(internalExports), [])
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
