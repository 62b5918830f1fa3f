/**
 * Which Host headers `mneme mcp --http` answers. A web page whose host name was pointed at this machine (DNS
 * rebinding) reaches the server with its own name in the Host header; only the served address (and `localhost`
 * beside a loopback one, every interface's address beside a wildcard one) and the names a person allowed with
 * `--allow-host` are answered, as the panel does.
 */
import { hostsFor, urlHost } from "../panel/guard.ts"

/** The Host headers answered: exact `name:port` values, and names answered on any port (or none). */
export interface Allowed {
  readonly exact: ReadonlySet<string>
  readonly names: ReadonlySet<string>
}

/** The name part of a Host header (an IPv6 address keeps its brackets), in lower case. */
const nameOf = (host: string): string => {
  const lower = host.toLowerCase()
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1)
  const colon = lower.lastIndexOf(":")
  return colon === -1 ? lower : lower.slice(0, colon)
}

/** Whether `name` (as `--allow-host` takes it) carries a port. */
const hasPort = (name: string): boolean => /^(?:\[[^\]]*\]|[^:[\]]*):\d+$/.test(name)

/**
 * The Host headers answered by a server that listens on `listen` (as `--http` gave it), bound to `bound` on `port`,
 * with this machine's interface addresses and the `--allow-host` values `given` (a name on any port, or `name:port`).
 */
export const allowed = (
  listen: string,
  bound: string,
  port: number,
  interfaces: ReadonlyArray<string>,
  given: ReadonlyArray<string>
): Allowed => {
  const exact = new Set([...hostsFor(listen, port, interfaces), `${urlHost(bound).toLowerCase()}:${port}`])
  const names = new Set<string>()
  for (const name of given) {
    const lower = name.toLowerCase()
    if (hasPort(lower)) exact.add(lower)
    else names.add(lower)
  }
  return { exact, names }
}

/** Whether a request whose Host header is `host` is answered. */
export const admits = (hosts: Allowed, host: string | undefined): boolean =>
  host !== undefined && (hosts.exact.has(host.toLowerCase()) || hosts.names.has(nameOf(host)))

/** What a refused request is told: the addresses answered, and how to allow another name. */
export const refusal = (hosts: Allowed): string =>
  `mneme: this server answers only requests addressed to ${[...hosts.exact, ...hosts.names].join(", ")}, so that a ` +
  "web page whose name was pointed at this machine cannot reach it; to reach it under another name, start it with " +
  "--allow-host NAME\n"

/** Why an `--allow-host` value is not a host name (with an optional port), or nothing. */
export const nameProblem = (name: string): string | undefined =>
  /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(name)
    ? undefined
    : `--allow-host takes a host name, with a port or without (such as mneme.example.com or mneme.lan:8765), not ${JSON.stringify(name)}`
