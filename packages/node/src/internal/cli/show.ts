/**
 * `mneme show`: the agent's own and team memory by topic, sizes against limits, what is odd about its files, and the
 * last review.
 */
import { MemoryConfig, Scope, Secret, Text } from "@mneme/core"
import { type MemoryRoot, MemoryStore, ReviewState } from "@mneme/review"
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Txt from "../text.ts"
import { memoryLocation, mneme, output, print, printJson, withMemoryToRead } from "./common.ts"

/**
 * A memory file as `show` gives it: its entries up to its size (a hand-edited file far past it is not printed
 * whole), each masked where it looks secret, and how many were not shown.
 */
const showFile = (file: MemoryRoot.StoredFile, settings: MemoryConfig.Settings) => {
  const limit = file.topic === undefined ? settings.memoryMax : settings.topicMax
  const entries = file.parsed.entries
  const within = Txt.entriesWithin(
    entries.map((entry) => Text.length(entry.text)),
    limit
  )
  return {
    file: file.file,
    topic: file.topic ?? null,
    size: file.size,
    limit,
    entries: entries.slice(0, within).map((entry) => {
      const looksSecret = Secret.looksSecret(entry.text)
      return {
        text: looksSecret ? Secret.redact(entry.text) : entry.text,
        meta: Object.fromEntries(entry.meta),
        looksSecret
      }
    }),
    notShown: entries.length - within + (file.omitted ?? 0)
  }
}

export const show = Command.make(
  "show",
  {},
  Effect.fn("mneme.show")(function* () {
    const global = yield* mneme
    const { shown } = yield* memoryLocation
    const out = yield* output
    const settings = yield* MemoryConfig.MemoryConfig
    const store = yield* MemoryStore.MemoryStore
    const cursors = yield* ReviewState.ReviewState
    // Of a file past its size, only what is shown is read (its first entries within its size).
    const sizes = MemoryStore.withinSizes(settings)
    const scopes = [
      { name: "own", view: yield* store.load(Scope.own(global.agent), sizes) },
      { name: "team", view: yield* store.load(Scope.team, sizes) }
    ]
    const lastReview = yield* cursors.lastReview(global.agent)
    const document = {
      memory: shown,
      agent: global.agent,
      scopes: scopes.map(({ name, view }) => ({
        scope: name,
        topics: view.files.length - 1,
        topicsMax: settings.topicsMax,
        files: view.files.map((file) => showFile(file, settings)),
        unlinked: view.unlinked.map((file) => file.file),
        unreadable: view.unreadable.map((file) => ({ file: file.file, reason: file.error.message }))
      })),
      lastReview
    }
    if (out.json) return yield* printJson(document)
    const p = out.paint
    const lines: Array<string> = [p.bold(`Memory in ${shown} for agent ${JSON.stringify(global.agent)}`)]
    for (const scope of document.scopes) {
      lines.push(
        "",
        p.bold(`${scope.scope === "own" ? "Own" : "Team"} memory`) +
          p.dim(` (${Txt.size(scope.topics, scope.topicsMax)} topics)`)
      )
      for (const file of scope.files) {
        const name = file.topic === null ? "MEMORY.md" : `topic ${file.topic}`
        const full = file.size > file.limit ? p.red : file.size > file.limit * 0.9 ? p.yellow : (t: string) => t
        lines.push(`  ${Txt.pad(name, 40)}${full(Txt.padStart(Txt.size(file.size, file.limit), 18))}`)
        if (file.size > file.limit) {
          lines.push(p.red(`    ! over its size of ${Txt.count(file.limit)} characters: remove or shorten entries`))
        }
        if (file.entries.length === 0 && file.notShown === 0) lines.push(p.dim("    (no entries)"))
        for (const entry of file.entries) {
          const meta = Object.entries(entry.meta).map(([key, value]) => `${key}: ${value}`)
          lines.push(`    - ${entry.text}${meta.length === 0 ? "" : p.dim(`  [${meta.join("; ")}]`)}`)
          if (entry.looksSecret) {
            lines.push(p.red("      ! this entry looks like a secret (masked here): memory should not keep it"))
          }
        }
        if (file.notShown > 0) {
          lines.push(p.dim(`    … ${Txt.plural(file.notShown, "more entry", "more entries")} past its size, not shown`))
        }
      }
      for (const file of scope.unlinked) {
        lines.push(p.yellow(`  ! ${file} is not linked from MEMORY.md's index (the next entry added to it links it)`))
      }
      for (const { file, reason } of scope.unreadable) {
        lines.push(p.red(`  ! ${file} could not be read, and is left out: ${reason}`))
      }
    }
    lines.push(
      "",
      `Last review: ${
        lastReview === null
          ? "never"
          : `${Txt.time(lastReview.at)}, ${lastReview.ok ? p.green("ok") : p.red(`failed: ${lastReview.reason ?? "unknown"}`)}`
      }`
    )
    yield* print(lines)
  }, withMemoryToRead)
).pipe(
  Command.withDescription(
    "Show the agent's own and team memory: entries by topic, sizes against limits, the last review"
  )
)
