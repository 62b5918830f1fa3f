/**
 * The dates a query speaks of, in English, as spans of days an entry's `added` date can fall in: "on 13 October 2023",
 * "October 13, 2023", "2023-10-13", "in May 2023", "in June" (June of any year), "2023", and, told today's date,
 * "last October" (the latest October before this month), "this month", "last week" (Monday to Sunday), "last year",
 * "yesterday". "May" and "March" are months only beside a day or a year, or after a word such as "in" or "last" with
 * a capital letter ("in May"), since "may" and "march" are words too. The query is read as a list of tokens, each one
 * run of letters or digits: no pattern there can backtrack.
 */

/** Days an `added` date can fall in, as `YYYYMMDD` numbers, both ends included; with `everyYear`, as `MMDD` of any year. */
export interface Span {
  readonly from: number
  readonly to: number
  readonly everyYear: boolean
}

const monthNames: ReadonlyArray<string> = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december"
]

/**
 * Each month name and abbreviation, with its number, and what else makes it a month: nothing for most names; a capital
 * and a word such as "in" before it for "May" and "March", also words; a day or a year beside it for an abbreviation.
 */
interface MonthName {
  readonly month: number
  readonly needs: "nothing" | "lead" | "day or year"
}

const months: ReadonlyMap<string, MonthName> = new Map<string, MonthName>([
  ...monthNames.map((name, i): [string, MonthName] => [
    name,
    { month: i + 1, needs: name === "may" || name === "march" ? "lead" : "nothing" }
  ]),
  ...monthNames.flatMap((name, i): Array<[string, MonthName]> =>
    name.length > 4 ? [[name.slice(0, 3), { month: i + 1, needs: "day or year" }]] : []
  ),
  ["sept", { month: 9, needs: "day or year" }]
])

/** Words before a capitalised "May" or "March" that make it a month. */
const monthLeads: ReadonlySet<string> = new Set([
  "in",
  "last",
  "this",
  "next",
  "since",
  "until",
  "during",
  "early",
  "late",
  "mid",
  "of"
])

const token = /[A-Za-z]+|[0-9]+(?:st|nd|rd|th)?/

interface Token {
  readonly text: string
  readonly lower: string
  readonly start: number
  readonly end: number
  /** Its number, for a token of digits (with an ordinal ending: `13th` is 13). */
  readonly number: number | undefined
  /** How many digits it has. */
  readonly digits: number
}

const tokenOf = (match: RegExpExecArray): Token => {
  const text = match[0]
  let digits = 0
  while (digits < text.length && text.charCodeAt(digits) >= 48 && text.charCodeAt(digits) <= 57) digits++
  return {
    text,
    lower: text.toLowerCase(),
    start: match.index,
    end: match.index + text.length,
    number: digits > 0 && digits <= 4 ? Number(text.slice(0, digits)) : undefined,
    digits
  }
}

/**
 * The tokens of `query`, read as they are asked for: `at(i)` is the `i`th (`undefined` past the last), and those
 * before `keepFrom(i)`'s `i` are let go, so a long query never holds more than a few at once.
 */
const tokensOf = (query: string) => {
  const pattern = new RegExp(token.source, "g")
  let window: Array<Token> = []
  let first = 0 // the number of window[0]
  let done = false
  return {
    at: (i: number): Token | undefined => {
      while (!done && i - first >= window.length) {
        const match = pattern.exec(query)
        if (match === null) done = true
        else window.push(tokenOf(match))
      }
      return i < first ? undefined : window[i - first]
    },
    keepFrom: (i: number) => {
      if (i - first < 256) return
      window = window.slice(i - first)
      first = i
    }
  }
}

const isDay = (t: Token | undefined): t is Token & { number: number } =>
  t?.number !== undefined && t.digits <= 2 && t.number >= 1 && t.number <= 31
const isYear = (t: Token | undefined): t is Token & { number: number } =>
  t?.number !== undefined && t.digits === 4 && t.text.length === 4 && t.number >= 1000

/** A day as `YYYYMMDD`, from a count of days since 1970-01-01. */
const dayNumber = (days: number): number => {
  const date = new Date(days * 86_400_000)
  return date.getUTCFullYear() * 10_000 + (date.getUTCMonth() + 1) * 100 + date.getUTCDate()
}

const span = (from: number, to: number, everyYear = false): Span => ({ from, to, everyYear })
const monthSpan = (year: number, month: number): Span =>
  span(year * 10_000 + month * 100 + 1, year * 10_000 + month * 100 + 31)
const yearSpan = (year: number): Span => span(year * 10_000 + 101, year * 10_000 + 1231)

/** Today, read from `YYYY-MM-DD`: its year, month, and its count of days since 1970-01-01. */
const todayOf = (today: string | undefined) => {
  const match = today === undefined ? null : /^(\d{4})-(\d{2})-(\d{2})$/.exec(today)
  if (match === null) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  return { year, month, days: Math.floor(Date.UTC(year, month - 1, day) / 86_400_000) }
}

/** The spans of days `query` speaks of; relative ones ("last week") only when `today` (`YYYY-MM-DD`) is given. */
export const of = (query: string, today: string | undefined): Array<Span> => {
  const tokens = tokensOf(query)
  const now = todayOf(today)
  const found: Array<Span> = []
  const joined = (a: Token, b: Token, by: string) => query.slice(a.end, b.start) === by
  for (let i = 0; tokens.at(i) !== undefined; i++) {
    tokens.keepFrom(i - 1)
    const t = tokens.at(i)!
    const before = tokens.at(i - 1)
    const next = tokens.at(i + 1)
    const named = months.get(t.lower)
    if (named !== undefined) {
      const dayBefore = isDay(before) ? before.number : undefined
      const dayAfter = isDay(next) ? next.number : undefined
      const day = dayBefore ?? dayAfter
      const yearAt = dayAfter !== undefined ? i + 2 : i + 1
      const yearToken = tokens.at(yearAt)
      const year = isYear(yearToken) ? yearToken.number : undefined
      const capitalised = t.text.charCodeAt(0) >= 65 && t.text.charCodeAt(0) <= 90
      const led = before !== undefined && monthLeads.has(before.lower)
      const isMonth =
        day !== undefined ||
        year !== undefined ||
        named.needs === "nothing" ||
        (named.needs === "lead" && capitalised && led)
      if (!isMonth) continue
      const { month } = named
      const relative = before?.lower
      const yearOf =
        year ??
        (now === undefined
          ? undefined
          : relative === "last"
            ? month < now.month
              ? now.year
              : now.year - 1
            : relative === "this"
              ? now.year
              : relative === "next"
                ? month > now.month
                  ? now.year
                  : now.year + 1
                : undefined)
      if (yearOf === undefined) {
        found.push(
          day === undefined
            ? span(month * 100 + 1, month * 100 + 31, true)
            : span(month * 100 + day, month * 100 + day, true)
        )
      } else {
        const at = yearOf * 10_000 + month * 100
        found.push(day === undefined ? monthSpan(yearOf, month) : span(at + day, at + day))
      }
      if (year !== undefined) i = yearAt
      else if (dayAfter !== undefined) i++
      continue
    }
    if (isYear(t)) {
      const month = next
      const day = tokens.at(i + 2)
      if (
        month?.number !== undefined &&
        month.digits <= 2 &&
        month.number >= 1 &&
        month.number <= 12 &&
        joined(t, month, "-")
      ) {
        const withDay = isDay(day) && joined(month, day, "-")
        found.push(
          withDay
            ? span(
                t.number * 10_000 + month.number * 100 + day.number,
                t.number * 10_000 + month.number * 100 + day.number
              )
            : monthSpan(t.number, month.number)
        )
        i += withDay ? 2 : 1
      } else found.push(yearSpan(t.number))
      continue
    }
    if (now === undefined) continue
    if (t.lower === "today") found.push(span(dayNumber(now.days), dayNumber(now.days)))
    else if (t.lower === "yesterday") found.push(span(dayNumber(now.days - 1), dayNumber(now.days - 1)))
    else if ((t.lower === "last" || t.lower === "this") && next !== undefined) {
      const back = t.lower === "last" ? 1 : 0
      if (next.lower === "year") found.push(yearSpan(now.year - back))
      else if (next.lower === "month") {
        const month = now.month - back
        found.push(month === 0 ? monthSpan(now.year - 1, 12) : monthSpan(now.year, month))
      } else if (next.lower === "week") {
        // Weeks start on Monday; 1970-01-01 was a Thursday.
        const monday = now.days - ((now.days + 3) % 7) - 7 * back
        found.push(span(dayNumber(monday), dayNumber(back === 1 ? monday + 6 : now.days)))
      } else continue
      i++
    }
  }
  return found
}

/** `spans` merged where they meet or overlap, in order: the starts, then the ends. */
const merged = (spans: ReadonlyArray<Span>) => {
  const sorted = spans.toSorted((a, b) => a.from - b.from)
  const starts: Array<number> = []
  const ends: Array<number> = []
  for (const { from, to } of sorted) {
    if (ends.length > 0 && from <= ends[ends.length - 1]! + 1)
      ends[ends.length - 1] = Math.max(ends[ends.length - 1]!, to)
    else {
      starts.push(from)
      ends.push(to)
    }
  }
  return { starts, ends }
}

/** Whether `day` is in one of the merged spans: a binary search, however many a query names. */
const inside = ({ starts, ends }: ReturnType<typeof merged>, day: number): boolean => {
  let low = 0
  let high = starts.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (starts[middle]! <= day) low = middle + 1
    else high = middle
  }
  return low > 0 && day <= ends[low - 1]!
}

/** Whether an entry's `added` date (`YYYYMMDD`, 0 for none) falls in one of `spans`. */
export const matcher = (spans: ReadonlyArray<Span>): ((added: number) => boolean) => {
  const fixed = merged(spans.filter((span) => !span.everyYear))
  const yearly = merged(spans.filter((span) => span.everyYear))
  return (added) => added > 0 && (inside(fixed, added) || inside(yearly, added % 10_000))
}
