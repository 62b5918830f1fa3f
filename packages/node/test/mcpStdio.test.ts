/**
 * The MCP server's standard input, read a line at a time: lines cut the same however the input is chunked, a line
 * past the limit dropped as it comes, and each line judged on its own (a message for the server, or a JSON-RPC error
 * to answer with), over a `Stdio` whose input and output the test holds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Sink, Stdio, Stream } from "effect"
import * as fc from "fast-check"
import * as McpStdio from "../src/internal/mcp/stdio.ts"

/** The frames of `chunks` read in order, and the input's end. */
const framesOf = (chunks: ReadonlyArray<string>, max?: number) => {
  const frames: Array<McpStdio.Frame> = []
  let reading = McpStdio.empty
  for (const chunk of chunks) {
    const [next, ended] = McpStdio.split(reading, chunk, max)
    frames.push(...ended)
    reading = next
  }
  return [...frames, ...McpStdio.finish(reading)]
}

const line = (text: string): McpStdio.Frame => ({ _tag: "Line", text })

describe("the MCP server's standard input", () => {
  it("cuts lines at LF, drops a CR before it, and reads a last line without its end", () => {
    assert.deepStrictEqual(framesOf(['{"a":1}\n{"b"', ':2}\r\n\n{"c":3}']), [
      line('{"a":1}'),
      line('{"b":2}'),
      line(""),
      line('{"c":3}')
    ])
    assert.deepStrictEqual(framesOf(["x\n"]), [line("x")])
    assert.deepStrictEqual(framesOf([]), [])
  })

  it("gives the same lines however the input is cut into chunks", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "{", "\n", "\r", "中", "😀", " ") }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
          const chunks = [0, ...points].map((from, i) => text.slice(from, [...points, text.length][i]))
          assert.deepStrictEqual(framesOf(chunks), framesOf([text]))
        }
      )
    )
  })

  it("drops a line past the limit as it comes, and goes on with the next", () => {
    assert.deepStrictEqual(framesOf(["12345", "6789\nok\n"], 8), [{ _tag: "TooLong" }, line("ok")])
    assert.deepStrictEqual(framesOf(["12345678\n"], 8), [line("12345678")])
    const [reading] = McpStdio.split(McpStdio.empty, "x".repeat(20), 8)
    assert.deepStrictEqual(reading, { text: "", tooLong: true })
  })

  it("hands a JSON-RPC message to the server, and answers every other line with the error JSON-RPC names", () => {
    const message = (text: string) =>
      assert.deepStrictEqual(McpStdio.judge(line(text)), { _tag: "Message", line: text })
    const answer = (text: string, id: string | number | null, code: number) => {
      const verdict = McpStdio.judge(line(text))
      assert.strictEqual(verdict._tag, "Answer", text)
      const reply = JSON.parse((verdict as { readonly reply: string }).reply) as Record<string, unknown>
      assert.deepStrictEqual([reply.jsonrpc, reply.id, (reply.error as { code: number }).code], ["2.0", id, code], text)
    }
    message('{"jsonrpc":"2.0","id":1,"method":"ping"}')
    message('{"jsonrpc":"2.0","id":"a","method":"tools/call","params":5}')
    message('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    message('{"jsonrpc":"2.0","id":3,"result":{}}')
    message('{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"no"}}')
    message("[1, 2]")
    answer("not json", null, -32700)
    answer('{"jsonrpc":"2.0","id":1,"method":"ping"', null, -32700)
    answer("42", null, -32600)
    answer('"ping"', null, -32600)
    answer("null", null, -32600)
    answer("{}", null, -32600)
    answer('{"jsonrpc":"2.0","id":"q"}', "q", -32600)
    answer('{"jsonrpc":"2.0","id":null,"method":"ping"}', null, -32600)
    answer('{"jsonrpc":"2.0","id":{},"method":"ping"}', null, -32600)
    assert.deepStrictEqual(McpStdio.judge(line(" \t")), { _tag: "Blank" })
    const tooLong = McpStdio.judge({ _tag: "TooLong" })
    assert.strictEqual(tooLong._tag, "Answer")
    assert.include((tooLong as { readonly reply: string }).reply, '"code":-32700')
  })

  it.effect("gives the server each message a line, and writes the answers to the others on standard output", () =>
    Effect.gen(function* () {
      const written: Array<string> = []
      const bytes = new TextEncoder().encode(
        '{"jsonrpc":"2.0","id":1,"method":"initialize"}\nnot json\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
      )
      // The input cut inside a line and inside nothing in particular, as a pipe may deliver it.
      const outer = Stdio.layerTest({
        stdin: Stream.make(bytes.slice(0, 30), bytes.slice(30, 50), bytes.slice(50)),
        stdout: () => Sink.forEach((chunk: string | Uint8Array) => Effect.sync(() => written.push(String(chunk))))
      })
      const stdio = yield* Effect.service(Stdio.Stdio).pipe(Effect.provide(McpStdio.layer.pipe(Layer.provide(outer))))
      const decoder = new TextDecoder()
      const given = yield* Stream.runCollect(stdio.stdin).pipe(
        Effect.map((chunks) => chunks.map((chunk) => decoder.decode(chunk)))
      )
      assert.deepStrictEqual(given, [
        '{"jsonrpc":"2.0","id":1,"method":"initialize"}\n',
        '{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
      ])
      assert.deepStrictEqual(written, [
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: a line that is not JSON"}}\n'
      ])
    })
  )
})
