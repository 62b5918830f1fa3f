/**
 * HTML for the memory panel, escaped by default: the `markup` template escapes every value put into it (text a person or
 * a model wrote shows as text, never as markup), and only another `markup` fragment goes in as it is.
 */

/** A piece of markup that is safe to put in a page as it is. */
export interface Html {
  readonly _tag: "Html"
  readonly source: string
}

/** What `markup` takes between its parts: text (escaped), a number, markup, a list of these, or nothing. */
export type Value = string | number | Html | ReadonlyArray<Value> | undefined | null | false

const escapes: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;"
}

/** `text` with `&`, `<`, `>` and both quotes escaped, safe in an element's text and in a quoted attribute. */
export const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c]!)

const fragment = (source: string): Html => ({ _tag: "Html", source })

const isHtml = (value: Value): value is Html =>
  typeof value === "object" && value !== null && !Array.isArray(value) && (value as Html)._tag === "Html"

/** A value as markup: text escaped, markup as it is, lists joined, nothing as nothing. */
const render = (value: Value): string => {
  if (value === undefined || value === null || value === false) return ""
  if (typeof value === "number") return String(value)
  if (typeof value === "string") return escape(value)
  if (isHtml(value)) return value.source
  return (value as ReadonlyArray<Value>).map(render).join("")
}

/** Markup from a template: the template's own text as it is, every value put into it escaped unless it is markup. */
export const markup = (strings: TemplateStringsArray, ...values: ReadonlyArray<Value>): Html =>
  fragment(strings.reduce((text, part, i) => text + part + (i < values.length ? render(values[i]!) : ""), ""))

/** A query string from names and values, each encoded: `?agent=ada%20l` (escaped again where it goes in `markup`). */
export const query = (params: Readonly<Record<string, string>>): string =>
  "?" +
  Object.entries(params)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join("&")
