/** Transcript — being written. */
export {}
