/** Runs the `mneme` command line on Node, over the process's standard streams, file system and exit code. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import * as Cli from "../../Cli.ts"

/** Runs the command line on `args` (without the node and script paths) until it ends, then ends the process. */
export const main = (args: ReadonlyArray<string>): void =>
  Cli.run(args).pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
