/** Agents — being written. */
export {}
