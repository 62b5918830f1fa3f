/**
 * Which command a command line runs, told before it is parsed, so that only that command's module is loaded. The
 * command is the first word after the global flags before it (`--memory DIR`, `--agent ID`, `--json`, `--verbose`,
 * each also as `--flag=value`), as the parser reads it. Where that cannot be told for sure (another flag before the
 * command, `--help`, `--version`, a flag's value that starts with "-", `--`, no command or a word that is none), the
 * answer is none, and the command line is parsed with every command loaded.
 */

/** The global flags that take a value, which a command line may give before its command. */
const valueFlags = ["--memory", "--agent"]

/** The global switches a command line may give before its command (a true/false word after one is no command). */
const switches = ["--json", "--no-json", "--verbose", "--no-verbose"]

/** Whether `arg` is one of `flags` with its value after "=". */
const inline = (arg: string, flags: ReadonlyArray<string>) => flags.some((flag) => arg.startsWith(`${flag}=`))

/** The command of `names` that `args` run, where it can be told before parsing; undefined where it cannot. */
export const commandOf = (args: ReadonlyArray<string>, names: ReadonlySet<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (valueFlags.includes(arg)) {
      const value = args[i + 1]
      if (value === undefined || value.startsWith("-")) return undefined
      i++
    } else if (!switches.includes(arg) && !inline(arg, [...valueFlags, "--json", "--verbose"])) {
      return !arg.startsWith("-") && names.has(arg) ? arg : undefined
    }
  }
  return undefined
}
