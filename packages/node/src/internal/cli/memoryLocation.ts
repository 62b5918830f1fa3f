/**
 * Where `--memory` says memory is: a memory folder (the files backend), or a schema of a Postgres database
 * (`postgres://` or `postgresql://`, the schema in `?schema=NAME`, `mneme` by default). A location is shown to people
 * without the URL's password (in its user part or a `password` parameter), and gives the storage port over it. The
 * Postgres backend (`@mneme/sql`, with its driver and effect/cluster) is loaded only
 * for a Postgres location: it is an optional peer of `@mneme/node`, and where it is not installed the location cannot
 * be used, with a message saying what to install.
 */
import { RootUnusable, StorageError } from "@mneme/core"
import { FileRoot, type MemoryPending, type MemoryRoot } from "@mneme/review"
import { Effect, type FileSystem, Layer, type Path, Redacted, Result } from "effect"
import * as NodePlatform from "../../NodePlatform.ts"

/** A memory folder, as the person named it. */
export interface Folder {
  readonly _tag: "Folder"
  readonly path: string
  /** How it is shown: the path as given. */
  readonly shown: string
}

/** A schema of a Postgres database. */
export interface Postgres {
  readonly _tag: "Postgres"
  /** The database's URL, without the `schema` parameter; it may hold a password. */
  readonly url: Redacted.Redacted<string>
  readonly schema: string
  /** How it is shown: the URL without its password, and the schema. */
  readonly shown: string
}

export type Location = Folder | Postgres

/** The query parameter of a Postgres URL that names the root's schema. */
const schemaParameter = "schema"

/** The schema of a URL without `?schema=`: `PostgresRoot.defaultSchema`, named here so a folder never loads it. */
export const defaultSchema = "mneme"

const postgresScheme = /^postgres(?:ql)?:\/\//i
const schemaName = /^[a-z_][a-z0-9_]{0,62}$/

/** How a Postgres URL is written, for the messages that ask for one. */
const urlShape = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME]"

/** The memory folder `path`. */
export const folder = (path: string): Folder => ({ _tag: "Folder", path, shown: path })

/** Whether `given` names a Postgres database rather than a folder. */
export const isPostgres = (given: string): boolean => postgresScheme.test(given)

/**
 * The location `--memory` names, or why it cannot be one. A message never repeats a URL whole: it may hold a
 * password.
 */
export const parse = (given: string): Result.Result<Location, string> => {
  if (!isPostgres(given)) return Result.succeed(folder(given))
  if (!URL.canParse(given)) {
    return Result.fail(`--memory is not a Postgres URL mneme can read: write it as ${urlShape}`)
  }
  const url = new URL(given)
  if (url.pathname.length <= 1) {
    return Result.fail(`--memory needs the database's name: write it as ${urlShape}`)
  }
  const schemas = url.searchParams.getAll(schemaParameter)
  if (schemas.length > 1) return Result.fail("--memory names the schema twice: give ?schema=NAME once")
  const schema = schemas[0] ?? defaultSchema
  if (!schemaName.test(schema)) {
    return Result.fail(
      `--memory: ${JSON.stringify(schema)} is not a schema name: use 1-63 lower-case letters, digits or "_", ` +
        `starting with a letter or "_"`
    )
  }
  url.searchParams.delete(schemaParameter)
  const shown = new URL(url.href)
  shown.password = ""
  shown.searchParams.delete("password")
  return Result.succeed({
    _tag: "Postgres",
    url: Redacted.make(url.href),
    schema,
    shown: `${shown.href} (schema ${schema})`
  })
}

/** The package that holds the Postgres backend, installed beside `@mneme/node` by those who use it. */
export const postgresPackage = "@mneme/sql"

/** The package a failed import says it could not find, when that is why it failed. */
const missingPackage = (cause: unknown): string | undefined => {
  if (typeof cause !== "object" || cause === null || !("code" in cause) || cause.code !== "ERR_MODULE_NOT_FOUND") {
    return undefined
  }
  const message = "message" in cause ? String(cause.message) : ""
  return /^Cannot find package '([^']{1,214})'/.exec(message)?.[1] ?? postgresPackage
}

/**
 * The Postgres backend, loaded now; where it (or a package it needs) is not installed, the location cannot be used,
 * and the error names what to install.
 */
const loadPostgres = (location: Postgres) =>
  Effect.tryPromise({ try: () => import("@mneme/sql"), catch: (cause) => cause }).pipe(
    Effect.catch((cause) => {
      const missing = missingPackage(cause)
      if (missing === undefined) return Effect.die(cause)
      const found = missing === postgresPackage ? "" : ` (${missing} was not found)`
      return Effect.fail(
        new StorageError({
          reason: new RootUnusable({
            root: location.shown,
            detail: `memory in Postgres needs ${postgresPackage}, which is not installed${found}: install it beside @mneme/node (npm install ${postgresPackage})`
          })
        })
      )
    })
  )

/**
 * The storage port over `location`, and beside it the entries waiting for a person kept there, on this machine (a
 * folder needs the file system).
 */
export const rootLayer = (
  location: Location
): Layer.Layer<MemoryRoot.MemoryRoot | MemoryPending.MemoryPending, StorageError, FileSystem.FileSystem | Path.Path> =>
  location._tag === "Folder"
    ? FileRoot.layer({ root: location.path }).pipe(Layer.provide(NodePlatform.layer))
    : Layer.unwrap(
        Effect.map(loadPostgres(location), ({ PostgresRoot }) =>
          // The URL as text: the backend is loaded from the host's own install, with its own copy of effect.
          PostgresRoot.layer({ url: Redacted.value(location.url), schema: location.schema })
        )
      )
