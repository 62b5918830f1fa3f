/**
 * Secrets given in Chinese: 密码是…, 密码：…, 验证码是…, 我用…当密码, and ID numbers after 身份证, 护照, 社保 …. After a
 * keyword, the value follows its link (是, 为, ：); before a password's keyword, X in 我用X当密码 reaches back to 用
 * within its clause, through ASCII punctuation inside or ending an ASCII value (我用S3cure!pass当密码).
 */
import { codes, is, isAlnum, isAscii, LEAD, quoted, SPACE, type Table, TRAIL } from "./chars.ts"
import { idNumber } from "./idLabels.ts"
import { CHINESE_WORD, lowerOf, mask, note, type Rule, type Scan, type Span } from "./scan.ts"
import { fits, type Kind } from "./vocabulary.ts"

/** The Chinese keywords, by what they name. */
export const CHINESE: ReadonlyMap<string, Kind | "id"> = new Map<string, Kind | "id">([
  ...["密码", "密碼", "口令"].map((word) => [word, "password"] as const),
  ...["验证码", "驗證碼", "校验码", "校驗碼", "安全码", "安全碼", "动态码", "動態碼", "pin码", "pin碼"].map(
    (word) => [word, "code"] as const
  ),
  ...["身份证", "身份證", "护照", "護照", "社保", "社会保障", "社會保障", "驾照", "駕照", "驾驶证", "駕駛證"]
    .concat(["税号", "稅號", "纳税人识别号", "納稅人識別號"])
    .map((word) => [word, "id"] as const)
])
/** The keywords by their first unit. */
export const CHINESE_BY_FIRST: ReadonlyMap<number, ReadonlyArray<string>> = Map.groupBy(CHINESE.keys(), (word) =>
  word.charCodeAt(0)
)

/** 1 for each BMP unit that starts a keyword: one read a unit of the text. */
const firstUnits = (): Table => {
  const table = new Uint8Array(0x10000)
  for (const c of CHINESE_BY_FIRST.keys()) table[c] = 1
  return table
}
const ZH_FIRST: Table = firstUnits()

const ZH_LINKS: ReadonlyArray<string> = [
  "设置为",
  "設置為",
  "设为",
  "設為",
  "改为",
  "改為",
  "改成",
  "是",
  "为",
  "為",
  "：",
  ":",
  "="
]
const ZH_USE_AS: ReadonlyArray<string> = ["当作", "當作", "作为", "作為", "当", "當", "做"]
const ZH_ID_GAP = codes("号號码碼卡是为為：:= ")
const ZH_ADVERB = codes("就都也还還仍")
const ZH_CLAUSE_END = codes("。，！？；,.!?;")

/** What 我用…当密码 may name without giving a value ("this", "it", "the same one"). */
const ZH_VAGUE: ReadonlySet<string> = new Set(["这", "那", "这个", "那个", "这些", "那些", "它", "同一个", "一样的"])

/** Whether the unit at `u` ends a clause: CJK punctuation, or ASCII punctuation that is not part of an ASCII value:
 * followed by printable ASCII (`S3cure!pass`, `my.pass`), or ending one right before what follows (`hunter2!当密码`).
 * Followed by a space, it ends the clause ("我用Bitwarden管理账号. 当密码忘了就重置"). */
const endsClause = (text: string, u: number): boolean => {
  const c = text.charCodeAt(u)
  if (!ZH_CLAUSE_END.has(c)) return false
  if (c >= 0x80) return true
  const next = text.charCodeAt(u + 1)
  return !(isAscii(next) || (isAscii(text.charCodeAt(u - 1)) && u + 1 < text.length && !is(next, SPACE)))
}

const skipSpaces = (text: string, at: number): number => {
  let k = at
  while (k < at + 2 && text.charCodeAt(k) === 32) k++
  return k
}

/** A value in ASCII starting at `at`, without surrounding punctuation. */
const asciiValue = (text: string, at: number): Span | undefined => {
  let end = at
  while (end < text.length && isAscii(text.charCodeAt(end))) end++
  let start = at
  while (start < end && is(text.charCodeAt(start), LEAD)) start++
  while (end > start && is(text.charCodeAt(end - 1), TRAIL)) end--
  return end > start ? [start, end] : undefined
}

/** An ID number after a Chinese label ending at `at` ("号码是", "：" between). */
const chineseId = (text: string, at: number): Span | undefined => {
  let k = at
  while (k < at + 6 && ZH_ID_GAP.has(text.charCodeAt(k))) k++
  return isAlnum(text.charCodeAt(k)) ? idNumber(text, k) : undefined
}

/** The value after a Chinese keyword ending at `at`: 密码是X, 密码：X, 密码就是“X”, 验证码 482913. */
const chineseValue = (text: string, lower: string, at: number, kind: Kind): Span | undefined => {
  let k = skipSpaces(text, at)
  if (ZH_ADVERB.has(text.charCodeAt(k))) k++
  const link = ZH_LINKS.find((word) => text.startsWith(word, k))
  if (link !== undefined) k += link.length
  if (text.charCodeAt(k) === 0xff1a || text.charCodeAt(k) === 58) k++
  k = skipSpaces(text, k)
  const inner = quoted(text, k)
  const value = inner ?? asciiValue(text, k)
  const how = inner !== undefined ? "quoted" : link !== undefined ? "linked" : "direct"
  return value !== undefined && fits(lower.slice(value[0], value[1]), kind, how) ? value : undefined
}

/** X in 我用X当密码, for a password keyword starting at `at`: X lies between 用 and 当 (作为, 做 …), in one clause. */
const usedAs = (text: string, at: number): Span | undefined => {
  const useAs = ZH_USE_AS.find((word) => at >= word.length && text.startsWith(word, at - word.length))
  if (useAs === undefined) return undefined
  const end = at - useAs.length
  for (let u = end - 1; u >= Math.max(0, end - 24) && !endsClause(text, u); u--) {
    if (text.charCodeAt(u) !== 0x7528) continue // 用
    let start = u + 1
    let stop = end
    while (start < stop && text.charCodeAt(start) === 32) start++
    while (stop > start && text.charCodeAt(stop - 1) === 32) stop--
    const value = text.slice(start, stop)
    return stop > start && value !== mask && !ZH_VAGUE.has(value) ? [start, stop] : undefined
  }
  return undefined
}

/** The Chinese keyword starting at `at`, if any. */
const chineseWord = (lower: string, at: number): string | undefined => {
  if (ZH_FIRST[lower.charCodeAt(at)] !== 1) return undefined
  for (const word of CHINESE_BY_FIRST.get(lower.charCodeAt(at))!) if (lower.startsWith(word, at)) return word
  return undefined
}

const findChinese = (scan: Scan) => {
  const text = scan.text
  const lower = lowerOf(scan)
  for (let at = 0; at < lower.length; at++) {
    const word = chineseWord(lower, at)
    if (word === undefined) continue
    const kind = CHINESE.get(word)!
    const end = at + word.length
    const value = kind === "id" ? chineseId(text, end) : chineseValue(text, lower, end, kind)
    if (value !== undefined && note(scan, value)) return
    const used = kind === "password" ? usedAs(text, at) : undefined
    if (used !== undefined && note(scan, used)) return
    at = end - 1
  }
}

/** The rule of secrets given in Chinese. */
export const chinese: Rule = { name: "Chinese", trigger: CHINESE_WORD, scan: findChinese }
