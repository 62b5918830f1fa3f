/** The selection benchmarks — being written. */
import type { Suite } from "./Bench.ts"
export const suite: Suite = async () => []
