/**
 * Where a memory root keeps its scopes and files (docs/spec.md 1), as every backend of the storage port names them (the
 * files, Postgres), so a root copied from one to the other keeps its names.
 *
 * An agent's folder is its id when that is a safe file name everywhere: 1–128 of `[A-Za-z0-9_-]`, not a Windows
 * device name, and not of the shape of a hashed folder (below). Any other id gets `<slug>-<hash>`: a lower-case slug
 * of the id (at most 40 of `[a-z0-9-]`, `agent` when nothing is left) and the first 12 hex digits of the id's
 * SHA-256, e.g. `ada-lovelace-3f2a91c0d4e5`. A name of that shape is never an id's own folder, so an id kept by name
 * never meets a hashed one. A hashed folder records its id in `agent.json` (`{"version":1,"agentId":…}`), which is
 * how the root's agents are listed. Before this naming, an unsafe id's folder was the first 32 hex digits of its
 * SHA-256 and a device name or a hashed-looking id was kept by name: that earlier folder is still found, and moved to
 * the new name on the first write.
 */
import { type MemoryScope, Topic } from "@mneme/core"
import { sha256 } from "./internal/sha256.ts"

/**
 * SHA-256 of a text as 64 hex digits: what names a hashed folder, and the one hash mneme uses (also for a transcript's
 * conversation id and a replay record, on Node).
 */
export const hash: Hash = sha256

const safeId = /^[A-Za-z0-9_-]{1,128}$/
const hashedShape = /(^|-)[0-9a-f]{12}$/

/** SHA-256 as 64 hex digits (`hash`). */
export type Hash = (text: string) => string

/** A lower-case slug of an id: at most 40 of `[a-z0-9-]`, no `-` at either end. */
const slug = (agentId: string): string => {
  const words = agentId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-/, "")
    .slice(0, 40)
    .replace(/-$/, "")
  return words === "" ? "agent" : words
}

/** Whether `agentId` is its own folder's name. */
const keptByName = (agentId: string) =>
  safeId.test(agentId) && !Topic.isDeviceName(agentId) && !hashedShape.test(agentId)

/** The folder name of an agent (see the module's comment). */
export const agentDir = (hash: Hash, agentId: string): string =>
  keptByName(agentId) ? agentId : `${slug(agentId)}-${hash(agentId).slice(0, 12)}`

/** Whether an agent's folder records its id (`agent.json`): every folder not named by its id. */
export const recordsId = (agentId: string): boolean => !keptByName(agentId)

/** The folder name the earlier naming gave an agent, when it is not the new one. */
export const legacyAgentDir = (hash: Hash, agentId: string): string | undefined => {
  const earlier = safeId.test(agentId) ? agentId : hash(agentId).slice(0, 32)
  return earlier === agentDir(hash, agentId) ? undefined : earlier
}

/** The agent a folder of `agents/` is named by, when it is a folder named by its id. */
export const agentOfName = (name: string): string | undefined => (keptByName(name) ? name : undefined)

/** The file in a hashed folder that records its agent's id. */
export const idRecordName = "agent.json"

/** The folder of a scope, relative to the root: "team" or "agents/<dir>". */
export const scopeDir = (hash: Hash, scope: MemoryScope.MemoryScope): string =>
  scope.kind === "team" ? "team" : `agents/${agentDir(hash, scope.agentId)}`

/** The entry point of every scope. */
export const memoryName = "MEMORY.md"

/** The name of a scope's file: MEMORY.md, or `<topic>.md`. */
export const nameOf = (topic: string | undefined): string => (topic === undefined ? memoryName : `${topic}.md`)

/** A file of a scope, relative to the root ("/" separated): MEMORY.md, or `<topic>.md`. */
export const fileOf = (dir: string, topic: string | undefined): string => `${dir}/${nameOf(topic)}`

/** The topic a file name of a scope's folder is (`undefined` for MEMORY.md), or `null` when it is none; a reader that
 * lists folders often passes its `Topic.cleaner`. */
export const topicOfName = (name: string, clean: Topic.Cleaner = Topic.clean): string | undefined | null => {
  if (name === memoryName) return undefined
  if (!name.endsWith(".md")) return null
  const stem = name.slice(0, -3)
  return clean(stem) === stem ? stem : null
}
