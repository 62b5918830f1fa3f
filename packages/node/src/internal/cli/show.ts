/**
 * `mneme show`: the agent's own and team memory by topic, sizes against limits, what is odd about its files (an entry
 * that looks secret, or that reads as an instruction to the agent, quoted and flagged), and the last review; with `--sources`, under each entry the transcript line its source cites, read from the folder of
 * transcripts `--transcripts` names.
 */
import { Instruction, Lines, MemoryConfig, MemoryScope, Secret, Text } from "@mneme/core"
import { type MemoryRoot, MemoryStore, ReviewState } from "@mneme/review"
import { Effect, Option, Path } from "effect"
import { Command, Flag } from "effect/cli"
import * as SourceLines from "../sourceLines.ts"
import * as Txt from "../text.ts"
import {
  memoryLocation,
  mneme,
  output,
  print,
  printJson,
  switchFlag,
  textFlag,
  UsageError,
  withMemoryToRead
} from "./common.ts"

/** An entry as `show` gives it: with `--sources`, each line its source cites. */
interface ShownEntry {
  readonly text: string
  readonly meta: Readonly<Record<string, string>>
  readonly looksSecret: boolean
  /** Why the entry reads as an instruction to the agent rather than a fact, or null. */
  readonly instruction: string | null
  readonly sources?: ReadonlyArray<Cited>
}

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
    entries: entries.slice(0, within).map((entry): ShownEntry => {
      const looksSecret = Secret.looksSecret(entry.text)
      const flag = Instruction.check(entry.text)
      return {
        text: looksSecret ? Secret.redact(entry.text) : entry.text,
        meta: Object.fromEntries(entry.meta),
        looksSecret,
        instruction: flag === undefined ? null : Lines.mask(Instruction.describe(flag), settings)
      }
    }),
    notShown: entries.length - within + (file.omitted ?? 0)
  }
}

/** How many code points of a cited line `show` prints (keeping both ends of a user's line, as a review does). */
const shownLineMax = 300

/** A line an entry's source cites, as `show --sources` gives it: the line, or why it is not shown. */
interface Cited {
  readonly anchor: string
  /** The transcript file's name, where the folder has it. */
  readonly transcript: string | null
  readonly line: Lines.Line | null
  readonly problem: string | null
}

/** A cited line as `show --json` gives it: its text masked for secrets, whole. */
const lineJson = (line: Lines.Line, settings: MemoryConfig.Settings): Lines.Line => ({
  seq: line.seq,
  who: line.who,
  ...(line.name === undefined ? {} : { name: line.name }),
  ...(line.kind === undefined ? {} : { kind: line.kind }),
  text: Lines.mask(line.text, settings)
})

/** Each line an entry's source cites, as `show --sources` gives it: the line, or why it is not shown. */
const citedLines = Effect.fnUntraced(function* (
  source: string | undefined,
  reader: SourceLines.Reader,
  settings: MemoryConfig.Settings
) {
  const path = yield* Path.Path
  return yield* Effect.forEach(SourceLines.anchorsOf(source ?? ""), (anchor) =>
    Effect.map(reader.find(anchor), (found): Cited =>
      found._tag === "Line"
        ? {
            anchor: anchor.anchor,
            transcript: path.basename(found.file),
            line: lineJson(found.around.line, settings),
            problem: null
          }
        : {
            anchor: anchor.anchor,
            transcript: "file" in found ? path.basename(found.file) : null,
            line: null,
            problem: SourceLines.problemOf(anchor, found, path)
          }
    )
  )
})

/** What `show --sources` says without the folder of transcripts to read the lines from. */
const sourcesNeedTranscripts =
  "--sources needs --transcripts DIR: the folder of the JSONL transcripts the entries cite (a source chat #3 is " +
  "line 3 of DIR/chat.jsonl, as mneme review names a transcript by its file's base name)"

/** A cited line as `show` prints it: labelled as a review labels it, quoted, cut, its secrets masked. */
const shownLine = (line: Lines.Line, agent: string, settings: MemoryConfig.Settings) => {
  const cut = Lines.cut(line, { ...settings, userLineMax: shownLineMax, otherLineMax: shownLineMax })
  return `${Lines.label(line, agent)}: ${JSON.stringify(cut)}`
}

/** Runs `show` over the memory of `--memory`, the transcripts it opens kept open until it is done. */
const withMemoryScoped = <A, E, R>(effect: Effect.Effect<A, E, R>) => withMemoryToRead(Effect.scoped(effect))

/** `show` itself, once its flags are known to go together. */
const showMemory = Effect.fn("mneme.show")(function* (input: {
  readonly sources: boolean
  readonly transcripts: Option.Option<string>
}) {
  const global = yield* mneme
  const { shown } = yield* memoryLocation
  const out = yield* output
  const settings = yield* MemoryConfig.MemoryConfig
  const store = yield* MemoryStore.MemoryStore
  const cursors = yield* ReviewState.ReviewState
  // Of a file past its size, only what is shown is read (its first entries within its size).
  const sizes = MemoryStore.withinSizes(settings)
  const scopes = [
    { name: "own", view: yield* store.load(MemoryScope.own(global.agent), sizes) },
    { name: "team", view: yield* store.load(MemoryScope.team, sizes) }
  ]
  const lastReview = yield* cursors.lastReview(global.agent)
  const reader = Option.isSome(input.transcripts) ? yield* SourceLines.reader(input.transcripts.value) : undefined
  const withSources = (file: ReturnType<typeof showFile>) =>
    reader === undefined
      ? Effect.succeed(file)
      : Effect.map(
          Effect.forEach(file.entries, (entry) =>
            Effect.map(citedLines(entry.meta["source"], reader, settings), (sources): ShownEntry => ({
              ...entry,
              sources
            }))
          ),
          (entries) => ({ ...file, entries })
        )
  const document = {
    memory: shown,
    agent: global.agent,
    scopes: yield* Effect.forEach(scopes, ({ name, view }) =>
      Effect.map(
        Effect.forEach(view.files, (file) => withSources(showFile(file, settings))),
        (files) => ({
          scope: name,
          topics: view.files.length - 1,
          topicsMax: settings.topicsMax,
          files,
          unlinked: view.unlinked.map((file) => file.file),
          unreadable: view.unreadable.map((file) => ({ file: file.file, reason: file.error.message }))
        })
      )
    ),
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
        const text = entry.instruction === null ? entry.text : JSON.stringify(entry.text)
        lines.push(`    - ${text}${meta.length === 0 ? "" : p.dim(`  [${meta.join("; ")}]`)}`)
        if (entry.instruction !== null) {
          lines.push(p.yellow(`      ! ${entry.instruction}: the agent is shown it as data and told not to follow it`))
        }
        if (entry.looksSecret) {
          lines.push(p.red("      ! this entry looks like a secret (masked here): memory should not keep it"))
        }
        for (const cited of entry.sources ?? []) {
          lines.push(
            cited.line === null
              ? `      ${p.dim(cited.anchor)}  ${p.yellow(`(${cited.problem})`)}`
              : `      ${p.dim(cited.anchor)}  ${shownLine(cited.line, global.agent, settings)}`
          )
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
}, withMemoryScoped)

export const show = Command.make(
  "show",
  {
    sources: switchFlag(
      "sources",
      "Print under each entry the transcript line its source cites (chat #3 is the line of seq 3 in " +
        "DIR/chat.jsonl), read from --transcripts DIR"
    ),
    transcripts: textFlag("transcripts").pipe(
      Flag.withDescription(
        "The folder of the JSONL transcripts the entries cite, for --sources: a source names a transcript by its " +
          "file's base name, as mneme review writes it (or by --conversation)"
      ),
      Flag.withMetavar("DIR"),
      Flag.optional
    )
  },
  (input) =>
    // A usage error is said before the memory folder is looked for.
    input.sources && Option.isNone(input.transcripts)
      ? Effect.fail(new UsageError({ reason: sourcesNeedTranscripts }))
      : showMemory(input)
).pipe(
  Command.withDescription(
    "Show the agent's own and team memory: entries by topic, sizes against limits, the last review; with " +
      "--sources --transcripts DIR, the transcript line each entry's source cites"
  )
)
