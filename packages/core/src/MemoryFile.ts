/** MemoryFile — being written. */
export {}
