/** Secret — being written. */
export {}
