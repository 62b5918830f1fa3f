/**
 * The panel's HTML: every value put into a page is escaped (an entry holding `<script>` is text), markup fragments go
 * in as they are, and sizes turn amber near their limit and red at it.
 */
import { assert, describe, it } from "@effect/vitest"
import { escape, markup, query } from "../src/internal/panel/html.ts"
import { withoutBullet } from "../src/internal/panel/pages.ts"
import * as Views from "../src/internal/panel/views.ts"

const page: Views.Page = { token: "nonce.signature", root: "./memory" }

describe("panel html", () => {
  it("escapes the five characters that can end text or an attribute", () => {
    assert.strictEqual(
      escape(`<a href="x" title='y'>&</a>`),
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
    )
  })

  it("escapes every value of a template, and keeps its own markup and fragments as they are", () => {
    const entry = "<script>alert(1)</script>"
    const fragment = markup`<b>${entry}</b>`
    assert.strictEqual(fragment.source, "<b>&lt;script&gt;alert(1)&lt;/script&gt;</b>")
    assert.strictEqual(markup`<p>${fragment}</p>`.source, `<p>${fragment.source}</p>`)
    assert.strictEqual(
      markup`<i title="${`" onmouseover="x`}"></i>`.source,
      `<i title="&quot; onmouseover=&quot;x"></i>`
    )
    assert.strictEqual(markup`${["a<", markup`<br>`, 3, undefined, null, false]}`.source, "a&lt;<br>3")
  })

  it("encodes a query's names and values", () => {
    assert.strictEqual(query({ id: "ada l&o?=" }), "?id=ada%20l%26o%3F%3D")
  })
})

describe("panel journal lines", () => {
  it("drops the list bullet of an entry's or a link's line, and keeps any other line as it is", () => {
    assert.deepStrictEqual(
      ["- Ada drinks tea [added: 2026-01-02]", "  *\t b", "- [[travel]]", "-", "- ", "-a", "--- x", "# Memory", ""].map(
        withoutBullet
      ),
      ["Ada drinks tea [added: 2026-01-02]", "b", "[[travel]]", "", "", "-a", "--- x", "# Memory", ""]
    )
  })
})

describe("panel views", () => {
  it("is amber from 90% of a limit and red at it", () => {
    assert.deepStrictEqual(
      [0, 3599, 3600, 3999, 4000, 5000].map((size) => Views.level(size, 4000)),
      ["ok", "ok", "near", "near", "full", "full"]
    )
  })

  it("draws a size as a bar against its limit, past-limit sizes at the bar's end", () => {
    const bar = Views.bar(4200, 4000, "own MEMORY.md").source
    assert.include(bar, `max="4000"`)
    assert.include(bar, `value="4000"`)
    assert.include(bar, `data-level="full"`)
    assert.include(bar, `<span class="size full">4,200 / 4,000</span>`)
  })

  it("shows an entry, a note and a last review's reason as text, never as markup", () => {
    const view: Views.AgentPage = {
      agentId: `<img src=x onerror=alert(1)>`,
      scopes: [
        {
          side: "own",
          files: [
            {
              file: "agents/x/MEMORY.md",
              topic: undefined,
              size: 40,
              limit: 4000,
              version: "v",
              rows: [
                {
                  _tag: "Entry",
                  text: "<script>alert(1)</script>",
                  meta: [["source", "<b>"]],
                  looksSecret: false,
                  digest: "d"
                },
                { _tag: "Note", text: "<!-- a note -->" }
              ]
            }
          ],
          topics: 0,
          topicsMax: 40,
          unlinked: [],
          unreadable: []
        }
      ],
      lastReview: { at: 0, ok: false, reason: "<i>the model said no</i>" },
      conversations: [],
      transcripts: undefined,
      model: { configured: false, howTo: "Start it with --model <URL>" },
      entryMax: 300,
      ask: undefined,
      summary: undefined,
      draft: undefined,
      filter: ""
    }
    const markup = Views.agentPage(page, view, { kind: "refused", text: "<u>refused</u>" })
    // Filtered by the server (a browser without script): by the words as shown, case ignored; the words are text.
    const filtered = Views.agentPage(page, { ...view, filter: ` ALERT(1)</script> ` })
    assert.include(filtered, `value=" ALERT(1)&lt;/script&gt; "`)
    assert.match(filtered, /<li class="entry" data-digest="d" data-search="&lt;script&gt;alert\(1\)[^"]*"\s*>/)
    assert.match(filtered, /<li class="note"[^>]* hidden>/)
    assert.include(filtered, "1 of 1 entry shown")
    const byNote = Views.agentPage(page, { ...view, filter: "A Note" })
    assert.match(byNote, /<li class="entry"[^>]* hidden>/)
    assert.notMatch(byNote, /<li class="note"[^>]* hidden>/)
    assert.include(byNote, "0 of 1 entry shown")
    assert.notInclude(markup, " hidden>")
    assert.notInclude(markup, "entry shown")
    const lost = Views.agentPage(page, {
      ...view,
      conversations: [
        {
          key: "group:g1:x",
          label: "g1",
          agentId: "x",
          cursor: 4,
          failures: 0,
          newestUserSeq: undefined,
          stopped: undefined,
          canReview: false,
          dropped: [{ after: 4, upto: 9, at: 0 }]
        }
      ]
    })
    // Lines a host dropped before this member's review saw them are said, never silent.
    assert.match(lost, /lines lost before review:\s+after #4 up to #9 \(/)
    for (const text of [
      "<script>alert(1)",
      "<img src=x",
      "<b>",
      "<!-- a note",
      "<i>the model",
      "<u>refused",
      "<URL>"
    ]) {
      assert.notInclude(markup, text)
    }
    assert.include(markup, "&lt;script&gt;alert(1)&lt;/script&gt;")
    assert.include(markup, "&lt;i&gt;the model said no&lt;/i&gt;")
    assert.include(markup, `<script src="/panel.js"></script>`)
    assert.strictEqual(markup.match(/<script/g)?.length, 1)
  })
})
