#!/usr/bin/env node
/**
 * The `mneme` executable: runs the command line on Node with the process's arguments. Exit codes: 0 done, 1 an
 * operation failed, 2 usage or configuration (see `Cli`).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import * as Cli from "./Cli.ts"

Cli.run(process.argv.slice(2)).pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
