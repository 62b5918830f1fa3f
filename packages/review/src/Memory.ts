/**
 * The one composition of mneme (docs/design.md, "The shape"): the memory review, the memory store, the review state and
 * the storage port over one memory root, and memory in use (the agent's tools' handlers, the memory section of its
 * prompt), with the settings read once. A host gives its ports (`Transcript`, `Agents`, and `Groups` where it has
 * groups), a `ReviewModel` and the platform (`FileSystem`, `Path`, `Platform`, `RootFiles`); the pieces stay available for a host
 * that wires them by hand.
 */
import { type Backoff, MemoryConfig } from "@mneme/core"
import { Effect, type FileSystem, Layer, type Path } from "effect"
import type { Agents } from "./Agents.ts"
import * as FileRoot from "./FileRoot.ts"
import * as MemoryPrompt from "./MemoryPrompt.ts"
import * as MemoryReview from "./MemoryReview.ts"
import type { MemoryRoot } from "./MemoryRoot.ts"
import * as MemoryStore from "./MemoryStore.ts"
import * as MemoryTools from "./MemoryTools.ts"
import type { Platform } from "./Platform.ts"
import type { RootFiles } from "./RootFiles.ts"
import type { ReviewModel } from "./ReviewModel.ts"
import * as ReviewState from "./ReviewState.ts"
import type { Transcript } from "./Transcript.ts"

/** What the composition over any backend of the storage port takes. */
export interface Settings {
  /** Another failure policy than the default of `MemoryConfig.failuresMax`. */
  readonly policy?: Backoff.Policy | undefined
  /** Settings over the `MemoryConfig` in force when the layer is built. */
  readonly settings?: Partial<MemoryConfig.Settings> | undefined
}

/** What the composition over a memory folder takes: the folder, and the writer lock's timings. */
export interface Options extends Settings {
  readonly root: string
  readonly lock?: FileRoot.Options["lock"]
}

/** Every service the composition provides. */
export type Services =
  | MemoryReview.MemoryReview
  | MemoryReview.Reviewer
  | MemoryStore.MemoryStore
  | ReviewState.ReviewState
  | MemoryRoot
  | MemoryPrompt.MemoryPrompt
  | MemoryTools.Handlers

/** What the host gives: its transcript and agents, and the review's model (its `Groups`, if any, has a default). */
export type HostPorts = Transcript | Agents | ReviewModel

/** What the files backend needs of the platform. */
export type Machine = FileSystem.FileSystem | Path.Path | Platform | RootFiles

/**
 * The review, the store, the review state, the memory tools' handlers and the memory section over the storage port
 * `rootLayer` gives (another backend than files).
 * The settings are those of the `MemoryConfig` in force when the layer is built, with `options.settings` over them,
 * and every service of the composition reads them then; `MemoryReview.Reviewer` carries them, with the failure policy,
 * to a review scheduled elsewhere (the cluster's entity), so it obeys the same ones.
 */
export const layerOver = <E, R>(
  rootLayer: Layer.Layer<MemoryRoot, E, R>,
  options: Settings = {}
): Layer.Layer<Services, E, R | HostPorts> =>
  Layer.unwrap(
    Effect.map(MemoryConfig.MemoryConfig, (inForce) =>
      Layer.mergeAll(
        MemoryReview.layerWith({ policy: options.policy }),
        MemoryReview.reviewerLayer({ policy: options.policy }),
        MemoryTools.layer,
        MemoryPrompt.layer
      ).pipe(
        Layer.provideMerge(Layer.merge(MemoryStore.layer, ReviewState.layer)),
        Layer.provideMerge(rootLayer),
        Layer.provide(Layer.succeed(MemoryConfig.MemoryConfig, { ...inForce, ...options.settings }))
      )
    )
  )

/**
 * mneme over the memory folder `options.root`: `MemoryReview`, `MemoryStore`, `ReviewState`, `MemoryRoot`, the
 * `MemoryTools` handlers and `MemoryPrompt`, needing only the host's ports, a `ReviewModel` and the platform.
 */
export const layer = (options: Options): Layer.Layer<Services, never, HostPorts | Machine> =>
  layerOver(
    FileRoot.layer(options.lock === undefined ? { root: options.root } : { root: options.root, lock: options.lock }),
    options
  )
