/**
 * JSONL files as the CLI reads them (transcripts, recorded answers): one value a line, LF, CRLF or CR line ends,
 * blank lines skipped, and the first line that does not read fails the whole file with its number.
 */
import { Result } from "effect"

/** A line that did not read: its number (from 1) and why. */
export interface BadLine<E> {
  readonly line: number
  readonly error: E
}

/** Reads each non-blank line with `read`, given the value of the line before; stops at the first that fails. */
export const parse = <A, E>(
  content: string,
  read: (row: string, previous: A | undefined) => Result.Result<A, E>
): Result.Result<ReadonlyArray<A>, BadLine<E>> => {
  const values: Array<A> = []
  const rows = content.split(/\r\n|\r|\n/)
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] ?? ""
    if (row.trim() === "") continue
    const parsed = read(row, values.at(-1))
    if (Result.isFailure(parsed)) return Result.fail({ line: index + 1, error: parsed.failure })
    values.push(parsed.success)
  }
  return Result.succeed(values)
}
