/** Vet — being written. */
export {}
