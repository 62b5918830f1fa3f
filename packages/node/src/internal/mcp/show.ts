/**
 * What the MCP tool `show` answers: the agent's memory as Markdown, its own and the team's, each file with its size
 * against its limit and its entries masked, and how the last review went.
 */
import { Entry, Lines, MemoryConfig, Text } from "@mneme/core"
import { MemoryRoot, MemoryStore } from "@mneme/review"
import * as Txt from "../text.ts"

/** One scope of memory as Markdown: each file with its size against its limit, and its entries, masked. */
const scopeMarkdown = (title: string, scope: MemoryStore.ScopeView, settings: MemoryConfig.Settings): Array<string> => {
  const mask = (text: string) => Lines.mask(text, settings)
  const topics = scope.files.length - 1
  const out = [`## ${title}: ${scope.dir} (${Txt.size(topics, settings.topicsMax)} topics)`]
  for (const file of scope.files) {
    const limit = file.topic === undefined ? settings.memoryMax : settings.topicMax
    const name = file.topic === undefined ? "MEMORY.md" : `topic ${file.topic}`
    out.push("", `### ${name}: ${Txt.size(file.size, limit)} characters`)
    if (file.size > limit) out.push(`(over its size of ${Text.count(limit)} characters: remove or shorten entries)`)
    const entries = file.parsed.entries
    const within = Txt.entriesWithin(
      entries.map((entry) => Text.length(entry.text)),
      limit
    )
    if (entries.length === 0) out.push("(no entries)")
    for (const entry of entries.slice(0, within)) {
      out.push(
        Entry.format(
          mask(entry.text),
          entry.meta.map(([key, value]) => [key, mask(value)] as const)
        )
      )
    }
    if (within < entries.length) out.push(`(${Text.count(entries.length - within)} more past its size, not shown)`)
  }
  for (const file of scope.unlinked) out.push("", `(${file.file} is not linked from MEMORY.md's index)`)
  for (const { file, error } of scope.unreadable) out.push("", `(${file} could not be read: ${mask(error.message)})`)
  return out
}

/** The agent's memory as Markdown: its own and the team's, sizes against limits, and the last review. */
export const showMarkdown = (
  agentId: string,
  own: MemoryStore.ScopeView,
  team: MemoryStore.ScopeView,
  lastReview: MemoryRoot.LastReview | null,
  settings: MemoryConfig.Settings
): string =>
  [
    `# Memory of the agent ${JSON.stringify(agentId)}`,
    "",
    ...scopeMarkdown("Own memory", own, settings),
    "",
    ...scopeMarkdown("Team memory, which every agent reads", team, settings),
    "",
    `Last review: ${
      lastReview === null
        ? "none yet"
        : `${Txt.time(lastReview.at)}, ${lastReview.ok ? "ok" : `failed: ${Lines.mask(lastReview.reason ?? "no reason given", settings)}`}`
    }`
  ].join("\n")
