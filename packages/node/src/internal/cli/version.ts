/**
 * The version `mneme --version` prints, and what it prints for a command line that asks only for it: answered before
 * effect or any command is loaded, so the command starts at once. It prints what the parser's own `--version` prints
 * (`mneme v0.1.0`, bold where the terminal takes colour; with `--json`, one JSON document); any other command line
 * goes to the parser.
 */
import { globalSwitches } from "./globalSwitches.ts"

/** The version `mneme --version` prints, and the MCP server gives its clients. */
export const version = "0.1.0"

const versionFlags = new Set(["--version", "-v"])

/** What the environment says of colour, as the command line's parser reads it. */
export interface Terminal {
  readonly noColor: string | undefined
  readonly forceColor: string | undefined
  readonly term: string | undefined
  readonly stdoutIsTerminal: boolean
}

/** Whether the parser prints in colour: never on a dumb terminal or with NO_COLOR; with FORCE_COLOR or on a terminal. */
const canColor = (terminal: Terminal): boolean => {
  const given = (value: string | undefined) => value !== undefined && value.length > 0
  if (terminal.term === "dumb" || given(terminal.noColor)) return false
  const forced =
    given(terminal.forceColor) && terminal.forceColor !== "0" && terminal.forceColor?.toLowerCase() !== "false"
  return forced || terminal.stdoutIsTerminal
}

/**
 * The text `mneme` prints for `args` when they ask only for the version (`--version` or `-v`, alone or with
 * `--json`), ending in a newline; undefined for any other command line.
 */
export const versionOutput = (args: ReadonlyArray<string>, terminal: Terminal): string | undefined => {
  const [first, second, ...rest] = args
  if (first === undefined || rest.length > 0) return undefined
  if (second === undefined) {
    if (!versionFlags.has(first)) return undefined
    if (!canColor(terminal)) return `mneme v${version}\n`
    const bold = (text: string) => `\x1b[1m${text}\x1b[0m`
    return `${bold("mneme")} \x1b[2mv\x1b[0m${bold(version)}\n`
  }
  const other = versionFlags.has(first) ? second : versionFlags.has(second) ? first : undefined
  if (other === undefined || !globalSwitches([other]).json) return undefined
  return `${JSON.stringify({ name: "mneme", version }, null, 2)}\n`
}
