/** Selection — being written. */
export {}
