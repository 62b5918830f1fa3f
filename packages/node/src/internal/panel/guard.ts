/**
 * Who may use the memory panel: a request must name the served address in its Host header (so a web page whose name
 * was pointed at this machine cannot reach it), and hold the access token — from the printed link, which trades it for
 * a cookie marked HttpOnly and SameSite=Strict, then from that cookie. A request that changes something must also hold
 * the token of the page it was sent from (each page has its own, signed with a secret of this run), and say that it
 * comes from the panel's own pages: by its Origin, or by its Referer where no Origin is sent (a browser sends one or
 * the other with every form it posts). A change that names another site, or says nothing of where it comes from, is
 * refused. The panel sends no CORS headers.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/** What one run of the panel guards with: the access token, the secret page tokens are signed with, the address. */
export interface Keys {
  /** The access token of the printed link and the cookie. */
  readonly token: string
  /** The secret each page's token is signed with. */
  readonly secret: string
  /** The Host header values that name the served address (`127.0.0.1:4177`, `localhost:4177`). */
  readonly hosts: ReadonlySet<string>
  /** The cookie's name: one per port, so two panels of one machine keep their own. */
  readonly cookie: string
}

/** A random token of 32 bytes, as 64 hex digits. */
export const randomToken = (): string => randomBytes(32).toString("hex")

/** The cookie that holds the access token of the panel on `port`. */
export const cookieName = (port: number): string => `mneme-panel-${port}`

/** Whether two texts are equal, in time that does not tell how much of them matched. */
export const sameText = (given: string, expected: string): boolean => {
  const a = Buffer.from(given, "utf8")
  const b = Buffer.from(expected, "utf8")
  return a.length === b.length && timingSafeEqual(a, b)
}

/** `host` as it stands in a URL and a Host header: an IPv6 address in brackets. */
export const urlHost = (host: string): string => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host)

const wildcards = new Set(["0.0.0.0", "::", "[::]"])

/** Whether `host` is an address of this machine only (the loopback range, `::1`, `localhost`). */
export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

/**
 * The Host header values that name the panel served on `host` and `port`: that address (and `localhost` for a
 * loopback one); for every interface (`0.0.0.0`, `::`), each address of this machine's interfaces.
 */
export const hostsFor = (host: string, port: number, interfaces: ReadonlyArray<string>): ReadonlySet<string> => {
  const names = wildcards.has(host) ? ["localhost", ...interfaces] : isLoopback(host) ? [host, "localhost"] : [host]
  return new Set(names.map((name) => `${urlHost(name).toLowerCase()}:${port}`))
}

/** What the guard says of a request, before its handler runs. */
export type Verdict =
  /** The Host header names another address: 403. */
  | { readonly _tag: "WrongHost" }
  /** No access token, or a wrong one: 401. */
  | { readonly _tag: "NoToken" }
  /** The link's token: set the cookie and send the browser to `location`, the same address without the token. */
  | { readonly _tag: "TokenGiven"; readonly location: string }
  /** A state-changing request from another site (its Origin, Referer or Sec-Fetch-Site says so): 403. */
  | { readonly _tag: "OtherSite" }
  /** A state-changing request that says nothing of where it comes from (neither Origin nor Referer): 403. */
  | { readonly _tag: "UnknownSite" }
  | { readonly _tag: "Pass" }

/** What the guard reads of a request. */
export interface Seen {
  readonly method: string
  /** The path and query, as requested. */
  readonly url: string
  readonly host: string | undefined
  readonly cookie: string | undefined
  readonly origin: string | undefined
  readonly referer: string | undefined
  readonly fetchSite: string | undefined
}

/** `url` without its `token` parameter. */
const withoutToken = (url: URL): string => {
  const params = new URLSearchParams(url.search)
  params.delete("token")
  const rest = params.toString()
  return url.pathname + (rest === "" ? "" : `?${rest}`)
}

/** The guard's verdict on a request (the page token of a change is checked once its body is read: `validPageToken`). */
export const judge = (keys: Keys, seen: Seen): Verdict => {
  if (seen.host === undefined || !keys.hosts.has(seen.host.toLowerCase())) return { _tag: "WrongHost" }
  const url = new URL(seen.url, "http://panel.invalid")
  const given = url.searchParams.get("token")
  if (given !== null) {
    if (seen.method !== "GET" || !sameText(given, keys.token)) return { _tag: "NoToken" }
    return { _tag: "TokenGiven", location: withoutToken(url) }
  }
  if (seen.cookie === undefined || !sameText(seen.cookie, keys.token)) return { _tag: "NoToken" }
  if (seen.method !== "GET" && seen.method !== "HEAD") {
    if (seen.fetchSite !== undefined && seen.fetchSite !== "same-origin" && seen.fetchSite !== "none") {
      return { _tag: "OtherSite" }
    }
    // The Origin where it is sent (`null` from a sandboxed or privacy-stripped page is another site), else the Referer.
    const from = seen.origin ?? seen.referer
    if (from === undefined) return { _tag: "UnknownSite" }
    if (!isPanel(keys, from)) return { _tag: "OtherSite" }
  }
  return { _tag: "Pass" }
}

/** Whether `address` (an Origin or a Referer) is a page of the panel: http, at one of the served Host values. */
const isPanel = (keys: Keys, address: string): boolean => {
  if (!URL.canParse(address)) return false
  const url = new URL(address)
  return url.protocol === "http:" && keys.hosts.has(`${url.hostname}:${url.port === "" ? "80" : url.port}`)
}

const signature = (secret: string, nonce: string) => createHmac("sha256", secret).update(nonce).digest("hex")

/** A new page's token: a random nonce and its signature with the secret of this run. */
export const pageToken = (secret: string): string => {
  const nonce = randomBytes(16).toString("hex")
  return `${nonce}.${signature(secret, nonce)}`
}

/** Whether `token` is a page token this run signed. */
export const validPageToken = (secret: string, token: string | undefined): boolean => {
  if (token === undefined) return false
  const dot = token.indexOf(".")
  if (dot <= 0) return false
  return sameText(token.slice(dot + 1), signature(secret, token.slice(0, dot)))
}
