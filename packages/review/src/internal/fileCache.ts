/**
 * Parsed memory files kept per root while they are unchanged, keyed by what a stat gives (size, change time, inode),
 * so an unchanged scope loads without reading or parsing its files again.
 *
 * A stamp is trusted only once the file's change time is safely older than when the file was read (as git guards its
 * "racy" files): a file changed again within the same tick of the file system's clock keeps its size and time, so an
 * entry read so soon after its change is read again next time (and parsed again only when its text differs). How
 * soon is too soon depends on the tick: a change time with a fraction of a millisecond comes from a file system that
 * keeps fine times, whose tick is the kernel's (a few ms), so `fineWindow`; any other may tick in whole seconds (two
 * on FAT), so `racyWindow`. The cache holds at most `limit` files, dropping the least recently used, and the topic
 * names their indexes link, cleaned.
 */
import { type MemoryFile, Topic } from "@mneme/core"
import type { Stamp } from "./paths.ts"

/** A file as read: its stamp then, when it was read (epoch ms), its text, parsed, and its size in characters. */
export interface Entry extends Stamp {
  readonly readAt: number
  readonly text: string
  readonly parsed: MemoryFile.Parsed
  readonly chars: number
}

/** How much older than its reading a file's change time must be for its stamp to be trusted (ms). */
export const racyWindow = 2_000

/** The same, for a change time with a fraction of a millisecond (a file system that keeps fine times). */
export const fineWindow = 100

/** How much older than its reading a file's change time `mtime` must be for its stamp to be trusted. */
const windowOf = (mtime: number) => (Number.isInteger(mtime) ? racyWindow : fineWindow)

/**
 * A stamp no file has: an entry with it is never fresh, so its file is read again, but its text is there to compare
 * (`last`), and a text found the same is not parsed again (for a file this process has just written).
 */
export const noStamp: Stamp = { size: -1, mtime: 0, ino: undefined }

const sameStamp = (a: Stamp, b: Stamp) => a.size === b.size && a.mtime === b.mtime && a.ino === b.ino

/** Whether what was read at `read.readAt`, with its stamp then, still stands for a file whose stamp is `stamp` now. */
export const trusted = (read: Stamp & { readonly readAt: number }, stamp: Stamp): boolean =>
  sameStamp(read, stamp) && stamp.mtime <= read.readAt - windowOf(stamp.mtime)

/** A cache of parsed files by absolute path. */
export interface FileCache {
  /** The entry of `absolute` when `stamp` says it is unchanged and can be trusted. */
  readonly fresh: (absolute: string, stamp: Stamp) => Entry | undefined
  /** The entry of `absolute`, trusted or not (a text read again and found the same is not parsed again). */
  readonly last: (absolute: string) => Entry | undefined
  readonly set: (absolute: string, entry: Entry) => void
  readonly drop: (absolute: string) => void
  /** Cleans the topic names the files' indexes link, each name once while the cache lives. */
  readonly names: Topic.Cleaner
}

/** An empty cache of at most `limit` files. */
export const make = (limit = 4_096): FileCache => {
  const entries = new Map<string, Entry>()
  return {
    fresh: (absolute, stamp) => {
      const entry = entries.get(absolute)
      if (entry === undefined || !trusted(entry, stamp)) return undefined
      entries.delete(absolute)
      entries.set(absolute, entry)
      return entry
    },
    last: (absolute) => entries.get(absolute),
    set: (absolute, entry) => {
      entries.delete(absolute)
      entries.set(absolute, entry)
      if (entries.size > limit) entries.delete(entries.keys().next().value!)
    },
    drop: (absolute) => {
      entries.delete(absolute)
    },
    names: Topic.cleaner(limit)
  }
}
