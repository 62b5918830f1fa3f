/**
 * The rules of changing memory (docs/spec.md 2–3), as pure planning over a scope's files as read: where an entry goes, the
 * same fact anywhere in the scope, topic creation within the topic limit and its index link, an emptied topic deleted
 * with its link, the size limits, the entry's problem, topic names, the `added` date, and undoing a journaled change.
 * A plan gives the new file texts (each file once), the journal records (one per file changed per change) and the
 * outcome with its message, or a typed error. Several changes planned in a row see what the earlier ones left, so a
 * batch is planned against the files read once. Nothing here reads or writes a file: the store does, through its
 * storage port.
 *
 * The shapes are in internal/editShapes.ts, what planning and undoing share in editHelpers.ts, planning in editPlan.ts
 * and undoing in editUndo.ts.
 */
export * from "./internal/editPlan.ts"
export * from "./internal/editShapes.ts"
export * from "./internal/editUndo.ts"
export { sameKeys } from "./internal/editHelpers.ts"
