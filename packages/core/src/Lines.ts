/** Lines — being written. */
export {}
