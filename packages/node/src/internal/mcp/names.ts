/**
 * The names the MCP server gives memory: the resource URI of a memory file and of the entries waiting for a person,
 * and why an agent cannot be served under its id.
 */

/** The resource URI of a memory file: the agent's own (`agentId`) or the team's, MEMORY.md or a topic. */
export const uriOf = (owner: { readonly agentId: string } | "team", topic: string | undefined): string =>
  `memory://${owner === "team" ? "team" : encodeURIComponent(owner.agentId)}/${topic === undefined ? "MEMORY.md" : `${topic}.md`}`

/** Why an agent cannot be served (its resources would be the team's), or nothing. */
export const agentProblem = (agentId: string): string | undefined =>
  encodeURIComponent(agentId) === "team"
    ? 'the agent "team" cannot be served: memory://team/ names team memory; choose another agent id'
    : undefined

/** The resource URI of the entries waiting for a person, the agent's own and the team's. */
export const pendingUriOf = (agentId: string): string => `memory://${encodeURIComponent(agentId)}/pending.json`
