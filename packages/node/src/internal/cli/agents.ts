/** `mneme agents`: the agents of the memory root (a folder or a Postgres schema), with their folders, MEMORY.md sizes and topic counts. */
import { MemoryConfig } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Txt from "../text.ts"
import { memoryLocation, output, print, printJson, withMemoryToRead } from "./common.ts"

/** An agent id as a table cell: as it is, or quoted when it holds a control character (a line break, say). */
const shownId = (id: string) => {
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i)
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return JSON.stringify(id)
  }
  return id
}

export const agents = Command.make(
  "agents",
  {},
  Effect.fn("mneme.agents")(function* () {
    const { shown } = yield* memoryLocation
    const out = yield* output
    const settings = yield* MemoryConfig.MemoryConfig
    const store = yield* MemoryStore.MemoryStore
    const found = yield* store.agents
    if (out.json) {
      return yield* printJson({
        memory: shown,
        limits: { memory: settings.memoryMax, topics: settings.topicsMax },
        agents: found.map((agent) => ({
          agent: agent.agentId ?? null,
          dir: agent.dir,
          size: agent.size ?? null,
          topics: agent.topics ?? null
        }))
      })
    }
    const p = out.paint
    if (found.length === 0) return yield* print([p.dim(`no agents in ${shown}`)])
    yield* print(
      Txt.table(
        [
          ["AGENT", "FOLDER", "MEMORY.md", "TOPICS"].map(p.bold),
          ...found.map((agent) => [
            agent.agentId === undefined ? p.dim("(unknown)") : shownId(agent.agentId),
            agent.dir,
            agent.size === undefined ? "-" : Txt.size(agent.size, settings.memoryMax),
            agent.topics === undefined ? "-" : Txt.size(agent.topics, settings.topicsMax)
          ])
        ],
        ""
      )
    )
  }, withMemoryToRead)
).pipe(Command.withDescription("List the agents of the memory root: their folders, MEMORY.md sizes and topics"))
