/**
 * The storage port made over a backend (`MemoryRoot.Backend`: the files, Postgres): `make` adds the port's unit of work
 * (`MemoryRoot.transaction`, see `internal/unitOfWork.ts`), the same for every backend.
 */
import type { Backend, MemoryRoot } from "./MemoryRoot.ts"
import * as UnitOfWork from "./internal/unitOfWork.ts"

/** The storage port over `backend`, with its unit of work (`transaction`). */
export const make: (backend: Backend) => MemoryRoot["Service"] = UnitOfWork.make
