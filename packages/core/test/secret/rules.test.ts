import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  isAlnum,
  isKeyChar,
  isSlackChar,
  isUpperOrDigit,
  isWordChar,
  lowerCase,
  quoted,
  SPACES
} from "../../src/internal/secret/chars.ts"
import { chinese } from "../../src/internal/secret/chinese.ts"
import { digitRuns } from "../../src/internal/secret/digitRuns.ts"
import { english, kindAt } from "../../src/internal/secret/english.ts"
import { idLabels } from "../../src/internal/secret/idLabels.ts"
import { keys, pem } from "../../src/internal/secret/keys.ts"
import { mixedRuns } from "../../src/internal/secret/mixedRuns.ts"
import { pairs } from "../../src/internal/secret/pairs.ts"
import * as Scan from "../../src/internal/secret/scan.ts"
import { triggers } from "../../src/internal/secret/triggers.ts"
import { isUrl, urlPasswords } from "../../src/internal/secret/urls.ts"
import { idAt, KEYWORDS, kindOf, VOCABULARY, vocabularyId } from "../../src/internal/secret/vocabulary.ts"
import { wordRules } from "../../src/internal/secret/wordRules.ts"
import { wordAt, words, wordsOf } from "../../src/internal/secret/words.ts"

/** What one rule alone finds in `text`, as the texts of its spans. */
const found = (rule: Scan.Rule, text: string): Array<string> => {
  const scan = Scan.make(text, false)
  rule.scan(scan)
  return scan.found.map(([start, end]) => text.slice(start, end))
}

/** What one word rule alone finds in `text`, word by word, as the texts of its spans. */
const foundInWords = (rule: Scan.WordRule, text: string): Array<string> => {
  const scan = Scan.make(text, false)
  const ws = wordsOf(scan)
  for (let i = 0; i < ws.count; i++) if (ws.ids[i] !== 0) rule.at(scan, ws, i)
  return scan.found.map(([start, end]) => text.slice(start, end))
}

const KEY = "sk-proj-abcdefghij0123456789"
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

describe("secret rules, each alone", () => {
  it("known keys: a prefix and enough characters of its kind, and JWTs", () => {
    assert.deepStrictEqual(found(keys, `the key ${KEY}, and AKIAABCDEFGHIJKLMNOP`), [KEY, "AKIAABCDEFGHIJKLMNOP"])
    assert.deepStrictEqual(found(keys, `token ${JWT}`), [JWT])
    assert.deepStrictEqual(found(keys, "sk-short and AKIA123 and eyJhbGciOiJIUzI1NiJ9 alone"), [])
    assert.strictEqual(keys.trigger, Scan.RUNS)
  })

  it("PEM private keys: from BEGIN to END, or to the end of the text", () => {
    const block = "-----BEGIN RSA PRIVATE KEY----- MIIEow -----END RSA PRIVATE KEY-----"
    assert.deepStrictEqual(found(pem, `key: ${block} done`), [block])
    assert.deepStrictEqual(found(pem, "-----BEGIN PRIVATE KEY----- MIIE"), ["-----BEGIN PRIVATE KEY----- MIIE"])
    assert.deepStrictEqual(found(pem, "-----BEGIN CERTIFICATE----- MIIE -----END CERTIFICATE-----"), [])
  })

  it("runs of letters and digits: 32 or more mixing cases and digits, outside a URL", () => {
    const run = "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3"
    assert.deepStrictEqual(found(mixedRuns, `token ${run} here`), [run])
    assert.deepStrictEqual(found(mixedRuns, `https://example.com/${run}`), [])
    assert.deepStrictEqual(found(mixedRuns, "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0"), []) // no upper case
  })

  it("digit runs: 15 or more digits through single spaces and hyphens between groups, outside a URL", () => {
    assert.deepStrictEqual(found(digitRuns, "card 4111 1111 1111 1111 ok"), ["4111 1111 1111 1111"])
    assert.deepStrictEqual(found(digitRuns, "acct 1234-5678-9012-3456"), ["1234-5678-9012-3456"])
    assert.deepStrictEqual(found(digitRuns, "call 12345678901234 now"), []) // 14 digits
    assert.deepStrictEqual(found(digitRuns, "https://example.com/1234567890123456"), [])
  })

  it("URL passwords: the password of scheme://user:password@host", () => {
    assert.deepStrictEqual(found(urlPasswords, "db at postgres://app:hunter22@db.local:5432/x"), ["hunter22"])
    assert.deepStrictEqual(found(urlPasswords, "see https://example.com/a:b@c and mail@example.com"), [])
    assert.isTrue(isUrl("docs.google.com/document/d/1", 0, 28))
    assert.isFalse(isUrl("Tr0ub4dor&3", 0, 11))
  })

  it("user and password pairs: the second word when it reads as a password", () => {
    assert.deepStrictEqual(found(pairs, "login marco / Tr0ub4dor&3-fennel"), ["Tr0ub4dor&3-fennel"])
    assert.deepStrictEqual(found(pairs, "either red / blue or 2024 / 2025"), [])
  })

  it('user and password pairs: a "/" between any white space, next to another, or after a long run of URLs', () => {
    for (const before of SPACES) {
      for (const after of SPACES) {
        const text = `marco${String.fromCharCode(before)}/${String.fromCharCode(after)}Tr0ub4dor&3`
        assert.deepStrictEqual(found(pairs, text), ["Tr0ub4dor&3"], JSON.stringify(text))
      }
    }
    assert.deepStrictEqual(found(pairs, "marco\u200b/\u200bTr0ub4dor&3 or marco\ufeff/\ufeffTr0ub4dor&3"), [])
    assert.deepStrictEqual(found(pairs, "x / / Tr0ub4dor&3"), ["Tr0ub4dor&3"])
    for (let n = 0; n <= 12; n++) {
      // However many "/" without white space come first, the next one between white space is the pair's.
      assert.deepStrictEqual(found(pairs, `${"a/".repeat(n + 1)} / Tr0ub4dor&3`), ["Tr0ub4dor&3"], String(n))
      assert.deepStrictEqual(found(pairs, `${"a/".repeat(n)}a / Tr0ub4dor&3 / x`), ["Tr0ub4dor&3"], String(n))
    }
    const urls = "http://a.co/".repeat(500)
    assert.deepStrictEqual(found(pairs, `${urls} marco / Tr0ub4dor&3 /\tS3cond!pass ${urls}/ /`), [
      "Tr0ub4dor&3",
      "S3cond!pass"
    ])
  })

  it("passwords in English: the value after a link, after a colon, or named before", () => {
    assert.deepStrictEqual(foundInWords(english, "the wifi password is hunter2 now"), ["hunter2"])
    assert.deepStrictEqual(foundInWords(english, "I use swordfish as my password"), ["swordfish"])
    assert.deepStrictEqual(foundInWords(english, "the Wi-Fi password is on the fridge"), [])
    assert.deepStrictEqual(foundInWords(english, "uses Bitwarden as the password manager"), [])
  })

  it("ID labels: a number of 5 or more digits under its label, not a date", () => {
    assert.deepStrictEqual(foundInWords(idLabels, "my SSN is 123-45-6789."), ["123-45-6789"])
    assert.deepStrictEqual(foundInWords(idLabels, "passport number: X1234567"), ["X1234567"])
    assert.deepStrictEqual(foundInWords(idLabels, "passport renewed 2026-11-06"), [])
  })

  it("the word rules run together over words cut once", () => {
    assert.deepStrictEqual(found(wordRules, "PIN 4821 and SSN 123-45-6789"), ["4821", "123-45-6789"])
    assert.strictEqual(wordRules.trigger, Scan.WORDS)
  })

  it("property: the word rules, cutting words only as far as they read, find what each finds over every word", () => {
    const piece = fc.constantFrom(
      "password",
      "pin",
      "is",
      "my",
      "the",
      "as",
      "for",
      "use",
      "picked",
      "ssn",
      "passport",
      "number",
      "to",
      "set",
      ":",
      "-",
      "—",
      ",",
      ".",
      "x",
      "hunter2",
      "4821",
      "123-45-6789",
      "Tr0ub4dor&3",
      '"s3cr3t"',
      "on",
      "it"
    )
    const texts = fc.array(piece, { maxLength: 60 }).map((parts) => parts.join(" "))
    fc.assert(
      fc.property(texts, (text) => {
        const whole = [...foundInWords(english, text), ...foundInWords(idLabels, text)].sort()
        assert.deepStrictEqual(found(wordRules, text).sort(), whole, text)
        const first = Scan.make(text, true)
        wordRules.scan(first)
        assert.strictEqual(first.found.length > 0, whole.length > 0, text)
      }),
      { numRuns: 2_000 }
    )
  })

  it("Chinese: the value after a keyword, and X in 我用X当密码", () => {
    assert.deepStrictEqual(found(chinese, "我的密码是S3cure!pass。"), ["S3cure!pass"])
    assert.deepStrictEqual(found(chinese, "我用hunter2当密码"), ["hunter2"])
    assert.deepStrictEqual(found(chinese, "身份证号码是110101199003071234"), ["110101199003071234"])
    assert.deepStrictEqual(found(chinese, "密码忘了就重置"), [])
  })
})

describe("what starts a rule", () => {
  it("one pass notes the rules that can find something, and no other", () => {
    assert.strictEqual(triggers("The user prefers green tea", false), 0)
    assert.strictEqual(triggers("the password is x", false), Scan.WORDS)
    assert.strictEqual(triggers("mail@example.com / 1", false), Scan.AT | Scan.SLASH)
    assert.strictEqual(triggers(`key ${KEY}`, false) & Scan.RUNS, Scan.RUNS)
    assert.strictEqual(triggers("４密码", false), Scan.NON_ASCII | Scan.CHINESE_WORD)
    assert.strictEqual(triggers("aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3", true), -1)
  })

  it("property: a run of units that start nothing, however long, is read as one of them would be", () => {
    // A long run (16 or more) is passed by a regex; a text with every such run cut to its first unit never takes
    // that path, and must give the same flags, with every kind of unit that starts something after a run.
    const quiet = fc
      .tuple(fc.constantFrom(" ", ".", ",", "\n", "\t", "!", "(", "=", ":", "~"), fc.integer({ min: 1, max: 60 }))
      .map(([unit, count]) => unit.repeat(count))
    const starts = fc.constantFrom(
      "password",
      "sk-proj-abcdefghij0123456789",
      "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3",
      "4111",
      "@",
      "/",
      "-",
      "_",
      "-----BEGIN ",
      "密码",
      "９",
      "é",
      "\ud83d\ude00",
      "\udc00",
      "x"
    )
    const isQuiet = (unit: number) => unit < 0x80 && !/[-0-9A-Za-z_@/]/.test(String.fromCharCode(unit))
    const cut = (text: string) => {
      let out = ""
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i)
        if (!(isQuiet(unit) && i > 0 && isQuiet(text.charCodeAt(i - 1)))) out += text[i]
      }
      return out
    }
    fc.assert(
      fc.property(fc.array(fc.oneof(quiet, starts), { maxLength: 40 }), fc.boolean(), (parts, first) => {
        const text = parts.join("")
        assert.strictEqual(triggers(text, first), triggers(cut(text), first), JSON.stringify(text))
      }),
      { numRuns: 3_000 }
    )
  })

  it('property: the PEM rule runs exactly when the text holds "-----BEGIN "', () => {
    // The pass looks for it at its last "-" alone (the one before the "B"), so runs of dashes of every length, with
    // letters, digits and "_" around them, must still be seen wherever the header starts.
    const piece = fc.constantFrom(
      "-",
      "--",
      "-----",
      "------",
      "BEGIN",
      "BEGIN ",
      "B",
      " ",
      "x",
      "9",
      "_",
      "-----BEGIN"
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.boolean(), (parts, first) => {
        const text = parts.join("")
        const flags = triggers(text, first)
        if (flags !== -1)
          assert.strictEqual((flags & Scan.PEM) !== 0, text.includes("-----BEGIN "), JSON.stringify(text))
      }),
      { numRuns: 5_000 }
    )
    for (const text of ["-----BEGIN ", "x------BEGIN RSA", "a-----BEGIN ", "-----BEGIN", "----BEGIN ", "-----B"]) {
      assert.strictEqual((triggers(text, false) & Scan.PEM) !== 0, text.includes("-----BEGIN "), text)
    }
  })

  it('property: a letter, digit, "_" or "-" alone between units that go on no run starts nothing', () => {
    // Such a unit is read by a path of its own; with every one of them made a ".", the flags are the same but for
    // the digit count. No keyword is one letter, so a letter alone is none.
    assert.deepStrictEqual(
      KEYWORDS.flatMap((word) => word.match(/[a-z]+/g) ?? []).filter((run) => run.length === 1),
      []
    )
    const piece = fc.constantFrom(
      "4",
      "9",
      "a",
      "Z",
      " ",
      ".",
      "/",
      "@",
      "x",
      "_",
      "-",
      "password",
      "密码",
      "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3",
      "sk-proj-abcdefghij0123456789",
      "-----BEGIN "
    )
    const onRun = (unit: number) => /[-0-9A-Za-z_]/.test(String.fromCharCode(unit))
    const alone = (text: string) =>
      text.replace(/[-0-9A-Za-z_]/g, (unit, i: number) =>
        onRun(text.charCodeAt(i - 1)) || onRun(text.charCodeAt(i + 1)) ? unit : "."
      )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.boolean(), (parts, first) => {
        const text = parts.join("")
        const digits = Array.from(text).filter((ch) => /[0-9]/.test(ch)).length >= 15 ? Scan.DIGITS : 0
        assert.strictEqual(triggers(text, first), triggers(alone(text), first) | digits, JSON.stringify(text))
      }),
      { numRuns: 3_000 }
    )
  })
})

describe("the characters", () => {
  it("the classes of a key's characters, read from a table, are their regexes' for every unit", () => {
    const classes: ReadonlyArray<readonly [(c: number) => boolean, RegExp]> = [
      [isAlnum, /^[A-Za-z0-9]$/],
      [isKeyChar, /^[A-Za-z0-9_-]$/],
      [isWordChar, /^[A-Za-z0-9_]$/],
      [isUpperOrDigit, /^[A-Z0-9]$/],
      [isSlackChar, /^[A-Za-z0-9-]$/]
    ]
    const differing: Array<string> = []
    for (const [test, pattern] of classes) {
      for (let c = 0; c <= 0xffff; c++) {
        if (test(c) !== pattern.test(String.fromCharCode(c))) differing.push(`${pattern} ${c}`)
      }
      if (test(Number.NaN)) differing.push(`${pattern} NaN`)
    }
    assert.deepStrictEqual(differing, [])
  })
})

describe("the vocabulary", () => {
  it("property: a word read in place has the id the vocabulary gives it", () => {
    const pieces = [...VOCABULARY.slice(1, 60), "db_", "-", "driver", "'s", "x", "pass", "é", "2"]
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 3 }), (parts) => {
        const word = parts.join("")
        assert.strictEqual(idAt(`  ${word} `, 2, 2 + word.length), vocabularyId(word), word)
      }),
      { numRuns: 3_000 }
    )
    for (const word of VOCABULARY.slice(1)) assert.strictEqual(idAt(word, 0, word.length), vocabularyId(word))
  })

  it("property: any word read in place, by its hash, has the id the vocabulary gives it", () => {
    const unit = fc.constantFrom(..."abcdeiknoprstuvwy_-'2é")
    const word = fc.oneof(fc.string({ unit, minLength: 1, maxLength: 12 }), fc.constantFrom(...VOCABULARY.slice(1)))
    fc.assert(
      fc.property(word, fc.string({ unit, maxLength: 3 }), (text, before) => {
        const padded = `${before} ${text} `
        const from = before.length + 1
        assert.strictEqual(idAt(padded, from, from + text.length), vocabularyId(text), text)
      }),
      { numRuns: 5_000 }
    )
  })

  it("property: the kind of secret a word names, read from the sets of its id, is the one its text names", () => {
    const word = fc.constantFrom(...VOCABULARY.slice(1), "db_password", "api_key", "wifi-pwd", "one-time", "x", "4821")
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), (parts) => {
        const text = parts.join(" ")
        const ws = words(text, lowerCase(text))
        for (let k = 0; k < ws.count; k++) {
          const named = kindOf(wordAt(ws, k), wordAt(ws, k - 1), wordAt(ws, k - 2))
          assert.strictEqual(kindAt(ws, k), named, `${text} @${k}`)
        }
      }),
      { numRuns: 5_000 }
    )
    // Every word of the vocabulary after every word that can change what it names.
    for (const before of ["", "one time", "door", "api", "the", "x"]) {
      for (const named of VOCABULARY.slice(1)) {
        const text = `${before} ${named}`
        const ws = words(text, lowerCase(text))
        const k = ws.count - 1
        assert.strictEqual(kindAt(ws, k), kindOf(wordAt(ws, k), wordAt(ws, k - 1), wordAt(ws, k - 2)), text)
      }
    }
  })

  it("words are cut at white space and separators, without the punctuation around them", () => {
    const text = 'The "password": x1, pin=4821'
    const ws = words(text, lowerCase(text))
    const cut = Array.from({ length: ws.count }, (_, k) => text.slice(ws.start[k], ws.end[k]))
    assert.deepStrictEqual(cut, ["The", "password", ":", "x1", "pin", "=", "4821"])
    assert.deepStrictEqual(Array.from(ws.stop.subarray(0, ws.count)), [0, 1, 0, 1, 0, 0, 0])
    assert.deepStrictEqual(quoted('say "hi" now', 4), [5, 7])
  })
})
