/** MemoryReview — being written. */
export {}
