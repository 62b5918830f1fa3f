/** Cursors — being written. */
export {}
