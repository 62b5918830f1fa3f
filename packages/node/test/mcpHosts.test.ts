/**
 * The Host headers the MCP server's HTTP endpoint answers, as pure judgements: the served address (with `localhost`
 * beside a loopback one, each interface beside a wildcard one), the bound address, and the names of `--allow-host`
 * (on any port, or on the one given); nothing else, and no request without a Host header.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Hosts from "../src/internal/mcp/hosts.ts"

describe("MCP HTTP hosts", () => {
  it("a loopback address answers at itself and localhost, on its port only", () => {
    const hosts = Hosts.allowed("127.0.0.1", "127.0.0.1", 8765, [], [])
    assert.deepStrictEqual([...hosts.exact], ["127.0.0.1:8765", "localhost:8765"])
    for (const host of ["127.0.0.1:8765", "localhost:8765", "LocalHost:8765"]) assert.isTrue(Hosts.admits(hosts, host))
    for (const host of [
      "evil.example:8765",
      "evil.example",
      "127.0.0.1",
      "127.0.0.1:80",
      "localhost",
      "[::1]:8765",
      "127.0.0.1:8765.evil.example",
      "",
      undefined
    ]) {
      assert.isFalse(Hosts.admits(hosts, host), String(host))
    }
  })

  it("the address bound is answered too, and an IPv6 one in brackets", () => {
    const named = Hosts.allowed("localhost", "127.0.0.1", 80, [], [])
    assert.isTrue(Hosts.admits(named, "127.0.0.1:80"))
    assert.isTrue(Hosts.admits(named, "localhost:80"))
    const six = Hosts.allowed("::1", "::1", 80, [], [])
    assert.isTrue(Hosts.admits(six, "[::1]:80"))
    assert.isFalse(Hosts.admits(six, "::1:80"))
  })

  it("a wildcard address answers at each interface and localhost", () => {
    const hosts = Hosts.allowed("0.0.0.0", "0.0.0.0", 80, ["127.0.0.1", "192.168.1.5", "fe80::1"], [])
    for (const host of ["192.168.1.5:80", "127.0.0.1:80", "localhost:80", "[fe80::1]:80"]) {
      assert.isTrue(Hosts.admits(hosts, host), host)
    }
    assert.isFalse(Hosts.admits(hosts, "192.168.1.6:80"))
    assert.isFalse(Hosts.admits(hosts, "mneme.lan:80"))
  })

  it("a name of --allow-host is answered on any port, or on the one it gives", () => {
    const hosts = Hosts.allowed("0.0.0.0", "0.0.0.0", 80, [], ["Mneme.LAN", "proxy.example:443", "[::2]"])
    for (const host of ["mneme.lan", "mneme.lan:80", "MNEME.lan:8080", "proxy.example:443", "[::2]:80", "[::2]"]) {
      assert.isTrue(Hosts.admits(hosts, host), host)
    }
    for (const host of ["proxy.example", "proxy.example:80", "mneme.lan.evil.example", "evil.mneme.lan"]) {
      assert.isFalse(Hosts.admits(hosts, host), host)
    }
  })

  it("the refusal names what is answered and how to allow another name", () => {
    const text = Hosts.refusal(Hosts.allowed("127.0.0.1", "127.0.0.1", 80, [], ["mneme.lan"]))
    assert.strictEqual(
      text,
      "mneme: this server answers only requests addressed to 127.0.0.1:80, localhost:80, mneme.lan, so that a web " +
        "page whose name was pointed at this machine cannot reach it; to reach it under another name, start it with " +
        "--allow-host NAME\n"
    )
  })

  it("--allow-host takes a host name or address, with a port or without", () => {
    for (const name of ["mneme.lan", "mneme.lan:8765", "10.0.0.2", "[::1]", "[::1]:80"]) {
      assert.isUndefined(Hosts.nameProblem(name), name)
    }
    for (const name of ["", "::1", "http://mneme.lan", "mneme.lan/mcp", "a b", "mneme.lan:", "mneme.lan:123456"]) {
      assert.include(Hosts.nameProblem(name), "--allow-host takes a host name", name)
    }
  })
})
