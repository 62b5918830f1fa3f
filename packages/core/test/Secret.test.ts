import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Secret from "../src/Secret.ts"

/** Each text is secret, and redacts to the given text. */
const masks = (cases: ReadonlyArray<readonly [text: string, redacted: string]>) => {
  for (const [text, redacted] of cases) {
    assert.isTrue(Secret.looksSecret(text), `should be secret: ${text}`)
    assert.strictEqual(Secret.redact(text), redacted)
    assert.strictEqual(Secret.redactOnce(text), redacted)
  }
}

/** No text is secret, and redaction leaves each as it is. */
const keeps = (texts: ReadonlyArray<string>) => {
  for (const text of texts) {
    assert.isFalse(Secret.looksSecret(text), `should not be secret: ${text}`)
    assert.strictEqual(Secret.redact(text), text)
    assert.strictEqual(Secret.redactOnce(text), text)
  }
}

const lowerAndDigits = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0"
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
const PEM = "-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAx4Ub -----END RSA PRIVATE KEY-----"

/** One key of each known format; none of them would be caught by the 32-character run rule alone. */
const KEYS: ReadonlyArray<readonly [format: string, key: string]> = [
  ["OpenAI", "sk-" + lowerAndDigits.slice(0, 24)],
  ["OpenAI project", "sk-proj-" + lowerAndDigits.slice(0, 20) + "_x-" + lowerAndDigits.slice(0, 12)],
  ...["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].map(
    (prefix) => ["GitHub", prefix + lowerAndDigits.slice(0, 36)] as const
  ),
  ["GitHub fine-grained", "github_pat_11abcdefg0123456789_abcdefghijklmnop"],
  ["AWS", "AKIAIOSFODNN7EXAMPLE"],
  ["AWS session", "ASIAY34FZKBOKMUTVV7A"],
  ["Slack", "xoxb-123456789012-1234567890123-abcdefghijkl"],
  ["Slack user", "xoxp-123456789012-abcdefghij"],
  ["Google", "AIza" + ("SyD-" + lowerAndDigits).slice(0, 35)],
  ["Stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"],
  ["Stripe restricted", "rk_live_4eC39HqLyjWDarjtT1zdp7dc"],
  ["Stripe publishable", "pk_live_4eC39HqLyjWDarjtT1zdp7dc"],
  ["Stripe test", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"],
  ["Hugging Face", "hf_abcdefghijklmnopqrstuvwxyzabcdefgh"],
  ["JWT", JWT],
  ["PEM", PEM]
]

describe("Secret", () => {
  describe("known key formats", () => {
    it("finds each format and masks the key alone", () => {
      for (const [format, key] of KEYS) {
        assert.isTrue(Secret.looksSecret(key), format)
        assert.strictEqual(Secret.redact(`the ${format} key ${key} is set`), `the ${format} key [secret] is set`)
      }
    })

    it("finds a key given as a value or in a URL", () => {
      masks([
        ["OPENAI_API_KEY=" + KEYS[0]![1], "OPENAI_API_KEY=[secret]"],
        ["Authorization: Bearer " + JWT, "Authorization: Bearer [secret]"],
        ["https://api.example.com/v1?key=" + KEYS[0]![1] + "&x=1", "https://api.example.com/v1?key=[secret]&x=1"]
      ])
    })

    it("masks a PEM key to the end of the text when its END line is missing", () => {
      masks([["key: -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXk", "key: [secret]"]])
    })

    it("leaves look-alikes that are too short or of another kind", () => {
      keeps([
        "sk-" + lowerAndDigits.slice(0, 10),
        "sk-learn-is-a-python-library-for-ml",
        "task-management-board",
        "ghp_" + lowerAndDigits.slice(0, 10),
        "AKIA1234",
        "AKIAIOSFODNN7EXAMPLEX",
        "xoxb-123",
        "AIza" + lowerAndDigits.slice(0, 20),
        "hf_" + lowerAndDigits.slice(0, 10),
        "sk_live_123",
        "eyJhbGciOiJIUzI1NiJ9",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        "-----BEGIN PUBLIC KEY----- MIIBIjANBgkq -----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE----- MIIDdzCCAl+gAwIBAgIE -----END CERTIFICATE-----"
      ])
    })
  })

  describe("runs of 32+ letters and digits outside a URL", () => {
    const id = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"

    it("masks a run mixing upper case, lower case and digits", () => {
      masks([
        [`token ${id} here`, "token [secret] here"],
        [`(${id.slice(0, 32)})`, "([secret])"]
      ])
    })

    it("keeps a document id inside a URL, with or without a scheme, and runs that do not mix all three", () => {
      keeps([
        `https://docs.google.com/document/d/${id}/edit`,
        `docs.google.com/document/d/${id}/edit`,
        `see (docs.google.com/document/d/${id}/edit).`,
        `www.example.com?id=${id}`,
        `文档在docs.google.com/document/d/${id}/edit里`,
        id.slice(0, 31),
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "ThisIsAVeryLongCamelCaseIdentifierWithoutDigits",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
      ])
    })
  })

  describe("15 or more digits outside a URL", () => {
    it("reads through single spaces between digits and hyphens between groups of 3+", () => {
      masks([
        ["card 4111 1111 1111 1111 exp 12/29", "card [secret] exp 12/29"],
        ["4111-1111-1111-1111", "[secret]"],
        ["account 123456789012345.", "account [secret]."],
        ["1 2 3 4 5 6 7 8 9 0 1 2 3 4 5", "[secret]"],
        ["iban 123-456-789-012-345 ok", "iban [secret] ok"]
      ])
    })

    it("keeps shorter numbers, phone numbers, dates, double spaces and numbers in URLs", () => {
      keeps([
        "12345678901234",
        "call 555-123-4567 or +1 415 555 0134",
        "555-12-34-56-78-90-12-34-56",
        "on 2026-11-06 at 10:30, then 2026-11-07",
        "4111  1111  1111  1111",
        "https://example.com/item/1234567890123456789",
        "example.com/orders/1234567890123456789"
      ])
    })
  })

  describe("passwords, PINs and codes given with their value", () => {
    it("masks the value and keeps the sentence", () => {
      masks([
        ["the root password is hunter2", "the root password is [secret]"],
        ["I use correct horse as my password", "I use [secret] as my password"],
        ["I use correct horse as my password for everything.", "I use [secret] as my password for everything."],
        ["pin: 4821", "pin: [secret]"],
        ["my PIN is 1234", "my PIN is [secret]"],
        ["PIN 4821", "PIN [secret]"],
        ["The wifi password for the office is Tea4Two.", "The wifi password for the office is [secret]."],
        ['the password is "correct horse battery staple".', 'the password is "[secret]".'],
        ["the password is swordfish", "the password is [secret]"],
        ["Password: hunter2, username: bob", "Password: [secret], username: bob"],
        ["DB_PASSWORD=s3cr3t-value", "DB_PASSWORD=[secret]"],
        ["set the PIN to 9731", "set the PIN to [secret]"],
        ["hunter2 is my password.", "[secret] is my password."],
        ["I use 4821 as my PIN", "I use [secret] as my PIN"],
        ["the one-time code is 552211", "the one-time code is [secret]"],
        ["verification code: 552211", "verification code: [secret]"],
        ["security code 123", "security code [secret]"],
        ["my passcode is 8812", "my passcode is [secret]"],
        ["the user's locker code is 4412", "the user's locker code is [secret]"],
        ["the API key is abcd1234efgh5678", "the API key is [secret]"],
        ["postgres://admin:s3cretpw@db.internal:5432/app", "postgres://admin:[secret]@db.internal:5432/app"]
      ])
    })

    it("keeps talk about passwords that gives none", () => {
      keeps([
        "the user keeps everything in a password manager",
        "the password policy requires 12 characters",
        "the password was reset",
        "the password was changed yesterday",
        "a PIN pad",
        "the PIN pad is broken",
        "uses Bitwarden for password storage",
        "change your password",
        "I use Bitwarden as my password manager",
        "I use it as my password",
        "the password is stored in 1Password",
        "the password is correct",
        "the PIN is required",
        "Passwords expire every 90 days",
        "the security code is on the back of the card",
        "the token is expired",
        "the password is written on a sticky note",
        "the PIN is 6 digits",
        "the user's password is 8+ characters long",
        "the password is [secret]",
        "I use [secret] as my password"
      ])
    })
  })

  describe("passwords named after their value", () => {
    it("masks a value used or picked as a password named with its owner and what it opens", () => {
      masks([
        ["The user uses hunter2 as the root password", "The user uses [secret] as the root password"],
        ["I use Tr0ub4dor as my home wifi password.", "I use [secret] as my home wifi password."],
        ["The user picked correct-horse-7 for the router password", "The user picked [secret] for the router password"],
        ["The user picked swordfish as the password", "The user picked [secret] as the password"],
        ["She chose 4821 as her PIN", "She chose [secret] as her PIN"]
      ])
    })

    it("keeps the reverse cases: talk about a password that gives none", () => {
      keeps([
        "The Wi-Fi password is on the fridge",
        "The password field on the login page is broken",
        "The user's email password was changed last week",
        "The user picked Bitwarden as the team password manager",
        "The user picked it as the password",
        "The user picked a new password"
      ])
    })

    it("masks neighbours of those: other owners, names and verbs, an ordinary word, quoted words", () => {
      masks([
        ["The user uses hunter2 as the root password.", "The user uses [secret] as the root password."],
        [
          "The user uses hunter2 as their root password on every server",
          "The user uses [secret] as their root password on every server"
        ],
        ["He chose Tea4Two for the Wi-Fi password", "He chose [secret] for the Wi-Fi password"],
        [
          "The user picked correct-horse-7 for the router's password",
          "The user picked [secret] for the router's password"
        ],
        ["The user uses sunlight as the password", "The user uses [secret] as the password"],
        ["picked 'the quick brown fox' as the password", "picked '[secret]' as the password"],
        ['I use "my dog" as my password', 'I use "[secret]" as my password']
      ])
    })

    it("keeps a description used or picked as a password, and a password's name that names something else", () => {
      keeps([
        "The user uses the same password as the root password",
        "I use the same as my password",
        "uses his birthday as the PIN",
        "uses her dog's name as the root password",
        "uses a passphrase as the root password",
        "uses the root password as the admin password",
        "uses 2FA as well as the root password",
        "The user picked a long one for the router password",
        "The user picked the same for the router password",
        "The user picked a random string as the password",
        "uses bcrypt as the password hash",
        "uses KeePass as the password vault",
        "The user picked Bitwarden for the team password manager"
      ])
    })

    it("still masks a code or password given after its name", () => {
      masks([
        ["The one-time code is 358672", "The one-time code is [secret]"],
        ["set the NAS password to qwerty123", "set the NAS password to [secret]"]
      ])
    })
  })

  describe("passwords given with their value in a sentence, a line or a pair", () => {
    it("masks the value however the sentence goes on after the password's name", () => {
      masks([
        ["I use purple monkey as my password lately", "I use [secret] as my password lately"],
        ["I use purple monkey as my password\nlately", "I use [secret] as my password\nlately"],
        ["I use purple monkey as my password - lately", "I use [secret] as my password - lately"],
        ["I use purple monkey as my password—lately", "I use [secret] as my password—lately"],
        ["I use purple monkey as my password hint", "I use [secret] as my password hint"],
        ["uses sunlight as the password hint", "uses [secret] as the password hint"],
        ['["I use purple monkey as my password","lately"]', '["I use [secret] as my password","lately"]'],
        ['{"text":"I use purple monkey as my password","more":1}', '{"text":"I use [secret] as my password","more":1}']
      ])
    })

    it("masks a value after a colon later in the sentence, a dash, a credential's name and a user / password pair", () => {
      masks([
        [
          "Good idea. Here is the read-only DB password for staging if you want to check: Tr0ub4dor&3-fennel.",
          "Good idea. Here is the read-only DB password for staging if you want to check: [secret]."
        ],
        ["Staging DB read-only credential: Tr0ub4dor&3-fennel", "Staging DB read-only credential: [secret]"],
        ["the staging credentials are s3cret-pass", "the staging credentials are [secret]"],
        ["password - Tr0ub4dor&3", "password - [secret]"],
        ["log in as marco / Tr0ub4dor&3-fennel please", "log in as marco / [secret] please"],
        ["marco / Tr0ub4dor3fennel", "marco / [secret]"]
      ])
    })

    it("keeps sentences that only mention passwords, and pairs whose second word is no password", () => {
      keeps([
        "I reset my password yesterday",
        "password managers are useful",
        "I forgot my password again",
        "credentials are stored in the vault",
        "The login credentials: ask Priya",
        "Password requirements: 12 characters",
        "Password reset steps: 1. open settings",
        "the password expires on: 2026-12-01",
        'The root password is [secret], so {"changes": [{"op": "add", "id": "a1b2c3"}]}',
        "the password we use is long, see: x1234",
        "HTTP 404: invalid api key, from POST http://model.test/v1/chat/completions",
        "Here is the password policy, if you want to read it: docs.example.com/policy",
        "Change your password - it is 90 days old",
        "Use a password manager — it helps",
        "He uses 1Password as his password manager",
        '["password","username"]',
        "iOS / iPadOS17",
        "React / TypeScript5",
        "src / lib/util2.ts",
        "50 / 50"
      ])
    })
  })

  describe("Chinese", () => {
    it("masks a password or code given with its value", () => {
      masks([
        ["我的密码是hunter2，别告诉别人", "我的密码是[secret]，别告诉别人"],
        ["密码：abc12345", "密码：[secret]"],
        ["密码: abc12345", "密码: [secret]"],
        ["我用correct horse当密码", "我用[secret]当密码"],
        ["我用芝麻开门当密码。", "我用[secret]当密码。"],
        ["密码就是“芝麻开门”", "密码就是“[secret]”"],
        ["验证码是 482913", "验证码是 [secret]"],
        ["PIN码是1234", "PIN码是[secret]"],
        ["WiFi密码为Tea4Two", "WiFi密码为[secret]"]
      ])
    })

    it("reads a value used as a password through ASCII punctuation inside it", () => {
      masks([
        ["我用S3cure!pass当密码", "我用[secret]当密码"],
        ["我用my.pass.word当密码。", "我用[secret]当密码。"],
        ["我用 abc.def!42 当密码", "我用 [secret] 当密码"]
      ])
    })

    it("reads a value used as a password through ASCII punctuation ending it", () => {
      masks([
        ["我用S3cure!pass.当密码", "我用[secret]当密码"],
        ["我用hunter2!当密码", "我用[secret]当密码"]
      ])
    })

    it("keeps a vague word used as a password, and ASCII punctuation after Chinese before 当密码", () => {
      keeps(["我用它当密码", "我用这个当密码", "我用Bitwarden管理账号.当密码忘了就重置"])
    })

    it("keeps a clause that ASCII punctuation ends before 当密码", () => {
      keeps(["用户的密码是保密的，不要问", "我用Bitwarden管理账号. 当密码忘了就重置"])
    })

    it("keeps talk about passwords that gives none", () => {
      keeps([
        "密码管理器很好用",
        "密码已重置",
        "请修改密码",
        "密码策略要求十二位",
        "密码是否正确要检查",
        "验证码已发送"
      ])
    })
  })

  describe("ID numbers under their label", () => {
    it("masks the number", () => {
      masks([
        ["SSN 123-45-6789", "SSN [secret]"],
        ["my social security number is 123-45-6789.", "my social security number is [secret]."],
        ["Passport No. X12345678", "Passport No. [secret]"],
        ["passport number: E1234567 (UK)", "passport number: [secret] (UK)"],
        ["tax id: 12-3456789", "tax id: [secret]"],
        ["driver’s licence number is AB123456C", "driver’s licence number is [secret]"],
        ["drivers license D1234-5678", "drivers license [secret]"],
        ["national id 4501 2345 6789", "national id [secret]"],
        ["护照号：E12345678", "护照号：[secret]"],
        ["身份证号码是110101199003071234", "身份证号码是[secret]"],
        ["社保卡号 1234567890", "社保卡号 [secret]"]
      ])
    })

    it("keeps a date, a part of a number, and labels without a number", () => {
      keeps([
        "passport: 2030-01-01",
        "passport expires 12/05/2030",
        "SSN: 2026-11-06",
        "SSN ends in 6789",
        "my passport is in the drawer",
        "user id 12345678",
        "护照：2030-05-01",
        "护照有效期到2030-05-01",
        "身份证放在抽屉里"
      ])
    })
  })

  describe("text as a person sees it", () => {
    const key = "1AbCdEfGhIjKlMnOpQrS\u2060tUvWxYz0123456789abc"

    it("ignores invisible format characters and folds compatibility forms", () => {
      masks([
        ["the one-time code is\u200b 552871", "the one-time code is\u200b [secret]"],
        ["passport number K8\u00ad3920174", "passport number [secret]"],
        [`key ${key} here`, "key [secret] here"],
        ["My bank PIN is ９０４１７", "My bank PIN is [secret]"],
        ["card ４１１１　１１１１　１１１１　１１１１ exp", "card [secret] exp"],
        [
          "p\u200ba\u200bs\u200bs\u200bw\u200bo\u200br\u200bd: hunter2",
          "p\u200ba\u200bs\u200bs\u200bw\u200bo\u200br\u200bd: [secret]"
        ],
        ["ｐａｓｓｗｏｒｄ ｉｓ ｈｕｎｔｅｒ２", "ｐａｓｓｗｏｒｄ ｉｓ [secret]"],
        ["the token is ghp_\ufeff" + lowerAndDigits.slice(0, 36), "the token is [secret]"]
      ])
    })

    it("masks the span of the original text, never half a surrogate pair", () => {
      masks([
        ["my PIN is 𝟗𝟎𝟒𝟏 😀", "my PIN is [secret] 😀"],
        ["my PIN is 48\u{E0061}21, ok", "my PIN is [secret], ok"],
        ["my PIN is 4821\u{E0061}", "my PIN is [secret]\u{E0061}"],
        ["\u200bmy PIN is 4821\u200b", "\u200bmy PIN is [secret]\u200b"],
        ["😀\u200d😀 PIN ①②③④ 😀", "😀\u200d😀 PIN [secret] 😀"]
      ])
    })

    it("keeps text that only looks different", () => {
      keeps([
        "zero\u200bwidth and soft\u00adhyphen in the user's notes",
        "👩\u200d💻 the user codes in Rust",
        "Ｔｈｅ ｕｓｅｒ likes ｔｅａ at ５ pm",
        "café and cafe\u0301 are the same word",
        "the ﬁle is in the ｄｏｃｓ folder"
      ])
    })

    it("finds the same secrets, in place, in a text hidden with format characters and full-width forms", () => {
      const piece = fc.constantFrom(
        "password is ",
        "hunter2",
        "pin ",
        "1234 ",
        "4111 1111 1111 1111",
        "I use ",
        "as my ",
        "😀",
        "密码是",
        "我用",
        "当密码",
        "ghp_",
        lowerAndDigits,
        "AbC9",
        "ssn ",
        "123-45-6789",
        ", ",
        "x"
      )
      const hidden = fc.constantFrom("", "\u200b", "\u00ad", "\u2060", "\ufeff", "\u{E0061}")
      const wide = (text: string) =>
        text.replace(/[0-9A-Za-z]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) - 0x20 + 0xff00))
      const plain = (text: string) =>
        text
          .replace(/[\u200b\u00ad\u2060\ufeff]|\u{E0061}/gu, "")
          .replace(/[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]/g, (ch) =>
            String.fromCharCode(ch.charCodeAt(0) - 0xff00 + 0x20)
          )
      const hiddenText = fc.array(fc.tuple(piece, hidden, fc.boolean())).map((parts) => ({
        text: parts.map(([part]) => part).join(""),
        shown: parts.map(([part, mark, widen]) => (widen ? wide(part) : part) + mark).join("")
      }))
      fc.assert(
        fc.property(hiddenText, ({ text, shown }) => {
          assert.strictEqual(Secret.looksSecret(shown), Secret.looksSecret(text))
          assert.strictEqual(plain(Secret.redact(shown)), Secret.redact(text))
        })
      )
    })

    it("never splits a surrogate pair, and finds a secret exactly where redaction masks one", () => {
      const piece = fc.constantFrom(
        "password is ",
        "pin ",
        "1234 ",
        "１２３４",
        "𝟗",
        "\u200b",
        "\u00ad",
        "\u{E0061}",
        "😀",
        "密码是",
        "我用",
        "当密码",
        "ghp_",
        "AbC9",
        "x"
      )
      fc.assert(
        fc.property(
          fc.array(piece).map((pieces) => pieces.join("")),
          (text) => {
            const redacted = Secret.redact(text)
            assert.isTrue(redacted.isWellFormed())
            assert.strictEqual(redacted !== text, Secret.looksSecret(text))
            assert.strictEqual(Secret.spans(text).length > 0, Secret.looksSecret(text))
            for (const [start, end] of Secret.spans(text)) {
              assert.isTrue(text.slice(start, end).isWellFormed(), `${start}-${end} of ${JSON.stringify(text)}`)
            }
          }
        )
      )
    })
  })

  describe("redaction", () => {
    it("masks every secret of a text and keeps the rest, emoji and Chinese included", () => {
      assert.strictEqual(
        Secret.redact(`😀 用户的PIN是 my PIN is 1234 😀, key ${KEYS[6]![1]}; card 4111 1111 1111 1111 🎉`),
        "😀 用户的PIN是 my PIN is [secret] 😀, key [secret]; card [secret] 🎉"
      )
    })

    it("gives the spans sorted and merged", () => {
      const text = "pin 4111 1111 1111 1111 and sk-" + lowerAndDigits.slice(0, 24)
      assert.deepStrictEqual(Secret.spans(text), [
        [4, 23],
        [28, text.length]
      ])
      assert.deepStrictEqual(Secret.spans("nothing here"), [])
    })

    it("finds nothing more in a text it has redacted", () => {
      const samples = [
        "the root password is hunter2",
        "I use correct horse as my password",
        "我用芝麻开门当密码",
        "postgres://admin:s3cretpw@db.internal/app",
        `the key ${KEYS[0]![1]} and ${JWT}`,
        "SSN 123-45-6789, card 4111 1111 1111 1111"
      ]
      for (const text of samples) {
        const once = Secret.redact(text)
        assert.isFalse(Secret.looksSecret(once), once)
        assert.strictEqual(Secret.redact(once), once)
      }
    })

    it("keeps the context around a self-contained secret, whatever the context", () => {
      const word = fc.constantFrom(
        "the user",
        "likes tea",
        "喜欢喝茶",
        "😀",
        "𠀀",
        "a PIN pad",
        "password manager",
        "2026-11-06",
        "docs.google.com/document/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/edit"
      )
      const context = fc.array(word, { maxLength: 6 }).map((words) => words.join(" "))
      const secret = fc.constantFrom(...KEYS.map(([, key]) => key), "4111 1111 1111 1111")
      fc.assert(
        fc.property(context, secret, context, (before, key, after) => {
          assert.isFalse(Secret.looksSecret(before))
          assert.strictEqual(Secret.redact(`${before}, ${key}, ${after}`), `${before}, [secret], ${after}`)
        })
      )
    })

    it("never splits a surrogate pair, and changes a text exactly when it finds a secret", () => {
      const piece = fc.constantFrom(
        "password is ",
        "pin ",
        "1234 ",
        "😀",
        "密码是",
        "我用",
        "当密码",
        "sk-",
        "AbC9",
        "x"
      )
      const text = fc.oneof(
        fc.string({ unit: "binary" }),
        fc.array(piece).map((pieces) => pieces.join(""))
      )
      fc.assert(
        fc.property(text, (text) => {
          const redacted = Secret.redact(text)
          assert.strictEqual(redacted.isWellFormed(), text.isWellFormed())
          assert.strictEqual(redacted !== text, Secret.looksSecret(text))
        })
      )
    })
  })

  describe("the host's own test", () => {
    it("is consulted beside the built-in detection", () => {
      const seen: Array<string> = []
      const host = (text: string) => {
        seen.push(text)
        return text.includes("ZX-")
      }
      assert.isTrue(Secret.looksSecret("ticket ZX-99", host))
      assert.isFalse(Secret.looksSecret("ticket ZX-99"))
      assert.isFalse(Secret.looksSecret("ticket AB-12", host))
      assert.deepStrictEqual(seen, ["ticket ZX-99", "ticket AB-12"])
      assert.isTrue(Secret.looksSecret("pin: 4821", () => false))
    })
  })

  describe("hostile texts", () => {
    it("masks each of two digit-and-space runs split by anything, and keeps what splits them", () => {
      const run = "1 2 3 4 5 6 7 8 9 0 ".repeat(2)
      for (const middle of ["x", "/", "@", "a.b/c", "password"]) {
        assert.strictEqual(Secret.redact(run + middle + run), `[secret] ${middle}[secret] `, middle)
      }
    })

    it("finds a secret exactly where redaction masks one (the speed of these shapes is bench/secret.ts's)", () => {
      const shapes = [
        "password is password for password as my password ",
        "密码是密码：我用密码当密码验证码是",
        "4 1 1 1 ",
        "aB3",
        "eyJhbGciOiJ.",
        "[key: ",
        "[a:",
        "sk-",
        "123-",
        "http://a.co/",
        'password is "',
        "I use x as my password, ",
        "ssn passport 1 2 3 4 5 6 7 8 9 0 ",
        "-----BEGIN RSA ",
        "９\u200b",
        "m / Tr0ub4dor&3 ",
        "password a b c d e f g h i j k : ",
        '"password","',
        "password - ",
        "credential: "
      ]
      for (const shape of shapes) {
        const text = shape.repeat(Math.ceil(20_000 / shape.length)).slice(0, 20_000)
        const found = Secret.spans(text)
        assert.strictEqual(found.length > 0, Secret.looksSecret(text), shape)
        assert.strictEqual(Secret.redact(text) !== text, found.length > 0, shape)
        found.forEach(([start, end], k) => {
          assert.isBelow(start, end, shape)
          if (k > 0) assert.isAbove(start, found[k - 1]![1], shape)
        })
      }
    })
  })
})

describe("Secret.redactor", () => {
  const texts = fc.oneof(
    fc.string({ unit: fc.constantFrom(..."aZ7 :-_/@.", "password is ", "sk-", "4111 1111 1111 1111", "密码是") }),
    fc.string({ unit: "binary", maxLength: 80 })
  )

  it("redacts every text as Secret.redact does, asked once or again, past its limit and past its longest text", () => {
    const redact = Secret.redactor(3)
    fc.assert(
      fc.property(texts, (text) => {
        const once = redact(text)
        assert.strictEqual(once, Secret.redact(text))
        assert.strictEqual(redact(text), once)
      })
    )
    const long = "my password is hunter2 ".repeat(200)
    assert.strictEqual(redact(long), Secret.redact(long))
    assert.notInclude(redact(long), "hunter2")
  })
})
