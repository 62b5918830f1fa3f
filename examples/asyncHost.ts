/**
 * mneme's memory tools in a host that is not written with Effect: plain async functions over a `ManagedRuntime`. A
 * conversation's system prompt holds the agent's memory section, frozen when the conversation starts; the host's own
 * model client is given the tools' definitions; each tool call it makes runs with `MemoryTools.call`, and the result
 * (JSON, with `isError`) goes back to the model.
 */
import { NodePlatform, NodeServices } from "@mneme/node"
import { Agents, FileRoot, MemoryPrompt, MemoryStore, MemoryTools } from "@mneme/review"
import { Effect, Layer, ManagedRuntime } from "effect"

/** The host's agents: each keeps its own memory; none may change team memory. */
const agents = Layer.succeed(
  Agents.Agents,
  Agents.Agents.of({ get: (id) => Effect.succeed({ id, name: id, mayWriteTeam: false }) })
)

/** Memory over the folder `root`, as a runtime the host keeps, and disposes of when it shuts down. */
export const open = (root: string) =>
  ManagedRuntime.make(
    Layer.merge(MemoryTools.layer, MemoryPrompt.layer).pipe(
      Layer.provideMerge(MemoryStore.layer),
      Layer.provide(FileRoot.layer({ root })),
      Layer.provide(Layer.mergeAll(agents, NodeServices.layer, NodePlatform.layer))
    )
  )

/** The memory runtime. */
export type Memory = ReturnType<typeof open>

/** The tools as the host's model client declares them: name, description, and the parameters' JSON Schema. */
export const tools = MemoryTools.definitions

/** What the host's model client is given, and what it answers: a text, or tool calls. */
export type Model = (request: {
  readonly system: string
  readonly user: string
  readonly tools: ReadonlyArray<MemoryTools.Definition>
  readonly results: ReadonlyArray<MemoryTools.CallResult>
}) => Promise<{ readonly text: string } | { readonly toolCalls: ReadonlyArray<{ name: string; arguments: unknown }> }>

/** A conversation's system prompt: the agent's memory section as it is when the conversation starts. */
export async function systemPrompt(memory: Memory, agentId: string): Promise<string> {
  const { section } = await memory.runPromise(MemoryPrompt.MemoryPrompt.use((prompt) => prompt.session(agentId)))
  return `You are a helpful assistant.\n\n${section}`
}

/** One turn of an agent: its model is called until it answers with text, its tool calls run as one turn's. */
export async function answer(memory: Memory, agentId: string, system: string, user: string, model: Model) {
  const turn = await memory.runPromise(MemoryTools.startTurn(agentId))
  const results: Array<MemoryTools.CallResult> = []
  for (let calls = 0; calls < 8; calls++) {
    const reply = await model({ system, user, tools, results })
    if ("text" in reply) return reply.text
    for (const call of reply.toolCalls) {
      results.push(await memory.runPromise(MemoryTools.call(turn, call.name, call.arguments)))
    }
  }
  return ""
}
