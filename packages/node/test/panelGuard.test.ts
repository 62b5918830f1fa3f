/**
 * Who may use the panel, as pure judgements: the Host header must name the served address, the access token comes
 * from the link (traded for a cookie) or the cookie, a change must not come from another site, and page tokens are
 * signed with the run's secret.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Guard from "../src/internal/panel/guard.ts"

const keys: Guard.Keys = {
  token: "a".repeat(64),
  secret: "s".repeat(64),
  hosts: Guard.hostsFor("127.0.0.1", 4177, []),
  cookie: Guard.cookieName(4177)
}

const seen = (over: Partial<Guard.Seen> = {}): Guard.Seen => ({
  method: "GET",
  url: "/agent?id=ada",
  host: "127.0.0.1:4177",
  cookie: keys.token,
  origin: undefined,
  referer: undefined,
  fetchSite: undefined,
  ...over
})

describe("panel guard", () => {
  it("names the served address, localhost beside a loopback one, every interface beside a wildcard", () => {
    assert.deepStrictEqual([...Guard.hostsFor("127.0.0.1", 80, [])], ["127.0.0.1:80", "localhost:80"])
    assert.deepStrictEqual([...Guard.hostsFor("::1", 80, [])], ["[::1]:80", "localhost:80"])
    assert.deepStrictEqual([...Guard.hostsFor("Box.local", 80, [])], ["box.local:80"])
    assert.deepStrictEqual(
      [...Guard.hostsFor("0.0.0.0", 80, ["127.0.0.1", "10.1.2.3", "fe80::1"])],
      ["localhost:80", "127.0.0.1:80", "10.1.2.3:80", "[fe80::1]:80"]
    )
    assert.isTrue(Guard.isLoopback("127.0.0.2"))
    assert.isFalse(Guard.isLoopback("0.0.0.0"))
  })

  it("refuses another Host before anything else, token or not", () => {
    for (const host of [undefined, "evil.example:4177", "127.0.0.1:4178", "127.0.0.1"]) {
      assert.deepStrictEqual(Guard.judge(keys, seen({ host })), { _tag: "WrongHost" }, String(host))
      assert.deepStrictEqual(Guard.judge(keys, seen({ host, cookie: undefined, url: `/?token=${keys.token}` })), {
        _tag: "WrongHost"
      })
    }
    assert.deepStrictEqual(Guard.judge(keys, seen({ host: "LocalHost:4177" })), { _tag: "Pass" })
  })

  it("trades the link's token for the cookie and the same address without it; a wrong one is refused", () => {
    assert.deepStrictEqual(Guard.judge(keys, seen({ cookie: undefined, url: `/agent?id=ada&token=${keys.token}` })), {
      _tag: "TokenGiven",
      location: "/agent?id=ada"
    })
    assert.deepStrictEqual(Guard.judge(keys, seen({ cookie: undefined, url: `/?token=${keys.token}` })), {
      _tag: "TokenGiven",
      location: "/"
    })
    assert.deepStrictEqual(Guard.judge(keys, seen({ url: `/?token=${"b".repeat(64)}` })), { _tag: "NoToken" })
    assert.deepStrictEqual(Guard.judge(keys, seen({ method: "POST", url: `/ask?token=${keys.token}` })), {
      _tag: "NoToken"
    })
  })

  it("needs the cookie's token on every other request", () => {
    for (const cookie of [undefined, "", "a".repeat(63), "b".repeat(64), `${keys.token}x`]) {
      assert.deepStrictEqual(Guard.judge(keys, seen({ cookie })), { _tag: "NoToken" }, String(cookie))
    }
    assert.deepStrictEqual(Guard.judge(keys, seen()), { _tag: "Pass" })
  })

  it("refuses a change from another site, by its Origin or Sec-Fetch-Site", () => {
    const post = (over: Partial<Guard.Seen>) => Guard.judge(keys, seen({ method: "POST", url: "/ask", ...over }))
    for (const over of [
      { origin: "http://evil.example" },
      { origin: "null" },
      { origin: "http://127.0.0.1:4178" },
      { fetchSite: "cross-site" },
      { fetchSite: "same-site" }
    ]) {
      assert.deepStrictEqual(post(over), { _tag: "OtherSite" }, JSON.stringify(over))
    }
    assert.deepStrictEqual(post({ origin: "http://127.0.0.1:4177", fetchSite: "same-origin" }), { _tag: "Pass" })
    assert.deepStrictEqual(Guard.judge(keys, seen({ origin: "http://evil.example" })), { _tag: "Pass" })
  })

  it("refuses a change whose Referer names another site where no Origin is sent", () => {
    const post = (over: Partial<Guard.Seen>) => Guard.judge(keys, seen({ method: "POST", url: "/ask", ...over }))
    for (const referer of [
      "http://evil.example/page",
      "http://127.0.0.1:4178/agent?id=ada",
      "https://127.0.0.1:4177/agent?id=ada",
      "http://127.0.0.1.evil.example:4177/",
      "not an address"
    ]) {
      assert.deepStrictEqual(post({ referer }), { _tag: "OtherSite" }, referer)
    }
    // The Origin, where one is sent, says where a change comes from: a `null` one is another site.
    assert.deepStrictEqual(post({ origin: "null", referer: "http://127.0.0.1:4177/agent?id=ada" }), {
      _tag: "OtherSite"
    })
    for (const referer of ["http://127.0.0.1:4177/agent?id=ada", "http://LOCALHOST:4177/journal?agent=ada"]) {
      assert.deepStrictEqual(post({ referer }), { _tag: "Pass" }, referer)
    }
    assert.deepStrictEqual(Guard.judge(keys, seen({ referer: "http://evil.example/" })), { _tag: "Pass" })
  })

  it("refuses a change that says nothing of where it comes from (neither Origin nor Referer)", () => {
    const post = (over: Partial<Guard.Seen>) => Guard.judge(keys, seen({ method: "POST", url: "/ask", ...over }))
    assert.deepStrictEqual(post({}), { _tag: "UnknownSite" })
    assert.deepStrictEqual(post({ fetchSite: "same-origin" }), { _tag: "UnknownSite" })
    assert.deepStrictEqual(post({ fetchSite: "cross-site" }), { _tag: "OtherSite" })
    assert.deepStrictEqual(Guard.judge(keys, seen()), { _tag: "Pass" })
  })

  it("takes an Origin on port 80 as the browser sends it, without the port", () => {
    const on80: Guard.Keys = { ...keys, hosts: Guard.hostsFor("127.0.0.1", 80, []) }
    const post = (origin: string) => Guard.judge(on80, seen({ method: "POST", host: "127.0.0.1:80", origin }))
    assert.deepStrictEqual(post("http://127.0.0.1"), { _tag: "Pass" })
    assert.deepStrictEqual(post("http://127.0.0.1:8080"), { _tag: "OtherSite" })
  })

  it("signs a new token for each page, and takes only tokens signed with its own secret", () => {
    const first = Guard.pageToken(keys.secret)
    const second = Guard.pageToken(keys.secret)
    assert.notStrictEqual(first, second)
    assert.isTrue(Guard.validPageToken(keys.secret, first))
    assert.isTrue(Guard.validPageToken(keys.secret, second))
    const [nonce, signature] = first.split(".")
    for (const forged of [
      undefined,
      "",
      nonce!,
      `${nonce}.`,
      `.${signature}`,
      `${nonce}.${signature!.slice(1)}0`,
      `${second.split(".")[0]}.${signature}`,
      Guard.pageToken("another secret")
    ]) {
      assert.isFalse(Guard.validPageToken(keys.secret, forged), String(forged))
    }
  })
})
