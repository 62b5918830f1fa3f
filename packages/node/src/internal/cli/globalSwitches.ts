/**
 * The global switches `--json` and `--verbose` as a command line gives them, read before it is parsed: the one place
 * they are read outside the parser. effect/cli cannot give them earlier: its global flags (`GlobalFlag.Setting`,
 * `Command.withSharedFlags`) reach only the handler of a command line that parsed, while a usage error is presented
 * (`CliOutput.Presenter`) and reported before any handler runs, and it too must be one JSON document with `--json`
 * and show its cause with `--verbose`. The parser still reads both flags for the handlers; this reads them as it does.
 * Plain code, no effect, so `bin.ts` can answer `--version --json` before effect is loaded.
 */

/** What the global switches ask for. */
export interface Switches {
  /** One JSON document on stdout, a failure's too. */
  readonly json: boolean
  /** Log lines on stderr, and the full cause of a failure. */
  readonly verbose: boolean
}

const trueWords = new Set(["true", "1", "y", "yes", "on"])
const falseWords = new Set(["false", "0", "n", "no", "off"])

/**
 * Whether the switch `name` is on in `args`, as the parser reads a boolean flag: `--name`, `--name=yes`,
 * `--name false`, `--no-name`; the last one wins. Arguments after `--` are values.
 */
const isOn = (args: ReadonlyArray<string>, name: string): boolean => {
  const end = args.indexOf("--")
  return (end === -1 ? args : args.slice(0, end)).reduce<boolean>((on, arg, i, given) => {
    if (arg === `--no-${name}`) return false
    if (arg.startsWith(`--${name}=`)) return trueWords.has(arg.slice(name.length + 3).toLowerCase())
    if (arg === `--${name}`) return !falseWords.has((given[i + 1] ?? "").toLowerCase())
    return on
  }, false)
}

/** The global switches `args` (without the node and script paths) ask for. */
export const globalSwitches = (args: ReadonlyArray<string>): Switches => ({
  json: isOn(args, "json"),
  verbose: isOn(args, "verbose")
})
