/** Answer — being written. */
export {}
