/**
 * A reader of the JSON an answer mostly is, faster than `JSON.parse` on it: an object whose only key is `changes`, a
 * list of objects whose keys are those of a change (`op`, `text`, `entry`, `topic`, `team`, `from`, each once), with
 * strings that hold no escape, whole numbers, `true`, `false` and lists of them. It gives what `JSON.parse` gives, or
 * `undefined` for any other text, which `JSON.parse` then reads. A test checks it against `JSON.parse`.
 */

/** What a change's key may hold here. */
type Value = string | number | boolean | Array<Value>

const keys: ReadonlySet<string> = new Set(["op", "text", "entry", "topic", "team", "from"])

/** Whether `c` is JSON white space. */
const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9

/** A reading position: `at` moves on as the text is read. */
interface Reader {
  readonly json: string
  at: number
}

/** Skips white space; the code unit then, or -1 at the end. */
const next = (reader: Reader): number => {
  const { json } = reader
  while (reader.at < json.length && isSpace(json.charCodeAt(reader.at))) reader.at++
  return reader.at < json.length ? json.charCodeAt(reader.at) : -1
}

/** A string without escapes or control characters at the reader (past its opening quote), or `undefined`. */
const string = (reader: Reader): string | undefined => {
  const { json } = reader
  const start = ++reader.at
  for (let i = start; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c === 34) {
      reader.at = i + 1
      return json.slice(start, i)
    }
    if (c === 92 || c < 32) return undefined
  }
  return undefined
}

/** A whole number ≥ 0 as JSON writes it (no sign, fraction, exponent or leading zero), or `undefined`. */
const number = (reader: Reader): number | undefined => {
  const { json } = reader
  const start = reader.at
  let i = start
  while (i < json.length && json.charCodeAt(i) >= 48 && json.charCodeAt(i) <= 57) i++
  const after = i < json.length ? json.charCodeAt(i) : -1
  if (i - start > 15 || (json.charCodeAt(start) === 48 && i - start > 1)) return undefined
  if (after === 46 || after === 101 || after === 69) return undefined // a fraction or an exponent
  reader.at = i
  return Number(json.slice(start, i))
}

/** The value at the reader, or `undefined` where it is none read here. */
const value = (reader: Reader): Value | undefined => {
  const c = next(reader)
  if (c === 34) return string(reader)
  if (c >= 48 && c <= 57) return number(reader)
  if (c === 116 && reader.json.startsWith("true", reader.at)) return ((reader.at += 4), true)
  if (c === 102 && reader.json.startsWith("false", reader.at)) return ((reader.at += 5), false)
  if (c !== 91) return undefined
  reader.at++
  const items: Array<Value> = []
  if (next(reader) === 93) return (reader.at++, items)
  for (;;) {
    const item = value(reader)
    if (item === undefined) return undefined
    items.push(item)
    const after = next(reader)
    reader.at++
    if (after === 93) return items
    if (after !== 44) return undefined
  }
}

/** A change's object at the reader (at its `{`), or `undefined`. */
const change = (reader: Reader): Record<string, Value> | undefined => {
  reader.at++
  const fields: Record<string, Value> = {}
  if (next(reader) === 125) return (reader.at++, fields)
  for (;;) {
    if (next(reader) !== 34) return undefined
    const key = string(reader)
    if (key === undefined || !keys.has(key) || Object.hasOwn(fields, key) || next(reader) !== 58) return undefined
    reader.at++
    const read = value(reader)
    if (read === undefined) return undefined
    fields[key] = read
    const after = next(reader)
    reader.at++
    if (after === 125) return fields
    if (after !== 44) return undefined
  }
}

/** `JSON.parse(json)` where `json` is an answer of the shape above, else `undefined`. */
export const scan = (json: string): { readonly changes: Array<Record<string, Value>> } | undefined => {
  const reader: Reader = { json, at: 0 }
  if (next(reader) !== 123) return undefined
  reader.at++
  if (next(reader) !== 34 || string(reader) !== "changes" || next(reader) !== 58) return undefined
  reader.at++
  if (next(reader) !== 91) return undefined
  reader.at++
  const changes: Array<Record<string, Value>> = []
  if (next(reader) === 93) reader.at++
  else {
    for (;;) {
      if (next(reader) !== 123) return undefined
      const read = change(reader)
      if (read === undefined) return undefined
      changes.push(read)
      const after = next(reader)
      reader.at++
      if (after === 93) break
      if (after !== 44) return undefined
    }
  }
  if (next(reader) !== 125) return undefined
  reader.at++
  return next(reader) === -1 ? { changes } : undefined
}
