/**
 * Conversation ids as the logs take them: one that can name a log file (no path, no device name), and an id as a
 * message quotes it (its secrets masked, and cut).
 */
import { Lines, Text, Topic } from "@mneme/core"

/** The most characters of an id a message quotes. */
export const shownMax = 60

/** An id as a message quotes it: its secrets masked, and cut. */
export const shown = (id: string): string => {
  const masked = Lines.mask(id, {})
  return Text.length(masked) > shownMax ? `${Text.take(masked, shownMax)}…` : masked
}

const safeId = /^[A-Za-z0-9_-]{1,128}$/

/** Why a conversation id cannot name a log, or nothing. */
export const idProblem = (conversationId: string): string | undefined =>
  !safeId.test(conversationId)
    ? "a conversation id is 1-128 letters, digits, _ or - (the same id for every turn of one conversation)"
    : Topic.isDeviceName(conversationId)
      ? "a conversation id may not be a device name such as con or nul"
      : undefined
