/** Backoff — being written. */
export {}
