/** Topic — being written. */
export {}
