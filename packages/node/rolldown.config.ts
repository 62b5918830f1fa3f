/**
 * The bundled `mneme` command in dist/cli/, which bin/mneme.js runs: built by `pnpm build` from the compiled
 * dist/bin.js, with effect and the workspace's packages in it (but @mneme/sql, an optional peer loaded on demand),
 * each command in a chunk of its own that is loaded only when that command runs. A few scripts, minified, start in a
 * fraction of the time Node takes to load the same code as its hundreds of modules, and bin/mneme.js keeps V8's code
 * for them from run to run (`pnpm bench cli` measures both). Names are kept, so a stack trace (`--verbose`) still
 * reads. The plugins below keep what a command needs only sometimes from being made or loaded as it starts.
 */
import { defineConfig, type Plugin } from "rolldown"

/**
 * effect's help formatter makes an `Intl.Segmenter` when its module loads, for help text only; the first segmenter a
 * process makes costs it some 10–20 ms (ICU's data), so in the bundle it is made on first use instead. The build
 * fails if effect's code no longer reads as expected, rather than leave the cost in unnoticed.
 */
const lazySegmenter: Plugin = {
  name: "mneme-lazy-segmenter",
  transform: {
    filter: { id: /[\\/]effect[\\/]dist[\\/]cli[\\/]CliOutput\.js$/ },
    handler(code, id) {
      const made = /const graphemeSegmenter = \/\*#__PURE__\*\/\s*new Intl\.Segmenter\(([^)]*)\);/
      if (!made.test(code)) throw new Error(`${id}: its Intl.Segmenter is not where the build expects it`)
      return code.replace(
        made,
        (_, options: string) =>
          `let graphemeSegmenterMade;\n` +
          `const graphemeSegmenter = { segment: (text) => (graphemeSegmenterMade ??= new Intl.Segmenter(${options})).segment(text) };`
      )
    }
  }
}

/** Node's modules that take milliseconds to load and that a command needs only for some of its work. */
const costlyBuiltins = new Set(["node:child_process", "node:crypto", "node:readline"])

const builtinImport = /^import (?:\* as (\w+)|\{([^}]*)\}) from "(node:[\w/]+)";?$/gm

/**
 * Node's own modules as effect's Node services and this workspace's modules take them, by `process.getBuiltinModule`
 * instead of an import: an import of a Node module builds its module namespace, which loads every part of it that
 * Node loads on first use (all of `node:fs`'s promises, streams and watchers; all of `node:crypto`'s web crypto). The
 * costly ones (`costlyBuiltins`), imported whole, are loaded on first use: the child-process spawner, the terminal's
 * line reader and the temporary file's random name each load theirs only when a command uses them.
 */
const builtinsOnUse: Plugin = {
  name: "mneme-builtins-on-use",
  transform: {
    filter: {
      id: /[\\/](?:effect|@effect[\\/]platform-node(?:-shared)?)[\\/]dist[\\/]|[\\/]packages[\\/]\w+[\\/]dist[\\/]/
    },
    handler(code) {
      if (!code.includes('from "node:')) return null
      return code.replace(builtinImport, (_, whole: string | undefined, names: string | undefined, module: string) => {
        const loaded = `process.getBuiltinModule(${JSON.stringify(module)})`
        if (whole === undefined) return `const {${names!.replaceAll(" as ", ": ")}} = ${loaded};`
        return costlyBuiltins.has(module)
          ? `const ${whole} = /* @__PURE__ */ new Proxy({}, { get: (_, key) => ${loaded}[key] });`
          : `const ${whole} = ${loaded};`
      })
    }
  }
}

/** The packages the bundle imports from the install around it: the optional peer that holds the Postgres backend. */
const outside = ["@mneme/sql"]

/**
 * The bundle's files are scripts that bin/mneme.js compiles itself, where an `import()` needs an experimental part of
 * Node: an import of a package from outside is made by bin/mneme.js instead, through `importOutside`, which it gives
 * every file beside `require`. The build fails if there is no such import to change, rather than bundle one unseen.
 */
const importsOutside = (): Plugin => {
  const changed = new Set<string>()
  return {
    name: "mneme-imports-outside",
    transform: {
      filter: { id: /[\\/]packages[\\/]node[\\/]dist[\\/]/ },
      handler(code) {
        let text = code
        for (const name of outside) {
          const imported = `import(${JSON.stringify(name)})`
          if (text.includes(imported)) changed.add(name)
          text = text.replaceAll(imported, `importOutside(${JSON.stringify(name)})`)
        }
        return text === code ? null : text
      }
    },
    buildEnd() {
      const unseen = outside.filter((name) => !changed.has(name))
      if (unseen.length > 0)
        throw new Error(`no import() of ${unseen.join(", ")} was found to make through bin/mneme.js`)
    }
  }
}

/**
 * @effect/platform-node loads undici through a module of its own that re-exports all of undici, a CommonJS package;
 * in scripts the bundle gives that module's default alone. It loads undici itself instead, which gives its exports as
 * the module did. The build fails if platform-node no longer loads undici that way.
 */
const undiciWhole = (): Plugin => {
  let changed = 0
  return {
    name: "mneme-undici-whole",
    transform: {
      filter: { id: /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]\w+\.js$/ },
      handler(code) {
        if (!code.includes('import("./Undici.js")')) return null
        changed++
        return code.replaceAll('import("./Undici.js")', 'import("undici")')
      }
    },
    buildEnd() {
      if (changed === 0) throw new Error('@effect/platform-node no longer loads undici by import("./Undici.js")')
    }
  }
}

export default defineConfig({
  input: { mneme: "dist/bin.js" },
  platform: "node",
  // The Postgres backend is an optional peer: loaded on demand from the host's own install, never part of the bundle.
  external: outside,
  plugins: [lazySegmenter, builtinsOnUse, importsOutside(), undiciWhole()],
  // effect reads `import.meta?.env` where there is one; a script has none, as Node's modules have no `env` there.
  onLog: (level, log, handler) => {
    if (log.code === "EMPTY_IMPORT_META" && /[\\/]effect[\\/]dist[\\/]ConfigProvider\.js$/.test(log.id ?? "")) return
    handler(level, log)
  },
  // This package's modules only define things when loaded (the entry alone runs), so a module none of whose exports a
  // chunk uses is left out of it: the commands' modules, which Cli.ts re-exports from, stay in chunks of their own.
  treeshake: { moduleSideEffects: [{ test: /packages[\\/]node[\\/]dist[\\/](?!bin\.js$)/, sideEffects: false }] },
  output: {
    dir: "dist/cli",
    cleanDir: true,
    // Scripts, which bin/mneme.js compiles itself so as to keep each one's code from run to run (see there).
    format: "cjs",
    // Source text V8 keeps as one byte a character, read and compiled faster than text with a character past ASCII.
    charset: "ascii",
    minify: { compress: true, mangle: false, codegen: true },
    entryFileNames: "[name].cjs",
    chunkFileNames: "[name]-[hash].cjs"
  }
})
