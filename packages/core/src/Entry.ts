/** Entry — being written. */
export {}
