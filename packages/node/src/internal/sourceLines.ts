/**
 * The transcript lines an entry's source cites, from a folder of JSONL transcripts as `mneme review` reads them: the
 * source `chat #3` is the line of seq 3 in `DIR/chat.jsonl` (`mneme review` cites a transcript by its file's base
 * name, or by `--conversation`), and a source of several lines (`chat #3, chat #5`) cites each. Only the folder's own
 * `.jsonl` files are read, found by listing it, so no source can name a file elsewhere. `mneme show --sources` prints
 * the lines, and the panel shows them where an entry links to them.
 */
import { MemoryConfig, type Lines, type TranscriptError } from "@mneme/core"
import { Transcript } from "@mneme/review"
import { Effect, FileSystem, Option, Path, Result, type Scope, Stream } from "effect"
import type * as FileTranscript from "../FileTranscript.ts"

/** One anchor of a source: as written, and the transcript and line it names where it reads as `<name> #<seq>`. */
export interface Anchor {
  readonly anchor: string
  readonly name: string | undefined
  readonly seq: number | undefined
}

const digits = /^[0-9]+$/

/** The anchors of an entry's source (`chat #3, chat #5`), each with the transcript and line it names, if any. */
export const anchorsOf = (source: string): ReadonlyArray<Anchor> =>
  source
    .split(", ")
    .map((anchor) => anchor.trim())
    .filter((anchor) => anchor !== "")
    .map((anchor) => {
      const at = anchor.lastIndexOf(" #")
      const seq = at > 0 ? anchor.slice(at + 2) : ""
      return digits.test(seq) && Number.isSafeInteger(Number(seq))
        ? { anchor, name: anchor.slice(0, at), seq: Number(seq) }
        : { anchor, name: undefined, seq: undefined }
    })

/**
 * The JSONL transcripts of `dir` (not its sub-folders), by name: each file's base name without `.jsonl`. A name that
 * cannot be looked at (a dangling link) is left out; a folder that cannot be listed fails.
 */
const transcriptsIn = Effect.fnUntraced(function* (dir: string, labelOf: typeof FileTranscript.labelOf) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const files = new Map<string, string>()
  for (const name of (yield* fs.readDirectory(dir)).filter((name) => name.endsWith(".jsonl")).sort()) {
    const file = path.resolve(dir, name)
    const info = yield* Effect.option(fs.stat(file))
    if (Option.isSome(info) && info.value.type === "File") files.set(labelOf(path, file), file)
  }
  return files as ReadonlyMap<string, string>
})

/** The lines of a transcript around one line: those before it, the line, those after it. */
export interface Around {
  readonly before: ReadonlyArray<Lines.Line>
  readonly line: Lines.Line
  readonly after: ReadonlyArray<Lines.Line>
}

/** What a source's anchor comes to in a folder of transcripts. */
export type Found =
  | { readonly _tag: "Line"; readonly file: string; readonly around: Around }
  | { readonly _tag: "NoLine"; readonly file: string }
  | { readonly _tag: "NoTranscript" }
  | { readonly _tag: "Unreadable"; readonly file: string; readonly reason: string }
  | { readonly _tag: "NotALine" }

/** Why an anchor's line is not shown, in words (for every `Found` but a line). */
export const problemOf = (anchor: Anchor, found: Exclude<Found, { _tag: "Line" }>, path: Path.Path): string => {
  switch (found._tag) {
    case "NoLine":
      return `${path.basename(found.file)} has no line #${anchor.seq}`
    case "NoTranscript":
      return `no transcript ${anchor.name}.jsonl in the transcripts folder`
    case "Unreadable":
      return `${path.basename(found.file)} cannot be read: ${found.reason}`
    case "NotALine":
      return "not a line of a transcript (<name> #<seq>)"
  }
}

/** A reader of the lines sources cite, over a folder of transcripts. */
export interface Reader {
  /** The line an anchor names, with up to `window` lines either side of it, or why there is none. */
  readonly find: (
    anchor: Anchor,
    window?: number
  ) => Effect.Effect<Found, never, FileSystem.FileSystem | Path.Path | Scope.Scope>
}

/**
 * A reader of the lines sources cite, over the transcripts of `dir` (listed once): `find(anchor, window)` gives the
 * line an anchor names and up to `window` lines either side of it. Each transcript is read once, into an index of its
 * lines (see `FileTranscript.open`), and each line from the file when asked for, so a long transcript is never held;
 * the files stay open for the scope `find` runs in.
 */
export const reader = Effect.fnUntraced(function* (dir: string) {
  // Loaded here, not with the module: `mneme show` without `--sources` reads no transcript.
  const Transcripts = yield* Effect.promise(() => import("../FileTranscript.ts"))
  const files = yield* transcriptsIn(dir, Transcripts.labelOf)
  const opened = new Map<string, Result.Result<FileTranscript.Source, TranscriptError>>()
  /** The transcript file, opened once (one find at a time: the first to ask opens it). */
  const open = (file: string) => {
    const known = opened.get(file)
    return known !== undefined
      ? Effect.fromResult(known)
      : Transcripts.open(file, MemoryConfig.defaults).pipe(
          Effect.result,
          Effect.tap((result) => Effect.sync(() => opened.set(file, result))),
          Effect.flatMap(Effect.fromResult)
        )
  }
  const find: Reader["find"] = (anchor, window = 0) => {
    const file = anchor.name === undefined ? undefined : files.get(anchor.name)
    if (anchor.seq === undefined) return Effect.succeed({ _tag: "NotALine" })
    if (file === undefined) return Effect.succeed({ _tag: "NoTranscript" })
    const seq = anchor.seq
    const ports = { conversationId: file, agentId: "" }
    return open(file).pipe(
      Effect.flatMap((source) =>
        Effect.gen(function* () {
          // A transcript file's ports read from a cursor both ways (`newestUpTo`, `oldestAfter`).
          const transcript = yield* Transcript.Transcript
          const upTo = yield* Stream.runCollect(Stream.take(transcript.newestUpTo(file, seq), window + 1))
          const line = upTo[0]?.seq === seq ? upTo[0] : undefined
          if (line === undefined) return { _tag: "NoLine", file } satisfies Found
          const after = yield* Stream.runCollect(Stream.take(transcript.oldestAfter(file, seq), window))
          return { _tag: "Line", file, around: { before: upTo.slice(1).reverse(), line, after } } satisfies Found
        }).pipe(Effect.provide(source.layer(ports)))
      ),
      Effect.catch((error) => Effect.succeed<Found>({ _tag: "Unreadable", file, reason: error.message }))
    )
  }
  return { find } satisfies Reader
})
