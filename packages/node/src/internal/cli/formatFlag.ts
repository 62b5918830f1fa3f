/**
 * The `--format` flag of the commands that read transcript files (`mneme review`, `mneme watch`): the shape of the
 * files, when it is not to be recognised from their content (`TranscriptFormat`).
 */
import { Option } from "effect"
import { Flag } from "effect/cli"
import * as TranscriptFormat from "../../TranscriptFormat.ts"

/** `--format mneme|chat|claude-code|text`; recognised from the content when not given. */
export const formatFlag = Flag.Literals("format", TranscriptFormat.names).pipe(
  Flag.withDescription(
    "The transcript's shape: mneme (JSONL of {seq, who, text}), chat (JSONL of {role, content}, or one JSON array), " +
      "claude-code (a Claude Code session file) or text (Name: text a line); recognised from the content when not given"
  ),
  Flag.optional
)

/** How a transcript is read for `agent`: the shape `--format` names, and the agent's id as a name chat text may use. */
export const readOptions = (
  format: Option.Option<TranscriptFormat.Format>,
  agent: string
): TranscriptFormat.Options => ({ format: Option.getOrUndefined(format), agentNames: [agent] })
