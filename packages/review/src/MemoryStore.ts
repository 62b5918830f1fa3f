/** MemoryStore — being written. */
export {}
