/**
 * The bundled `mneme` command in dist/cli/, which bin/mneme.js runs: built by `pnpm build` from the compiled
 * dist/bin.js, with effect and the workspace's packages in it (but @mneme/sql, an optional peer loaded on demand), each command in a chunk of its own that is loaded only
 * when that command runs. A few files, minified, start in a fraction of the time Node takes to load the same code as
 * its hundreds of modules (`pnpm bench cli` measures it). Names are kept, so a stack trace (`--verbose`) still reads.
 */
import { defineConfig } from "rolldown"

export default defineConfig({
  input: { mneme: "dist/bin.js" },
  platform: "node",
  // The Postgres backend is an optional peer: loaded on demand from the host's own install, never part of the bundle.
  external: ["@mneme/sql"],
  // This package's modules only define things when loaded (the entry alone runs), so a module none of whose exports a
  // chunk uses is left out of it: the commands' modules, which Cli.ts re-exports from, stay in chunks of their own.
  treeshake: { moduleSideEffects: [{ test: /packages[\\/]node[\\/]dist[\\/](?!bin\.js$)/, sideEffects: false }] },
  output: {
    dir: "dist/cli",
    cleanDir: true,
    format: "esm",
    minify: { compress: true, mangle: false, codegen: true },
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js"
  }
})
