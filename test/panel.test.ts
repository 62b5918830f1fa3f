/**
 * `mneme panel` at the HTTP level (issue 14, safety): the access token from the printed link, traded for a cookie
 * marked HttpOnly and SameSite=Strict; 401 and nothing changed without it; the Host header must name the served
 * address; a change needs the token of a page the panel served and must come from its own pages; no CORS; and what
 * the command says when it cannot serve.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { createServer } from "node:net"
import { assertFailure, mneme, scratch } from "./cliKit.ts"
import { cookie, ownOrigin, pageToken, send, startPanel } from "./panelKit.ts"

/** A memory folder with one entry of agent ada, and the panel over it. */
const panelWithMemory = async () => {
  const { memory } = scratch()
  assert.strictEqual(mneme(["remember", "Ada drinks green tea", "--memory", memory, "--agent", "ada"]).code, 0)
  const served = await startPanel(["--memory", memory])
  const file = join(memory, "agents/ada/MEMORY.md")
  return { memory, served, file, before: readFileSync(file, "utf8") }
}

const addForm = (page: string) => ({ page, agent: "ada", side: "own", topic: "", text: "Ada lives in Lisbon" })

describe("mneme panel: the access token", () => {
  it("prints its address on 127.0.0.1 and a link with a random token of 64 hex digits", async () => {
    const { served } = await panelWithMemory()
    const again = await startPanel(["--memory", scratch().memory])
    assert.match(served.address, /^http:\/\/127\.0\.0\.1:\d+\/$/)
    assert.strictEqual(served.link, `${served.address}?token=${served.token}`)
    assert.notStrictEqual(served.token, again.token)
    assert.include(served.output().stdout, "keep it to yourself")
  })

  it("answers 401 without the token, and shows nothing of memory", async () => {
    const { served } = await panelWithMemory()
    for (const path of ["/", "/agent?id=ada", "/journal?agent=ada", "/panel.js"]) {
      const response = await send(served.port, path)
      assert.strictEqual(response.status, 401, path)
      assert.include(response.body, "open the link <code>mneme panel</code> printed")
      assert.notInclude(response.body, "green tea")
    }
    const wrong = await send(served.port, `/?token=${"0".repeat(64)}`)
    assert.strictEqual(wrong.status, 401)
    assert.isUndefined(wrong.headers["set-cookie"])
  })

  it("trades the link's token for an HttpOnly, SameSite=Strict cookie and the address without the token", async () => {
    const { served } = await panelWithMemory()
    const opened = await send(served.port, `/agent?id=ada&token=${served.token}`)
    assert.strictEqual(opened.status, 303)
    assert.strictEqual(opened.headers["location"], "/agent?id=ada")
    const [set] = opened.headers["set-cookie"] as ReadonlyArray<string>
    assert.strictEqual(set, `mneme-panel-${served.port}=${served.token}; Path=/; HttpOnly; SameSite=Strict`)
    const page = await send(served.port, "/agent?id=ada", { headers: cookie(served) })
    assert.strictEqual(page.status, 200)
    assert.include(page.body, "Ada drinks green tea")
    const other = await send(served.port, "/agent?id=ada", {
      headers: { cookie: `mneme-panel-${served.port}=${"f".repeat(64)}` }
    })
    assert.strictEqual(other.status, 401)
  })

  it("changes nothing for a change sent without the token, even with a page token", async () => {
    const { served, file, before } = await panelWithMemory()
    const page = await send(served.port, "/agent?id=ada", { headers: cookie(served) })
    const token = pageToken(page.body)
    const refused = await send(served.port, "/entry/add", { headers: ownOrigin(served), form: addForm(token) })
    assert.strictEqual(refused.status, 401)
    const viaLink = await send(served.port, `/entry/add?token=${served.token}`, {
      headers: ownOrigin(served),
      form: addForm(token)
    })
    assert.strictEqual(viaLink.status, 401)
    assert.strictEqual(readFileSync(file, "utf8"), before)
  })
})

describe("mneme panel: the Host header", () => {
  it("answers only to the served address (and localhost for a loopback one)", async () => {
    const { served } = await panelWithMemory()
    for (const host of [`evil.example:${served.port}`, "127.0.0.1:1", `127.0.0.1.nip.io:${served.port}`]) {
      const response = await send(served.port, "/", { headers: { ...cookie(served), host } })
      assert.strictEqual(response.status, 403, host)
      assert.notInclude(response.body, "ada")
    }
    const rebound = await send(served.port, `/?token=${served.token}`, { headers: { host: "evil.example" } })
    assert.strictEqual(rebound.status, 403)
    assert.isUndefined(rebound.headers["set-cookie"])
    for (const host of [`127.0.0.1:${served.port}`, `localhost:${served.port}`, `LOCALHOST:${served.port}`]) {
      assert.strictEqual((await send(served.port, "/", { headers: { ...cookie(served), host } })).status, 200, host)
    }
  })

  it("refuses a change sent under another Host, and changes nothing", async () => {
    const { served, file, before } = await panelWithMemory()
    const token = pageToken((await send(served.port, "/agent?id=ada", { headers: cookie(served) })).body)
    const response = await send(served.port, "/entry/add", {
      headers: { ...cookie(served), host: `attacker.example:${served.port}` },
      form: addForm(token)
    })
    assert.strictEqual(response.status, 403)
    assert.strictEqual(readFileSync(file, "utf8"), before)
  })
})

describe("mneme panel: the page token of a change", () => {
  it("refuses a change without a page token, or with one the panel did not sign, and changes nothing", async () => {
    const { served, file, before } = await panelWithMemory()
    const page = (await send(served.port, "/agent?id=ada", { headers: cookie(served) })).body
    const token = pageToken(page)
    const [nonce] = token.split(".")
    const { page: _, ...withoutToken } = addForm(token)
    for (const form of [withoutToken, addForm(""), addForm(`${nonce}.${"0".repeat(64)}`), addForm(nonce!)]) {
      const response = await send(served.port, "/entry/add", {
        headers: { ...cookie(served), ...ownOrigin(served) },
        form
      })
      assert.strictEqual(response.status, 403, JSON.stringify(form))
      assert.include(response.body, "reload the page")
    }
    assert.strictEqual(readFileSync(file, "utf8"), before)
  })

  it("gives each page its own token, and takes a change with the token of a page it served", async () => {
    const { served, file } = await panelWithMemory()
    const first = pageToken((await send(served.port, "/agent?id=ada", { headers: cookie(served) })).body)
    const second = pageToken((await send(served.port, "/agent?id=ada", { headers: cookie(served) })).body)
    assert.notStrictEqual(first, second)
    const response = await send(served.port, "/entry/add", {
      headers: { ...cookie(served), ...ownOrigin(served) },
      form: addForm(first)
    })
    assert.strictEqual(response.status, 200)
    assert.include(response.body, "added to agents/ada/MEMORY.md")
    assert.include(readFileSync(file, "utf8"), "- Ada lives in Lisbon [added: ")
  })

  it("refuses a change another site sends, by its Origin or Sec-Fetch-Site, and changes nothing", async () => {
    const { served, file, before } = await panelWithMemory()
    const token = pageToken((await send(served.port, "/agent?id=ada", { headers: cookie(served) })).body)
    for (const headers of [{ origin: "http://evil.example" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }]) {
      const response = await send(served.port, "/entry/add", {
        headers: { ...cookie(served), ...headers },
        form: addForm(token)
      })
      assert.strictEqual(response.status, 403, JSON.stringify(headers))
    }
    assert.strictEqual(readFileSync(file, "utf8"), before)
    const own = await send(served.port, "/entry/add", {
      headers: { ...cookie(served), origin: `http://127.0.0.1:${served.port}`, "sec-fetch-site": "same-origin" },
      form: addForm(token)
    })
    assert.strictEqual(own.status, 200)
  })

  it("refuses a change whose Referer names another site where no Origin is sent, and changes nothing", async () => {
    const { served, file, before } = await panelWithMemory()
    const token = pageToken((await send(served.port, "/agent?id=ada", { headers: cookie(served) })).body)
    for (const referer of [
      "http://evil.example/attack.html",
      `http://127.0.0.1:${served.port + 1}/agent?id=ada`,
      `http://127.0.0.1.evil.example:${served.port}/`
    ]) {
      const response = await send(served.port, "/entry/add", {
        headers: { ...cookie(served), referer },
        form: addForm(token)
      })
      assert.strictEqual(response.status, 403, referer)
      assert.include(response.body, "A change can only be sent from the panel&#39;s own pages.")
    }
    assert.strictEqual(readFileSync(file, "utf8"), before)
    const own = await send(served.port, "/entry/add", {
      headers: { ...cookie(served), referer: `http://localhost:${served.port}/agent?id=ada` },
      form: addForm(token)
    })
    assert.strictEqual(own.status, 200)
    assert.include(readFileSync(file, "utf8"), "- Ada lives in Lisbon [added: ")
  })

  it("refuses a change that says neither Origin nor Referer, and changes nothing", async () => {
    const { served, file, before } = await panelWithMemory()
    const token = pageToken((await send(served.port, "/agent?id=ada", { headers: cookie(served) })).body)
    for (const headers of [{}, { "sec-fetch-site": "same-origin" }]) {
      const response = await send(served.port, "/entry/add", {
        headers: { ...cookie(served), ...headers },
        form: addForm(token)
      })
      assert.strictEqual(response.status, 403, JSON.stringify(headers))
      assert.include(response.body, "does not say which page sent it (no Origin or Referer header)")
    }
    assert.strictEqual(readFileSync(file, "utf8"), before)
  })
})

describe("mneme panel: headers", () => {
  it("sends no CORS headers, and forbids framing, inline script and caching", async () => {
    const { served } = await panelWithMemory()
    const preflight = await send(served.port, "/entry/add", {
      method: "OPTIONS",
      headers: { ...cookie(served), origin: "http://evil.example", "access-control-request-method": "POST" }
    })
    const page = await send(served.port, "/agent?id=ada", {
      headers: { ...cookie(served), origin: "http://x.example" }
    })
    for (const response of [preflight, page]) {
      assert.deepStrictEqual(
        Object.keys(response.headers).filter((name) => name.startsWith("access-control-")),
        []
      )
    }
    assert.notStrictEqual(preflight.status, 200)
    assert.strictEqual(page.headers["x-frame-options"], "DENY")
    assert.strictEqual(page.headers["cache-control"], "no-store")
    assert.strictEqual(page.headers["referrer-policy"], "same-origin")
    assert.include(page.headers["content-security-policy"] as string, "script-src 'self'")
    assert.include(page.headers["content-security-policy"] as string, "frame-ancestors 'none'")
  })
})

describe("mneme panel: starting", () => {
  it("refuses a port out of range as a usage error", () => {
    assertFailure(mneme(["panel", "--port", "70000"]), 2, "--port must be a port number from 0 to 65535")
  })

  it("says which address it cannot serve on, and how to choose another", async () => {
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve))
    const { port } = busy.address() as { port: number }
    const run = mneme(["panel", "--memory", scratch().memory, "--port", String(port)])
    await new Promise((resolve) => busy.close(resolve))
    assertFailure(run, 1, `cannot serve the panel on 127.0.0.1:${port}`, "--port 0 for any free one")
  })
})
