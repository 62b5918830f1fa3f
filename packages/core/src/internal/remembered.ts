/**
 * A function of a text that remembers its answers, for a caller that asks about the same texts again and again. The
 * memory is the returned function's own, held by whoever makes it: a module keeps none.
 */

/** `compute` remembering at most `limit` answers (all forgotten when full), for texts of at most `longest` units. */
export const remembered = <A>(
  compute: (text: string) => A,
  limit: number,
  longest = Number.POSITIVE_INFINITY
): ((text: string) => A) => {
  const known = new Map<string, A>()
  return (text) => {
    if (text.length > longest) return compute(text)
    if (known.has(text)) return known.get(text) as A
    if (known.size >= limit) known.clear()
    const answer = compute(text)
    known.set(text, answer)
    return answer
  }
}
