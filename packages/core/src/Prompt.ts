/** Prompt — being written. */
export {}
