/**
 * The memory panel in a browser (issues 14 and 22): Debian's Chromium, headless, driven by playwright-core against
 * `mneme panel` started on a temporary memory folder. The agents list, an agent's memory with its bars, a failed last
 * review with its reason and "review now", adding (beside each file), editing, removing and undoing by clicking and
 * typing (Undo at once, and on the journal only where it works), the journal's lines marked once, times in the
 * browser's zone, the filter box, a change on disk meanwhile, the ask box with a scripted model (a preview, then
 * confirm, then the file on disk changed), an entry holding `<script>` shown as text, and a page opened without the
 * token refused.
 *
 * With MNEME_PANEL_SCREENSHOT=FILE, the screenshot of an agent's page (the README's) is also written to FILE.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { type Browser, chromium, type Locator, type Page } from "playwright-core"
import { answers, mneme, repo, scratch, transcript } from "./cliKit.ts"
import { type Served, startPanel } from "./panelKit.ts"

const executablePath = "/usr/bin/chromium"

let browser: Browser
beforeAll(async () => {
  assert.isTrue(
    existsSync(executablePath),
    `Debian's chromium is missing at ${executablePath}: bash scripts/chromium.sh installs it (apt-get install -y chromium)`
  )
  browser = await chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
  })
})
afterAll(async () => {
  await browser?.close()
})

/** A new browser page (its own cookies; in `timezoneId` if given) opened at the panel's link, on the overview. */
const open = async (served: Served, timezoneId?: string): Promise<Page> => {
  const context = await browser.newContext({
    viewport: { width: 1200, height: 900 },
    locale: "en-US",
    ...(timezoneId === undefined ? {} : { timezoneId })
  })
  const page = await context.newPage()
  const response = await page.goto(served.link)
  assert.strictEqual(response?.status(), 200)
  assert.strictEqual(new URL(page.url()).search, "", "the token is gone from the address")
  return page
}

/** Clicks what sends a form and waits for the page it answers with. */
const submit = async (page: Page, button: Locator) => {
  await Promise.all([page.waitForEvent("load"), button.click()])
}

/** The words of the notice at the top of the page. */
const notice = async (page: Page) => (await page.locator(".notice .said").textContent()) ?? ""

/** The agent's page, from the overview's link. */
const toAgent = async (page: Page, agentId: string) => {
  await Promise.all([page.waitForEvent("load"), page.locator("table.agents a", { hasText: agentId }).click()])
}

/** The form that adds an entry to a file of the agent's page, beside its entries (`null`: the new topic's form). */
const addTo = (page: Page, side: "own" | "team", file: string | null) =>
  page.locator(
    `section.scope[data-scope="${side}"] ${file === null ? ".new-topic" : `.file[data-file="${file}"]`} > form.add`
  )

/** A file of recorded answers, one model answer (or error) per line. */
const recorded = (dir: string, name: string, lines: ReadonlyArray<{ answer: string } | { error: string }>) => {
  const file = join(dir, name)
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n")
  return file
}

const answer = (value: unknown) => ({ answer: JSON.stringify(value) })

const remember = (memory: string, text: string, ...more: ReadonlyArray<string>) =>
  assert.strictEqual(mneme(["remember", text, "--memory", memory, "--agent", "ada", ...more]).code, 0)

const memoryOf = (memory: string, agentId = "ada") => readFileSync(join(memory, `agents/${agentId}/MEMORY.md`), "utf8")

/** Writes an agent's MEMORY.md by hand: a title, then `entries`. */
const writeMemory = (memory: string, agentId: string, entries: ReadonlyArray<string>) => {
  mkdirSync(join(memory, "agents", agentId), { recursive: true })
  writeFileSync(
    join(memory, `agents/${agentId}/MEMORY.md`),
    `# Memory\n\n${entries.map((entry) => `- ${entry}\n`).join("")}\n## Index\n`
  )
}

describe("mneme panel in a browser", () => {
  it("lists the agents with their MEMORY.md bars, and shows an agent's memory amber near its limit and red at it", async () => {
    const { memory } = scratch()
    writeMemory(memory, "ada", ["A".repeat(160)])
    writeMemory(memory, "bob", ["Bob keeps bees", "B".repeat(190)])
    mkdirSync(join(memory, "team"), { recursive: true })
    writeFileSync(join(memory, "team/MEMORY.md"), "# Memory\n\n- The team ships on Fridays\n")
    const served = await startPanel(["--memory", memory], { MNEME_MEMORY_MAX: "200" })
    const page = await open(served)
    const rows = page.locator("table.agents tr.agent")
    assert.deepStrictEqual(await rows.locator("td:first-child a").allTextContents(), ["ada", "bob"])
    const levels = (row: Locator) => row.locator("meter").evaluateAll((meters) => meters.map((m) => m.dataset["level"]))
    assert.deepStrictEqual(await levels(rows.nth(0)), ["near", "ok", "ok"])
    assert.deepStrictEqual(await levels(rows.nth(1)), ["full", "ok", "ok"])
    const bob = readFileSync(join(memory, "agents/bob/MEMORY.md"), "utf8").length
    assert.isAbove(bob, 200)
    assert.strictEqual(await rows.nth(1).locator(".size").first().textContent(), `${bob} / 200`)
    await toAgent(page, "bob")
    const own = page.locator('section.scope[data-scope="own"]')
    assert.deepStrictEqual(await own.locator("li.entry .text").first().innerText(), "Bob keeps bees")
    assert.strictEqual(await own.locator("h3 .size.full").textContent(), `${bob} / 200`)
    assert.include(await own.locator("h3").textContent(), "over its size")
    const team = page.locator('section.scope[data-scope="team"]')
    assert.include(await team.locator("li.entry").textContent(), "The team ships on Fridays")
  })

  it("shows a failed last review with its reason, that retries stopped, and reviews the conversation now", async () => {
    const { dir, memory } = scratch()
    const transcripts = join(dir, "transcripts")
    mkdirSync(transcripts)
    const file = join(transcripts, "porto.jsonl")
    writeFileSync(
      file,
      [
        { seq: 1, who: "user", text: "I moved to Porto last month, so please plan trips from there." },
        { seq: 2, who: "agent", text: "Noted: trips start from Porto from now on." }
      ]
        .map((line) => JSON.stringify(line))
        .join("\n") + "\n"
    )
    // Each run goes on from where the last stopped in the recorded answers (issue 22 item 20): one failure per run.
    const overloaded = { error: "the server answered 503: overloaded" }
    const failing = recorded(dir, "failing.jsonl", [overloaded, overloaded])
    for (let i = 0; i < 2; i++) {
      const run = mneme(["review", file, "--memory", memory, "--agent", "ada", "--model", `replay:${failing}`])
      assert.strictEqual(run.code, 1, run.stderr)
    }
    const model = recorded(dir, "answers.jsonl", [answer({ changes: [{ op: "add", text: "Ada lives in Porto" }] })])
    const served = await startPanel(["--memory", memory, "--transcripts", transcripts, "--model", `replay:${model}`])
    const page = await open(served)
    const row = page.locator("table.agents tr.agent", { hasText: "ada" })
    assert.include(await row.locator(".failed").textContent(), "failed")
    assert.include(await row.locator(".reason").textContent(), "the server answered 503: overloaded")
    await toAgent(page, "ada")
    const last = page.locator("#last-review")
    assert.include(await last.locator(".failed").first().textContent(), "failed")
    assert.include(await last.locator(".reason").textContent(), "overloaded")
    const conversation = last.locator("table.conversations tbody tr")
    assert.strictEqual(await conversation.count(), 1)
    const state = await conversation.locator("td").nth(3).innerText()
    assert.include(state, "retries stopped after 2 failed reviews")
    assert.include(state, "a user line newer than #1, or a review that succeeds (review now), starts them again")
    await submit(page, conversation.getByRole("button", { name: "Review now" }))
    assert.include(await notice(page), "Reviewed porto to #2 (1 model call): 1 added, 0 edited, 0 removed, 0 left out.")
    assert.include(await page.locator("#last-review p").first().textContent(), "ok")
    assert.include(
      await page.locator("#last-review table.conversations tbody tr td").nth(3).innerText(),
      "no failed review"
    )
    assert.match(memoryOf(memory), /^- Ada lives in Porto \[source: porto #\d; added: \d{4}-\d{2}-\d{2}\]$/m)
  })

  it("adds, edits, removes and undoes entries by clicking and typing, and refuses what the CLI refuses", async () => {
    const { memory } = scratch()
    remember(memory, "Ada drinks green tea")
    const served = await startPanel(["--memory", memory])
    const page = await open(served)
    await toAgent(page, "ada")

    const add = addTo(page, "own", "agents/ada/MEMORY.md")
    await add.locator('input[name="text"]').fill("Ada's cat is called Miso")
    await submit(page, add.getByRole("button", { name: "Add" }))
    assert.include(await notice(page), "added to agents/ada/MEMORY.md")
    assert.match(memoryOf(memory), /^- Ada's cat is called Miso \[added: /m)

    for (const refused of ["x".repeat(301), "my password is hunter2"]) {
      const before = memoryOf(memory)
      const cli = mneme(["remember", refused, "--memory", scratch().memory, "--agent", "ada"])
      assert.strictEqual(cli.code, 1)
      await add.locator('input[name="text"]').fill(refused)
      await submit(page, add.getByRole("button", { name: "Add" }))
      assert.strictEqual(`mneme: ${await notice(page)}\n`, cli.stderr)
      assert.strictEqual(await add.locator('input[name="text"]').inputValue(), refused, "kept to type again")
      assert.strictEqual(memoryOf(memory), before)
    }

    const miso = page.locator("li.entry", { hasText: "Miso" })
    await miso.locator("summary", { hasText: "Edit" }).click()
    await miso.locator('input[name="text"]').fill("Ada's cat Miso is three years old")
    await submit(page, miso.getByRole("button", { name: "Save" }))
    assert.include(await notice(page), "replaced in agents/ada/MEMORY.md")
    assert.include(memoryOf(memory), "- Ada's cat Miso is three years old [added: ")
    assert.notInclude(memoryOf(memory), "called Miso")

    await submit(page, page.locator("li.entry", { hasText: "green tea" }).getByRole("button", { name: "Remove" }))
    assert.include(await notice(page), "removed from agents/ada/MEMORY.md")
    assert.notInclude(memoryOf(memory), "green tea")
    assert.strictEqual(await page.locator("li.entry", { hasText: "green tea" }).count(), 0)

    await Promise.all([page.waitForEvent("load"), page.getByRole("link", { name: "Journal of changes" }).click()])
    const changes = page.locator("table.journal tr.change")
    assert.deepStrictEqual(await changes.locator("td:nth-child(2)").allTextContents(), [
      "remove",
      "replace",
      "add",
      "add"
    ])
    // Each line marked once, - before and + after: the entry's own list bullet is not shown as a second mark.
    const lines = await changes.locator("td:nth-child(5)").allInnerTexts()
    assert.match(lines[0]!, /^- Ada drinks green tea \[added: [^\]]+\]$/)
    assert.match(lines[1]!, /^- Ada's cat is called Miso \[added: [^\]]+\]\n\+ Ada's cat Miso is three years old \[/)
    assert.match(lines[2]!, /^\+ Ada's cat is called Miso \[added: [^\]]+\]$/)
    for (const line of lines) assert.notMatch(line, /[-+] [-*] /)
    assert.include(await changes.first().locator("td:nth-child(4)").textContent(), "person")
    // Undo only where it works: what the two adds wrote is no longer in the file (replaced, removed).
    const undoButtons = async () =>
      Promise.all((await changes.all()).map((row) => row.getByRole("button", { name: "Undo" }).count()))
    assert.deepStrictEqual(await undoButtons(), [1, 1, 0, 0])
    for (const row of [2, 3]) {
      assert.include(await changes.nth(row).innerText(), "cannot be undone now: it no longer holds")
    }
    await submit(page, changes.first().getByRole("button", { name: "Undo" }))
    assert.include(await notice(page), 'undone: "Ada drinks green tea" is back')
    assert.include(memoryOf(memory), "- Ada drinks green tea [added: ")

    // The file no longer holds what the edit wrote: its undo is refused, and nothing changes.
    writeFileSync(
      join(memory, "agents/ada/MEMORY.md"),
      memoryOf(memory).replace("Miso is three years old", "Miso is four")
    )
    const edited = memoryOf(memory)
    await submit(page, page.locator('tr.change[data-op="replace"]').getByRole("button", { name: "Undo" }))
    assert.include(await notice(page), "cannot undo the change to agents/ada/MEMORY.md")
    assert.include(await notice(page), "nothing was changed")
    assert.strictEqual(memoryOf(memory), edited)
    await page.goto(`${served.address}journal?agent=ada`)
    assert.deepStrictEqual(await changes.locator("td:nth-child(2)").allTextContents(), [
      "undo",
      "remove",
      "replace",
      "add",
      "add"
    ])
    assert.deepStrictEqual(await undoButtons(), [0, 0, 0, 0, 1])
    assert.include(await changes.nth(2).innerText(), "cannot be undone now: it no longer holds")
  })

  it("has the form that adds an entry beside each file's entries, and one for a new topic", async () => {
    const { memory } = scratch()
    remember(memory, "Ada drinks green tea")
    remember(memory, "Ada flies to Lisbon in May", "--topic", "travel")
    remember(memory, "The team ships on Fridays", "--team")
    const page = await open(await startPanel(["--memory", memory]))
    await toAgent(page, "ada")
    assert.strictEqual(await page.locator("#add").count(), 0, "no form at the foot of the page")
    const files = [
      ["own", "agents/ada/MEMORY.md", "Ada keeps bees"],
      ["own", "agents/ada/travel.md", "Ada flies to Oslo in June"],
      ["team", "team/MEMORY.md", "The team meets on Mondays"]
    ] as const
    for (const [side, file, text] of files) {
      const add = addTo(page, side, file)
      assert.strictEqual(await add.count(), 1, file)
      // Right after the file's entries, inside its own part of the page.
      assert.isTrue(
        await add.evaluate((form) => form.previousElementSibling?.matches("ul.entries") === true),
        `${file}: after its entries`
      )
      await add.locator('input[name="text"]').fill(text)
      await submit(page, addTo(page, side, file).getByRole("button", { name: "Add" }))
      assert.include(await notice(page), `added to ${file}`)
      assert.match(readFileSync(join(memory, file), "utf8"), new RegExp(`^- ${text} \\[added: `, "m"))
      assert.strictEqual(await page.locator(`.file[data-file="${file}"] li.entry`, { hasText: text }).count(), 1)
    }

    const pets = addTo(page, "own", null)
    await pets.locator('input[name="topic"]').fill("pets")
    await pets.locator('input[name="text"]').fill("Ada's cat is called Miso")
    await submit(page, pets.getByRole("button", { name: "Add" }))
    assert.include(await notice(page), "added to agents/ada/pets.md")
    assert.strictEqual(await addTo(page, "own", "agents/ada/pets.md").count(), 1)

    // A refused add comes back in the form it was typed into, and only there.
    const team = addTo(page, "team", "team/MEMORY.md")
    await team.locator('input[name="text"]').fill("my password is hunter2")
    await submit(page, team.getByRole("button", { name: "Add" }))
    assert.include(await notice(page), "password")
    assert.strictEqual(await page.locator('form.add input[name="text"]:not([value=""])').count(), 1)
    assert.strictEqual(
      await addTo(page, "team", "team/MEMORY.md").locator('input[name="text"]').inputValue(),
      "my password is hunter2"
    )
    assert.notInclude(readFileSync(join(memory, "team/MEMORY.md"), "utf8"), "hunter2")
  })

  it("filters the entries by the words typed in the search box, without reloading the page", async () => {
    const { memory } = scratch()
    remember(memory, "Ada drinks green tea")
    remember(memory, "Ada runs on Sundays")
    remember(memory, "Ada flies to Lisbon in May", "--topic", "travel")
    remember(memory, "The team drinks coffee on Fridays", "--team")
    const served = await startPanel(["--memory", memory])
    const page = await open(served)
    await toAgent(page, "ada")
    const address = page.url()
    let loads = 0
    page.on("load", () => (loads += 1))
    await page.evaluate(() => ((globalThis as { kept?: number }).kept = 1))
    /** The entries the page shows now, without their metadata. */
    const shown = async (on: Page) =>
      (await on.locator("li.entry:visible .text").allInnerTexts()).map((text) => text.replace(/ \[.*$/s, ""))
    const said = (on: Page) => on.locator("form.search .matches").textContent()
    const search = page.getByRole("searchbox", { name: "Filter entries" })
    const all = ["Ada drinks green tea", "Ada runs on Sundays", "Ada flies to Lisbon in May"]
    assert.deepStrictEqual(await shown(page), [...all, "The team drinks coffee on Fridays"])

    await search.fill("DRINKS")
    assert.deepStrictEqual(await shown(page), ["Ada drinks green tea", "The team drinks coffee on Fridays"])
    assert.strictEqual(await said(page), "2 of 4 entries shown")
    await search.fill("lisbon in")
    assert.deepStrictEqual(await shown(page), ["Ada flies to Lisbon in May"])
    await search.press("Enter")
    assert.deepStrictEqual(await shown(page), ["Ada flies to Lisbon in May"])
    await search.fill("added: 1999")
    assert.deepStrictEqual(await shown(page), [])
    assert.strictEqual(await said(page), "0 of 4 entries shown")
    await search.fill("")
    assert.deepStrictEqual(await shown(page), [...all, "The team drinks coffee on Fridays"])
    assert.strictEqual(await said(page), "")
    assert.strictEqual(loads, 0, "the page was not reloaded")
    assert.strictEqual(page.url(), address)
    assert.strictEqual(await page.evaluate(() => (globalThis as { kept?: number }).kept), 1)

    // A browser that runs no script sends the box, and the panel filters alike.
    const plain = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
    await plain.goto(served.link)
    await plain.goto(`${served.address}agent?id=ada`)
    await plain.getByRole("searchbox", { name: "Filter entries" }).fill("DRINKS")
    await submit(plain, plain.getByRole("button", { name: "Filter" }))
    assert.deepStrictEqual(await shown(plain), ["Ada drinks green tea", "The team drinks coffee on Fridays"])
    assert.strictEqual(await said(plain), "2 of 4 entries shown")
  })

  it("offers Undo at once after a Remove, on the page itself, and puts the entry back", async () => {
    const { memory } = scratch()
    remember(memory, "Ada drinks green tea")
    remember(memory, "Ada runs on Sundays")
    remember(memory, "The team ships on Fridays", "--team")
    const page = await open(await startPanel(["--memory", memory]))
    await toAgent(page, "ada")
    await submit(page, page.locator("li.entry", { hasText: "green tea" }).getByRole("button", { name: "Remove" }))
    assert.include(await notice(page), "removed from agents/ada/MEMORY.md")
    assert.notInclude(memoryOf(memory), "green tea")
    assert.strictEqual(await page.locator(".notice").getByRole("button", { name: "Undo" }).count(), 1)
    await submit(page, page.locator(".notice").getByRole("button", { name: "Undo" }))
    assert.include(await notice(page), 'undone: "Ada drinks green tea" is back')
    assert.strictEqual(await page.locator("h1").textContent(), "Agent ada")
    assert.strictEqual(await page.locator(".notice button").count(), 0, "an undo is not offered to be undone")
    assert.include(memoryOf(memory), "- Ada drinks green tea [added: ")
    assert.include(memoryOf(memory), "- Ada runs on Sundays [added: ")
    assert.strictEqual(await page.locator("li.entry", { hasText: "green tea" }).count(), 1)

    const team = join(memory, "team/MEMORY.md")
    await submit(page, page.locator("li.entry", { hasText: "Fridays" }).getByRole("button", { name: "Remove" }))
    assert.include(await notice(page), "removed from team/MEMORY.md")
    assert.notInclude(readFileSync(team, "utf8"), "Fridays")
    await submit(page, page.locator(".notice").getByRole("button", { name: "Undo" }))
    assert.include(await notice(page), 'undone: "The team ships on Fridays" is back')
    assert.include(readFileSync(team, "utf8"), "- The team ships on Fridays [added: ")
  })

  it("shows times in the browser's own time zone, with the UTC time as their title", async () => {
    const { dir, memory } = scratch()
    remember(memory, "Ada drinks green tea")
    const file = join(dir, "porto.jsonl")
    writeFileSync(file, JSON.stringify({ seq: 1, who: "user", text: "I moved to Porto last month." }) + "\n")
    // Each run goes on from where the last stopped in the recorded answers (issue 22 item 20): one failure per run.
    const overloaded = { error: "the server answered 503: overloaded" }
    const failing = recorded(dir, "failing.jsonl", [overloaded, overloaded])
    const run = mneme(["review", file, "--memory", memory, "--agent", "ada", "--model", `replay:${failing}`])
    assert.strictEqual(run.code, 1, run.stderr)
    const served = await startPanel(["--memory", memory])
    const page = await open(served, "Asia/Tokyo")
    /** Every time of the page, as the page shows it: in Tokyo (UTC+9, no summer time), from its UTC `datetime`. */
    const inTokyo = async () => {
      const times = await page.locator("time[datetime]").evaluateAll((nodes) =>
        nodes.map((node) => ({
          at: node.getAttribute("datetime") ?? "",
          text: node.textContent,
          title: node.getAttribute("title")
        }))
      )
      assert.isAbove(times.length, 0)
      const shown = (epochMillis: number) =>
        new Date(epochMillis)
          .toISOString()
          .replace("T", " ")
          .replace(/\.\d+Z$/, "")
      for (const { at, text, title } of times) {
        assert.strictEqual(text, `${shown(Date.parse(at) + 9 * 3_600_000)} GMT+9`)
        assert.strictEqual(title, `${shown(Date.parse(at))} UTC`)
      }
      return times.map(({ at }) => Date.parse(at))
    }
    const [reviewed] = await inTokyo()
    await toAgent(page, "ada")
    assert.deepStrictEqual(await inTokyo(), [reviewed])
    assert.include(await page.locator("#last-review p").first().innerText(), "GMT+9")
    await page.goto(`${served.address}journal?agent=ada`)
    const journal = readFileSync(join(memory, "journal.jsonl"), "utf8")
    const written = journal
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { time: number }).time)
    assert.deepStrictEqual(await inTokyo(), written.toReversed())
  })

  it("sees a change made on disk meanwhile, and never overwrites it", async () => {
    const { memory } = scratch()
    remember(memory, "Ada likes tea")
    remember(memory, "Ada runs on Sundays")
    const page = await open(await startPanel(["--memory", memory]))
    await toAgent(page, "ada")
    const file = join(memory, "agents/ada/MEMORY.md")
    writeFileSync(file, memoryOf(memory).replace("Ada likes tea", "Ada likes green tea"))
    await submit(page, page.locator("li.entry", { hasText: "Ada likes tea" }).getByRole("button", { name: "Remove" }))
    assert.include(await notice(page), "That entry is no longer in agents/ada/MEMORY.md as the page showed it")
    assert.include(await notice(page), "Nothing was changed")
    assert.include(memoryOf(memory), "- Ada likes green tea [added: ")
    assert.strictEqual(await page.locator("li.entry", { hasText: "Ada likes green tea" }).count(), 1)

    writeFileSync(file, memoryOf(memory).replace("## Index", "Written by hand, kept as it is.\n\n## Index"))
    const sundays = page.locator("li.entry", { hasText: "Sundays" })
    await sundays.locator("summary", { hasText: "Edit" }).click()
    await sundays.locator('input[name="text"]').fill("Ada runs on Saturdays")
    await submit(page, sundays.getByRole("button", { name: "Save" }))
    assert.include(await notice(page), "had changed on disk since the page was shown: those changes are kept")
    assert.include(memoryOf(memory), "Written by hand, kept as it is.")
    assert.include(memoryOf(memory), "- Ada runs on Saturdays [added: ")
    assert.include(memoryOf(memory), "- Ada likes green tea [added: ")
    assert.include(await page.locator("li.note").first().textContent(), "Written by hand, kept as it is.")
  })

  it("answers a question from memory, previews a change, and changes the file only once confirmed", async () => {
    const { dir, memory } = scratch()
    remember(memory, "Ada works at Initech as a tester")
    remember(memory, "Ada flies to Lisbon in May")
    const model = recorded(dir, "answers.jsonl", [
      answer({ reply: 'Ada flies to Lisbon in May. <img src=x onerror="window.pwned = 1">', changes: [] }),
      answer({ reply: "This removes the entry about Initech.", changes: [{ op: "remove", entry: 1 }] }),
      { answer: "Ada is a tester who flies to Lisbon in May." }
    ])
    const page = await open(await startPanel(["--memory", memory, "--model", `replay:${model}`]))
    await toAgent(page, "ada")
    const box = page.locator("#ask")
    await box.locator("textarea").fill("What do you know about my travel plans?")
    await submit(page, box.getByRole("button", { name: "Send" }))
    assert.strictEqual(
      await box.locator(".reply").textContent(),
      'Ada flies to Lisbon in May. <img src=x onerror="window.pwned = 1">'
    )
    assert.strictEqual(await box.locator(".preview").count(), 0)
    assert.isUndefined(await page.evaluate(() => (globalThis as { pwned?: number }).pwned))

    const before = memoryOf(memory)
    await box.locator("textarea").fill("Forget everything about my old job")
    await submit(page, box.getByRole("button", { name: "Send" }))
    assert.strictEqual(await box.locator(".reply").textContent(), "This removes the entry about Initech.")
    assert.strictEqual(
      await box.locator("li.proposed").innerText(),
      "Remove from own MEMORY.md: Ada works at Initech as a tester"
    )
    assert.strictEqual(memoryOf(memory), before, "nothing is written before the person confirms")
    await submit(page, box.getByRole("button", { name: "Apply these changes" }))
    assert.include(await notice(page), "removed from agents/ada/MEMORY.md")
    assert.notInclude(memoryOf(memory), "Initech")
    assert.include(memoryOf(memory), "Lisbon")

    const after = memoryOf(memory)
    await submit(page, page.locator("#summary").getByRole("button", { name: "Summarise" }))
    assert.strictEqual(
      await page.locator("#summary .summary").textContent(),
      "Ada is a tester who flies to Lisbon in May."
    )
    assert.strictEqual(memoryOf(memory), after, "a summary is not stored")
  })

  it("says how to configure a model where none is configured", async () => {
    const { memory } = scratch()
    remember(memory, "Ada drinks green tea")
    const page = await open(await startPanel(["--memory", memory]))
    await toAgent(page, "ada")
    const box = page.locator("#ask")
    assert.include(await box.innerText(), "No model is configured, so the panel cannot ask one.")
    assert.include(await box.innerText(), "--model replay:FILE")
    assert.include(await box.innerText(), "MNEME_BASE_URL")
    assert.strictEqual(await box.locator("textarea").count(), 0)
  })

  it("shows an entry holding <script> as text, and runs none of it", async () => {
    const { memory } = scratch()
    remember(memory, "Ada wrote <script>window.pwned = 1</script> in her notes")
    const page = await open(await startPanel(["--memory", memory]))
    await toAgent(page, "ada")
    assert.strictEqual(
      await page.locator("li.entry .text").first().innerText(),
      "Ada wrote <script>window.pwned = 1</script> in her notes [added: " +
        (/added: (\d{4}-\d{2}-\d{2})/.exec(memoryOf(memory))?.[1] ?? "") +
        "]"
    )
    assert.isUndefined(await page.evaluate(() => (globalThis as { pwned?: number }).pwned))
    assert.strictEqual(await page.locator("main script").count(), 0)
  })

  it("refuses a page opened without the token, and shows nothing of memory", async () => {
    const { memory } = scratch()
    remember(memory, "Ada drinks green tea")
    const served = await startPanel(["--memory", memory])
    const page = await (await browser.newContext()).newPage()
    for (const path of ["", "agent?id=ada"]) {
      const response = await page.goto(served.address + path)
      assert.strictEqual(response?.status(), 401)
      assert.include(await page.locator("body").innerText(), "This panel needs its access link")
      assert.notInclude(await page.content(), "green tea")
    }
  })

  it("takes the README's screenshot of an agent's page", async () => {
    const { dir, memory } = scratch()
    assert.strictEqual(mneme(["review", transcript, "--memory", memory, "--model", `replay:${answers}`]).code, 0)
    const later = join(dir, "transcripts")
    mkdirSync(later)
    writeFileSync(
      join(later, "planning.jsonl"),
      JSON.stringify({ seq: 1, who: "user", text: "Next week I am in Lisbon for the data conference." }) + "\n"
    )
    // Each run goes on from where the last stopped in the recorded answers (issue 22 item 20): one failure per run.
    const overloaded = { error: "the server answered 503: overloaded" }
    const failing = recorded(dir, "failing.jsonl", [overloaded, overloaded])
    const review = ["review", join(later, "planning.jsonl"), "--memory", memory, "--model", `replay:${failing}`]
    assert.strictEqual(mneme(review).code, 1)
    const model = recorded(dir, "answers.jsonl", [
      answer({
        reply: "Northwind stays on Airflow: this corrects the entry about the billing pipeline.",
        changes: [{ op: "edit", entry: 3, text: "Northwind Logistics keeps its nightly billing pipeline on Airflow" }]
      })
    ])
    const page = await open(
      await startPanel(["--memory", memory, "--transcripts", later, "--model", `replay:${model}`], {
        MNEME_MEMORY_MAX: "480"
      })
    )
    await toAgent(page, "default")
    await page.locator("#ask textarea").fill("We are staying on Airflow after all: the dbt Cloud move is off")
    await submit(page, page.locator("#ask").getByRole("button", { name: "Send" }))
    assert.strictEqual(await page.locator("#ask li.proposed").count(), 1)
    assert.strictEqual(
      await page.locator('section.scope[data-scope="own"] h3 meter').getAttribute("data-level"),
      "near"
    )
    const shot = join(dir, "panel-agent.png")
    await page.screenshot({ path: shot, fullPage: true })
    const png = readFileSync(shot)
    assert.deepStrictEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    const wanted = process.env["MNEME_PANEL_SCREENSHOT"]
    if (wanted !== undefined && wanted !== "") writeFileSync(resolve(repo, wanted), png)
  })
})
