#!/usr/bin/env node
// The installed `mneme` command: checks the Node it runs on, then runs the bundled command line (dist/cli/, built by
// the package's build). Kept in plain JavaScript that any Node parses, so an older Node gets one line that says what
// to do instead of a crash inside Effect; the bundle is loaded only after the check.
//
// The bundle's files are scripts loaded here, each with V8's code for it kept from an earlier run: Node's own compile
// cache keeps a file's code as compiled before it runs, where most functions are not compiled yet, so every run would
// compile again each function it calls; the code kept here is taken when the process ends, with every function the
// run compiled. It is kept per command (the first word of the command line), in a folder of this user's own beside
// Node's compile cache (NODE_COMPILE_CACHE, or node-compile-cache in the system's temporary folder), named for this
// Node and this install; NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's. Code V8 cannot use (another
// Node, other flags, a damaged file) is compiled afresh and kept again.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `mneme: needs Node.js 22.19 or newer, and this is ${process.version}: ` +
      "install Node.js 22.19 or newer (https://nodejs.org) and put it first on PATH\n"
  )
  process.exit(2)
}
// Taken as Node has them, not imported: an import of node:fs would load all of its promises, streams and watchers.
const fs = process.getBuiltinModule("node:fs")
const path = process.getBuiltinModule("node:path")
const vm = process.getBuiltinModule("node:vm")
const { isAscii } = process.getBuiltinModule("node:buffer")
const { createRequire } = process.getBuiltinModule("node:module")

const bundle = path.join(import.meta.dirname, "../dist/cli")
const entry = "mneme.cjs"
const requireOutside = createRequire(path.join(bundle, entry))

/** A short hash of `text` (FNV-1a), to name this install's folder. */
const hashOf = (text) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0
  return hash.toString(36)
}

/** The folder this command's code is kept in, made if need be; undefined where it is off or not this user's alone. */
const keptIn = () => {
  if ((process.env.NODE_DISABLE_COMPILE_CACHE ?? "") !== "") return undefined
  const { tmpdir } = process.getBuiltinModule("node:os")
  const user = process.getuid?.()
  const first = process.argv.slice(2).find((arg) => !arg.startsWith("-")) ?? ""
  const command = /^[a-z]{1,20}$/.test(first) ? first : "-"
  const base = process.env.NODE_COMPILE_CACHE || path.join(tmpdir(), "node-compile-cache")
  const mine = path.join(base, `mneme-${process.version}-${process.arch}-${user ?? "user"}`)
  const folder = path.join(mine, hashOf(bundle), command)
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
    // Code from this folder is run: it must be a folder of this user's that no one else can write to, in a folder no
    // one else can rename it in (one of this user's or the system's, or one whose sticky bit keeps others' names).
    const own = fs.lstatSync(mine)
    const around = fs.statSync(base)
    const ours = (stats) => stats.uid === user || stats.uid === 0
    if (!own.isDirectory()) return undefined
    if (user !== undefined && (own.uid !== user || (own.mode & 0o022) !== 0)) return undefined
    if (user !== undefined && !(ours(around) && ((around.mode & 0o022) === 0 || (around.mode & 0o1000) !== 0))) {
      return undefined
    }
    return folder
  } catch {
    return undefined
  }
}

/** A package from the install around the bundle (the optional peer @mneme/sql), imported as this file imports. */
const importOutside = (name) => import(name)

let folder
const loaded = new Map()
/** The scripts whose code is to be kept when the process ends, each with its file. */
const toKeep = []

/** Runs the bundle's file `name` (once; its exports after), with the code kept for it where there is some. */
const load = (name) => {
  const known = loaded.get(name)
  if (known !== undefined) return known.exports
  const file = path.join(bundle, name)
  const bytes = fs.readFileSync(file)
  // The entry is a few lines, compiled at once; the rest is worth its kept code.
  if (name !== entry) folder ??= keptIn() ?? null
  const kept = name === entry || folder === null ? undefined : path.join(folder, `${name}.${bytes.length}.bin`)
  let cachedData
  if (kept !== undefined) {
    try {
      cachedData = fs.readFileSync(kept)
    } catch {
      cachedData = undefined
    }
  }
  const text = bytes.toString(isAscii(bytes) ? "latin1" : "utf8").replace(/^#!/, "//")
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, importOutside) {\n${text}\n})`,
    {
      filename: file,
      lineOffset: -1,
      cachedData
    }
  )
  if (kept !== undefined && (cachedData === undefined || script.cachedDataRejected)) toKeep.push({ script, kept })
  const module = { exports: {} }
  loaded.set(name, module)
  const require = (id) => (id.startsWith("./") ? load(id.slice(2)) : requireOutside(id))
  script.runInThisContext()(module.exports, require, module, file, bundle, importOutside)
  return module.exports
}

/** Removes the code kept for files this install no longer has (an earlier build's). */
const forgetOld = () => {
  for (const name of fs.readdirSync(folder)) {
    const file = name.slice(0, name.indexOf(".cjs.") + ".cjs".length)
    if (!fs.existsSync(path.join(bundle, file))) fs.rmSync(path.join(folder, name), { force: true })
  }
}

process.on("exit", () => {
  if (toKeep.length === 0) return
  try {
    forgetOld()
  } catch {
    // What an earlier build left only takes room.
  }
  for (const { script, kept } of toKeep) {
    try {
      // Written whole under another name first, so that a run at the same time never reads half of it.
      const writing = `${kept}.${process.pid}`
      fs.writeFileSync(writing, script.createCachedData())
      fs.renameSync(writing, kept)
    } catch {
      // Kept code only saves time: without it the next run compiles again.
    }
  }
})

if (!fs.existsSync(path.join(bundle, entry))) {
  process.stderr.write(
    "mneme: the command is not built yet: run pnpm build in the checkout (or bash scripts/main.sh)\n"
  )
  process.exit(2)
}
load(entry)
