/** ReviewModel — being written. */
export {}
