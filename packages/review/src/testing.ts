/** The test kit: a scripted model, an in-memory transcript and agents, and a layer over a temporary root — being written. */
export {}
