/**
 * The panel's page of a transcript line an entry cites (`/transcript?name=chat&line=3#line-3`): the line, marked, with
 * the lines around it, read from the panel's `--transcripts` folder (a source `chat #3` is the line of seq 3 in
 * `chat.jsonl` there). An entry's source links here, one link for each line it cites that the folder holds. Every
 * line is masked for secrets and cut as a review cuts it, and goes into the page escaped.
 */
import { Lines, MemoryConfig } from "@mneme/core"
import { Effect, Path } from "effect"
import * as SourceLines from "../sourceLines.ts"
import { markup, query } from "./html.ts"
import * as Views from "./views.ts"

/** How many lines either side of the cited one the page shows. */
export const window = 10

/** The address of the page of line `seq` of transcript `name`, scrolled to the line; `agent` is linked back to. */
export const href = (name: string, seq: number, agentId: string | undefined): string =>
  `/transcript${query({ name, line: String(seq), ...(agentId === undefined ? {} : { agent: agentId }) })}#line-${seq}`

/** The address an anchor of an entry's source links to, where the transcripts folder (by name) has its line's file. */
export const linkOf =
  (names: ReadonlySet<string>, agentId: string) =>
  (anchor: SourceLines.Anchor): string | undefined =>
    anchor.name !== undefined && anchor.seq !== undefined && names.has(anchor.name)
      ? href(anchor.name, anchor.seq, agentId)
      : undefined

/** One line as the page shows it: its seq, its label, its text (masked, cut), and whether it is the one cited. */
interface ShownLine {
  readonly seq: number
  readonly label: string
  readonly text: string
  readonly cited: boolean
}

/** The page: the transcript, the line cited, the agent linked back to, and the lines, or why there are none. */
export interface View {
  readonly name: string
  readonly seq: number
  readonly agentId: string | undefined
  readonly lines: ReadonlyArray<ShownLine>
  readonly problem: string | undefined
}

const digits = /^[0-9]{1,15}$/

/** The transcript and line a request asks for (`name`, `line`), and the agent to link back to (`agent`). */
export const paramsOf = (params: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>) => {
  const text = (key: string) => {
    const value = params[key]
    return typeof value === "string" ? value : undefined
  }
  const name = text("name")
  const line = text("line")
  return {
    name: name ?? "",
    seq: line !== undefined && digits.test(line) ? Number(line) : undefined,
    agentId: text("agent") || undefined
  }
}

/** Reads the page of line `seq` of transcript `name` from the folder `dir` (`undefined`: the panel has none). */
export const read = Effect.fnUntraced(function* (
  dir: string | undefined,
  asked: { readonly name: string; readonly seq: number | undefined; readonly agentId: string | undefined }
) {
  const settings = yield* MemoryConfig.MemoryConfig
  const path = yield* Path.Path
  const { name, agentId } = asked
  const seq = asked.seq ?? 0
  const view = (lines: ReadonlyArray<ShownLine>, problem: string | undefined): View => ({
    name,
    seq,
    agentId,
    lines,
    problem
  })
  if (dir === undefined) {
    return view([], "The panel was started without --transcripts DIR, so it has no transcript to show.")
  }
  if (asked.seq === undefined) return view([], "This address names no line of a transcript.")
  const reader = yield* SourceLines.reader(dir)
  const anchor = { anchor: `${name} #${seq}`, name, seq }
  const found = yield* Effect.scoped(reader.find(anchor, window))
  if (found._tag !== "Line") return view([], `${SourceLines.problemOf(anchor, found, path)}.`)
  const shown = (line: Lines.Line): ShownLine => ({
    seq: line.seq,
    label: Lines.label(line, agentId ?? "agent"),
    text: Lines.cut(line, settings),
    cited: line.seq === seq
  })
  const { before, line, after } = found.around
  return view([...before, line, ...after].map(shown), undefined)
})

/** The page of a transcript line, or of why it cannot be shown. */
export const page = (given: Views.Page, view: View): string => {
  const title = `${view.name} #${view.seq}`
  const back =
    view.agentId === undefined
      ? ""
      : markup`<p><a href="/agent${query({ id: view.agentId })}">Back to the agent</a></p>`
  if (view.problem !== undefined) {
    return Views.layout(given, title, markup`<h1>${title}</h1>${back}`, { kind: "refused", text: view.problem })
  }
  const body = markup`<h1>${title}</h1>
    ${back}
    <p class="dim">
      The line an entry cites, marked, with the lines around it, from ${view.name}.jsonl in the transcripts folder
      (secrets masked, long lines cut).
    </p>
    <ol class="transcript">
      ${view.lines.map(
        (line) =>
          markup`<li id="line-${line.seq}"${line.cited ? markup` class="cited"` : ""}>
            <span class="seq">#${line.seq}</span>
            <span class="who">${line.label}</span>
            <span class="said">${line.text}</span>
          </li>`
      )}
    </ol>`
  return Views.layout(given, title, body)
}
