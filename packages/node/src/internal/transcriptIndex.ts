/**
 * A transcript's lines as the numbers a run of `mneme review` needs of them, without the lines: each line's seq,
 * whether it is the user's own words, its size once cut for the model (what the estimate of the calls adds up), and,
 * for a file, where its bytes are. A file's line costs 25 bytes here, in columns of typed arrays, where the line held
 * whole costs its text and an object: about 60 MB for a 50 MB transcript, against 3.3 MB.
 */
import { Lines, Text } from "@mneme/core"

/** What a run reads of a transcript's lines, oldest first: line `i` for `i` from 0 to `count - 1`. */
export interface Index {
  /** How many lines there are. */
  readonly count: number
  /** Line `i`'s seq (the seqs grow from line to line). */
  readonly seqAt: (i: number) => number
  /** Whether line `i` is the user's own words (`Lines.isUserWords`). */
  readonly userAt: (i: number) => boolean
  /** The characters of line `i` cut and masked as the model sees it: `Text.length(Lines.cut(line, settings))`. */
  readonly cutSizeAt: (i: number) => number
}

/** An index of a file's lines: each line's bytes are `lengthAt(i)` bytes from `offsetAt(i)`. */
export interface FileIndex extends Index {
  readonly offsetAt: (i: number) => number
  readonly lengthAt: (i: number) => number
}

/** The position of the first line whose seq is above `seq` (`count` when none is): a binary search. */
export const after = (index: Pick<Index, "count" | "seqAt">, seq: number): number => {
  let low = 0
  let high = index.count
  while (low < high) {
    const middle = (low + high) >>> 1
    if (index.seqAt(middle) <= seq) low = middle + 1
    else high = middle
  }
  return low
}

/** The index of lines held in memory (standard input, which cannot be read again): each size cut when asked for. */
export const ofLines = (lines: ReadonlyArray<Lines.Line>, settings: Lines.CutSettings): Index => ({
  count: lines.length,
  seqAt: (i) => lines[i]!.seq,
  userAt: (i) => Lines.isUserWords(lines[i]!),
  cutSizeAt: (i) => Text.length(Lines.cut(lines[i]!, settings))
})

/** Lines a block of a column holds: a power of two, so a line's block and place in it are a shift and a mask. */
const blockBits = 12
const blockSize = 1 << blockBits

/** A typed array a column's blocks are made of. */
type Block = Float64Array | Uint32Array | Uint8Array

/**
 * A column of numbers, one a line, in blocks of `blockSize`: it grows a block at a time, never copying what it holds
 * and never leaving a smaller array behind for the garbage collector (a column that doubles leaves as much garbage as
 * it keeps, and until it is collected the process holds both).
 */
const column = (make: (size: number) => Block) => {
  const blocks: Array<Block> = []
  return {
    set: (i: number, value: number) => {
      if (i >>> blockBits === blocks.length) blocks.push(make(blockSize))
      blocks[i >>> blockBits]![i & (blockSize - 1)] = value
    },
    get: (i: number): number => blocks[i >>> blockBits]![i & (blockSize - 1)]!
  }
}

/**
 * A file's index built a line at a time, oldest first: `add` each line as it is read (its size cut, where its bytes
 * start and how many there are), then `done` gives the index. Each line costs 25 bytes: its seq and offset as 64-bit
 * floats (exact to 2^53), its length and cut size as 32-bit integers (no line of a JavaScript string is longer), and
 * whether it is the user's words as a byte.
 */
export const builder = (): {
  readonly add: (line: Lines.Line, cutSize: number, offset: number, length: number) => void
  readonly done: () => FileIndex
} => {
  let count = 0
  const seqs = column((size) => new Float64Array(size))
  const offsets = column((size) => new Float64Array(size))
  const lengths = column((size) => new Uint32Array(size))
  const cutSizes = column((size) => new Uint32Array(size))
  const users = column((size) => new Uint8Array(size))
  return {
    add: (line, cutSize, offset, length) => {
      seqs.set(count, line.seq)
      offsets.set(count, offset)
      lengths.set(count, length)
      cutSizes.set(count, cutSize)
      users.set(count, Lines.isUserWords(line) ? 1 : 0)
      count++
    },
    done: () => ({
      count,
      seqAt: seqs.get,
      userAt: (i) => users.get(i) === 1,
      cutSizeAt: cutSizes.get,
      offsetAt: offsets.get,
      lengthAt: lengths.get
    })
  }
}
