/**
 * mneme in a host written in plain TypeScript, with no Effect: `createMemory` over a memory folder, and a chat loop that
 * calls an OpenAI-compatible server itself. Each conversation's system prompt holds the agent's memory section, frozen
 * for the conversation; the model is given the memory tools and their calls run with `callTool`; every line, tool
 * calls and results included (marked, so the review never keeps them), goes to the conversation's log; and the
 * review is told when each turn starts and ends.
 */
import { createMemory, type Memory } from "@mneme/node"

/** The host's chat model: an OpenAI-compatible server. */
export interface ChatModel {
  readonly baseUrl: string
  readonly model: string
  readonly apiKey?: string
}

/** A message of the Chat Completions API, as this host keeps it. */
type Message =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: Array<ToolCall> }
  | { role: "tool"; tool_call_id: string; content: string }

interface ToolCall {
  id: string
  type: "function"
  function: { name: string; arguments: string }
}

/** Memory over `root`; its reviews use the same server as the chat. */
export const openMemory = (root: string, model: ChatModel): Promise<Memory> =>
  createMemory({ root, model, agents: { ada: { name: "Ada", role: "a helpful assistant" } } })

/** The conversations' messages so far, each begun with the system prompt of its first turn. */
const conversations = new Map<string, Array<Message>>()

/** One call of the chat model, with the memory tools. */
async function complete(model: ChatModel, messages: Array<Message>, tools: ReadonlyArray<object>) {
  const response = await fetch(`${model.baseUrl}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {})
    },
    body: JSON.stringify({ model: model.model, messages, tools })
  })
  if (!response.ok) throw new Error(`the chat model answered ${response.status}`)
  const body = (await response.json()) as {
    choices: Array<{ message: { content: string | null; tool_calls?: Array<ToolCall> } }>
  }
  return body.choices[0]!.message
}

/** One turn of the agent "ada": the user's words in, its answer out, memory tools and the review on the way. */
export async function turn(memory: Memory, model: ChatModel, conversationId: string, userText: string) {
  await memory.turnStarted(conversationId)
  try {
    let messages = conversations.get(conversationId)
    if (messages === undefined) {
      const section = await memory.section("ada", { conversationId })
      messages = [{ role: "system", content: `You are Ada, a helpful assistant.\n\n${section}` }]
      conversations.set(conversationId, messages)
    }
    messages.push({ role: "user", content: userText })
    await memory.append(conversationId, { who: "user", text: userText }, { agentId: "ada" })
    for (let calls = 0; calls < 8; calls++) {
      const reply = await complete(model, messages, memory.tools("openai"))
      messages.push({
        role: "assistant",
        content: reply.content,
        ...(reply.tool_calls ? { tool_calls: reply.tool_calls } : {})
      })
      if (!reply.tool_calls?.length) {
        const text = reply.content ?? ""
        await memory.append(conversationId, { who: "agent", text }, { agentId: "ada" })
        return text
      }
      for (const call of reply.tool_calls) {
        const text = JSON.stringify({ tool: call.function.name, params: call.function.arguments })
        await memory.append(conversationId, { who: "agent", kind: "tool-call", text }, { agentId: "ada" })
        const result = await memory.callTool("ada", call.function.name, call.function.arguments, { conversationId })
        await memory.append(
          conversationId,
          { who: "agent", kind: "tool-result", text: result.content },
          { agentId: "ada" }
        )
        messages.push({ role: "tool", tool_call_id: call.id, content: result.content })
      }
    }
    return ""
  } finally {
    await memory.turnEnded(conversationId)
  }
}
