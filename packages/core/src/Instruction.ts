/**
 * Whether an entry reads as an instruction to the agent rather than a fact about the user or their work: memory is
 * read into every later conversation's system prompt, so an entry that tells the agent what to do steers it for good.
 * The check flags orders to drop earlier instructions, imperatives aimed at the assistant ("always…", "never…",
 * "you must…", "from now on…"), tool and command directives, addresses to send data to, role-play and system-prompt
 * phrasing, and conditional triggers, in English, Chinese and a few other languages; also when spacing, look-alike
 * letters, ROT13, reversal or an encoding (Base64, hexadecimal, percent escapes, entities) hides them. A stated
 * preference ("The user prefers answers in Spanish") stays a fact. Pure; every pattern runs in linear time.
 */
import * as Form from "./internal/instructionText.ts"

/** What kind of instruction an entry reads as. */
export type Kind = "Override" | "Imperative" | "Command" | "SendData" | "RolePlay" | "SystemMarkup" | "Concealment"

/** An entry that reads as an instruction: of what kind, and the words that show it. */
export interface Flag {
  readonly _tag: "Instruction"
  readonly kind: Kind
  /** The words that show it (lower case, at most 60 characters), or what the encoded words decode to. */
  readonly words: string
  /** Whether the words were hidden (encoded, spaced, look-alike letters). */
  readonly hidden: boolean
}

/**
 * A pattern that flags wherever it stands, with its opening words apart where it has them: a text the opening does not
 * match cannot match the whole, so the whole (slow to compile on first use, which a short command pays) is run only
 * on a text that holds its opening.
 */
type Rule = readonly [kind: Kind, pattern: RegExp, opening?: RegExp]

/** The rule of `opening` followed by `rest`: its pattern is the two in sequence, so each match starts with the opening. */
const opened = (kind: Kind, opening: RegExp, rest: RegExp): Rule => [
  kind,
  new RegExp(`(?:${opening.source})(?:${rest.source})`, "u"),
  opening
]

/** Patterns that flag wherever they stand in the plain text. */
export const anywhere: ReadonlyArray<Rule> = [
  opened(
    "Override",
    /\b(?:ignore|disregard|forget|override|bypass|discard)\b/u,
    /(?: (?:all|any|every|of|the|your|my|these|those|previous|prior|earlier|above|preceding|existing|current|original|old|initial|safety|system|other|and)){0,6} ?(?:instructions?|prompts?|rules|guidelines|directives|messages|context|constraints|guardrails|restrictions|programming|polic(?:y|ies)|commands|orders|settings)\b/u
  ),
  opened(
    "Override",
    /\b(?:new|updated|real|true|hidden|secret|revised) /u,
    /(?:system )?(?:instructions|directives|system prompt)\b/u
  ),
  opened(
    "Override",
    /\bfrom now on\b/u,
    /,? (?:you|always|never|only|do|don't|respond|reply|answer|ignore|act|behave|treat|call|send|use|every|all|any|speak|write|remember|forget|refer|the (?:assistant|agent|ai|model))\b/u
  ),
  [
    "Override",
    /(?:ignor(?:a|ar|e|ez|er|iere|ieren) (?:(?:todas|toutes|alle|las|les|die) )*(?:(?:instrucciones|instructions|anweisungen))|olvida (?:todas )?(?:las )?instrucciones|vergiss (?:alle )?(?:vorherigen )?anweisungen|(?:vorherigen|bisherigen) anweisungen|instructions précédentes|instrucciones anteriores|a partir de ahora,? (?:tú|debes|siempre|responde)|à partir de maintenant,? (?:tu|vous)|désormais,? (?:tu|vous)|ab (?:jetzt|sofort),? (?:musst|sollst|wirst|antworte)|игнориру|(?:забудь|игнорируй) (?:все )?(?:предыдущие )?инструкции|предыдущие инструкции|с этого момента ты)/u
  ],
  [
    "Override",
    /(?:忽略|无视|無視|忘记|忘掉|不要理会|跳过)[^。！？\n]{0,12}(?:指令|指示|提示|规则|說明|说明|设定|命令|限制)/u
  ],
  [
    "Override",
    /(?:从现在(?:开始|起)|從現在開始|从今(?:以后|往后|天起)|今后|以后)[，,]?\s*(?:你|请|一律|始终|总是|永远|必须|只)/u
  ],
  [
    "Override",
    /(?:以前|前|これまで|上記)の指示を無視|指示を無視|今後は(?:常に|必ず)|あなたは今から|이전 지시|지시를 무시|지금부터 (?:너는|당신은)/u
  ],
  opened(
    "Imperative",
    /\byou/u,
    /(?: really| absolutely| also| now)? (?:must|should|shall|need to|have to|are to|are required to|mustn't|must not|shouldn't|should not|will always|will never|will now|may not|are not allowed|are forbidden|are now|'re now)\b/u
  ),
  opened(
    "Imperative",
    /\byour /u,
    /(?:new |real |true |only |primary |main |first )?(?:task|role|goal|purpose|instructions?|rules|mission|directive|objective|persona|priority)\b/u
  ),
  opened(
    "Imperative",
    /\b(?:assistant|agent|ai|chatbot|llm|claude|chatgpt|copilot|gemini) /u,
    /(?:must|should|shall|has to|needs to|is to|is required to|will always|will never|may not|must not|should not)\b/u
  ),
  [
    "Imperative",
    /你(?:必须|应该|应当|需要|要始终|要一直|务必|一定要|不得|不准|只能|现在是|将扮演|的新|的任务|的角色|的指令)/u
  ],
  opened(
    "Command",
    /\b(?:call|invoke|use|run|trigger|execute) /u,
    /(?:the |your )?(?:remember|forget|recall|memory|bash|shell|terminal|browser|web|search|fetch|http|exec|code|python|file|email|send)(?:[ _-]\w+)? (?:tool|function|command)\b/u
  ),
  ["Command", /"(?:tool_calls?|function_call|tool_use)"|\b(?:remember|forget|recall)\(/u],
  [
    "RolePlay",
    /\b(?:pretend (?:to be|you are|you're)|role-?play(?:ing)? as|stay in character|in character as|developer mode|dan mode|do anything now|no restrictions|without (?:any )?restrictions|unfiltered mode|act as if you)\b/u
  ],
  ["RolePlay", /(?:^|[。！？\n]|你|请)(?:扮演|假装|角色扮演)|开发者模式|越狱模式/u],
  [
    "SystemMarkup",
    /<\/?(?:system|instructions?|sys|admin|developer|im_start|im_end|memory|user|assistant)\b|<\|[a-z_]+\|>|\[\/?inst\]|<<\/?sys>>|"role" ?: ?"(?:system|developer)"|```(?:system|instructions)|\bbegin system\b|\bend of (?:user )?(?:input|message|memory|conversation)\b/u
  ],
  [
    "SystemMarkup",
    /(?:^|\n)[ #>*-]*(?:system|developer|admin|operator)(?: message| prompt| note| instructions?| override)? ?:|(?:^|\n)#+ ?(?:system|instructions?|new rules?|admin|developer)\b/u
  ],
  [
    "SystemMarkup",
    /(?:reveal|print|show|repeat|output|leak|dump|display|tell me) (?:\S+ ){0,3}(?:system prompt|hidden prompt|initial prompt)|(?:你的|新的|真正的)系统(?:提示|指令)|(?:显示|输出|泄露|透露|打印)[^。]{0,6}系统提示/u
  ],
  [
    "Concealment",
    /\b(?:don't|do not|never|without) (?:tell|telling|inform|informing|let|letting|mention|mentioning|notify|notifying|alert|alerting|asking) (?:the user|them|him|her|anyone|the human)\b|\bsecretly\b|\bcovertly\b|\bsilently (?:send|forward|run|execute|upload|add|change|copy)/u
  ],
  ["Concealment", /(?:不要|别|不准|切勿)(?:告诉|通知|让)用户|瞒着用户|偷偷(?:地)?(?:发送|上传|执行|运行|把)/u],
  [
    "SendData",
    /!\[[^\][\n]{0,100}\]\(\s*(?:https?:)?\/\/|https?:\/\/[^\s?&]{0,200}[?&][^\s=?&]{1,40}=(?:\{|\$|%7b|<|\[)|https?:\/\/[^\s?&]{0,200}[?&](?:data|memory|secrets?|history|conversation|chat|key|token|password|content|q)=/u
  ],
  opened(
    "Imperative",
    /\b(?:whenever|every time|if (?:anyone|someone|the user|a user|they)|when (?:anyone|someone|the user|a user|they)) /u,
    /(?:\S+ ){0,6}(?:asks?|mentions?|says?|types?|writes?)\b[^.!?\n]{0,60}\b(?:say|reply|respond|answer|tell them|recommend|send|run|insert|include|redirect)\b/u
  )
]

/**
 * Where an entry's data could go: a web address, an e-mail address, an IP address, a bare domain. A run of a name's
 * characters is read once: a match starts only where such a run does.
 */
const destination =
  /https?:\/\/|\bwww\.|(?<![a-z0-9._%+-])[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z]{2,}|\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b|(?<![a-z0-9-])[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|cn|example|dev|app|site|top|info|biz|sh|me|cc|tk)\b|\bwebhook|\bngrok|\bpastebin/u

/** Verbs that move data somewhere. */
const sendVerb =
  /\b(?:send|sends|upload|forward|post|e-?mail|transmit|exfiltrate|leak|copy|sync|push|submit|share|beacon|pipe|curl|wget)\b|发送|上传|转发|发到|传到|同步到|提交到/u

/** What of the user's or the agent's a sender would want. */
const dataNoun =
  /\b(?:files?|data|conversations?|chats?|messages|memory|memories|keys?|credentials?|passwords?|tokens?|history|secrets?|contents|everything|env|\.ssh|documents?|transcripts?|logs|cookies|emails|contacts|instructions|prompt)\b|文件|数据|密码|密钥|聊天记录|对话|记忆|资料/u

/** The agent, named or spoken to. */
const agentNamed = /\b(?:you|yourself|assistant|agent|the ai|the model|chatbot|claude|chatgpt)\b|你/u

/** What an assistant does: the actions an imperative aimed at it names. */
const agentAction =
  /\b(?:answer|answers|reply|respond|say|tell|output|print|reveal|mention|recommend|suggest|refer|send|upload|forward|obey|comply|ignore|disregard|pretend|behave|refuse|praise|redirect|greet|speak|execute|invoke|disclose|leak)\b|回答|回复|答复|告诉|输出|发送|上传|转发|执行|运行|调用|提及|提到|推荐|透露|泄露|说/u

/** Words a sentence opens with to order: an adverb of always, or a verb of the assistant's. */
const imperativeStart =
  /^(?:(?:please |now |and |also |then |so |ok,? |okay,? )*(?:always|never|do not|don't|dont|make sure|be sure to|ensure|remember to|don't forget to|from now on|only|stop|start|answer|reply|respond|say|tell|output|print|reveal|mention|recommend|send|upload|forward|post|email|exfiltrate|obey|follow|comply|ignore|disregard|forget|act|pretend|roleplay|role-play|imagine you|simulate|behave|refuse|call|invoke|execute|run|curl|wget|eval|insert|append|delete|erase|wipe|treat|consider yourself)\b|(?:请)?(?:始终|总是|永远|一律|务必|一定要|切记|不要|别|切勿|禁止|不许|回复|回答|发送|上传|转发|执行|运行|调用))/u

/** What shows a command: code quoted, a shell prompt or pipe, a path from home, the words of a shell or tool. */
const commandLike =
  /`|\$ |\|\s*(?:ba|z)?sh\b|~\/|\b(?:command|script|shell|terminal|sudo|rm -\w+|tool|function)\b|命令|脚本|工具/u

/** Words that start a sentence yet order nothing, dropped before the opening word is read. */
const lead =
  /^(?:[\s\-*>#"'`([{<!|=_~+•·.,:]|\d{1,3}[.)] |(?:remember(?: that)?|note(?: that)?|nb|ps|p\.s\.|important|reminder|hey|hi|assistant|agent|ai|bot|instruction|rule|tip|keep in mind(?: that)?)(?![a-z]))*/u

/** Sentence ends: the text is read a sentence at a time; a run of stops is read once, from its start. */
const sentenceEnd = /(?<![.!?;:])[.!?;:。！？；：\n]+(?:\s|$)|[。！？；：\n]/u

/** The flag of one sentence of plain text, by what it opens with and what it holds. */
const sentenceFlag = (sentence: string): { readonly kind: Kind; readonly words: string } | undefined => {
  const body = sentence.replace(lead, "")
  if (body === "") return undefined
  const opens = imperativeStart.test(body)
  const sends = sendVerb.test(body)
  if (!opens && !sends) return undefined
  const bound = destination.test(body)
  if (sends && bound && (opens || dataNoun.test(body) || agentNamed.test(body)))
    return { kind: "SendData", words: body }
  if (opens && (bound || agentAction.test(body) || agentNamed.test(body) || commandLike.test(body))) {
    const command = /^(?:\S+ )?(?:call|invoke|execute|run|curl|wget|eval|执行|运行|调用)/u.test(body)
    return { kind: command ? "Command" : "Imperative", words: body }
  }
  return undefined
}

/** Phrases that flag in the squeezed text (letters only), whatever spacing, look-alikes or leetspeak hid them. */
const squeezedPhrases: ReadonlyArray<readonly [phrase: string, kind: Kind]> = [
  ["ignorepreviousinstructions", "Override"],
  ["ignoreallpreviousinstructions", "Override"],
  ["ignoreallinstructions", "Override"],
  ["ignoreprevious", "Override"],
  ["ignoreallprevious", "Override"],
  ["ignoretheabove", "Override"],
  ["ignoreyourinstructions", "Override"],
  ["disregardprevious", "Override"],
  ["disregardallprevious", "Override"],
  ["disregardyourinstructions", "Override"],
  ["forgetpreviousinstructions", "Override"],
  ["forgetallpreviousinstructions", "Override"],
  ["forgetyourinstructions", "Override"],
  ["newinstructions", "Override"],
  ["fromnowonyou", "Override"],
  ["fromnowonalways", "Override"],
  ["youarenow", "RolePlay"],
  ["youmust", "Imperative"],
  ["youshouldalways", "Imperative"],
  ["youshouldnever", "Imperative"],
  ["alwaysanswer", "Imperative"],
  ["alwaysreply", "Imperative"],
  ["alwaysrespond", "Imperative"],
  ["alwayssend", "SendData"],
  ["alwaysrecommend", "Imperative"],
  ["alwaysinclude", "Imperative"],
  ["neveranswer", "Imperative"],
  ["nevertell", "Concealment"],
  ["nevermention", "Concealment"],
  ["donottelltheuser", "Concealment"],
  ["donttelltheuser", "Concealment"],
  ["developermode", "RolePlay"],
  ["doanythingnow", "RolePlay"],
  ["yoursystemprompt", "SystemMarkup"],
  ["忽略之前的指令", "Override"],
  ["忽略以上指令", "Override"],
  ["忽略所有指令", "Override"]
]

/** The flag of the squeezed form, if it holds a phrase. */
const squeezedFlag = (squeezed: string): { readonly kind: Kind; readonly words: string } | undefined => {
  for (const [phrase, kind] of squeezedPhrases) if (squeezed.includes(phrase)) return { kind, words: phrase }
  return undefined
}

/** How many characters of the words a flag quotes. */
const wordsMax = 60

const flagOf = (found: { readonly kind: Kind; readonly words: string }, hidden: boolean): Flag => ({
  _tag: "Instruction",
  kind: found.kind,
  words: Array.from(found.words.trim()).slice(0, wordsMax).join(""),
  hidden
})

/** The flag of a plain text's own words, read by its patterns and a sentence at a time. */
const plainFlag = (text: string): { readonly kind: Kind; readonly words: string } | undefined => {
  for (const [kind, pattern, opening] of anywhere) {
    if (opening !== undefined && !opening.test(text)) continue
    const match = pattern.exec(text)
    if (match !== null) return { kind, words: match[0] }
  }
  for (const sentence of text.split(sentenceEnd)) {
    const found = sentenceFlag(sentence)
    if (found !== undefined) return found
  }
  return undefined
}

/** Words so common in English that a text of English words holds some of them. */
const common: ReadonlySet<string> = new Set(
  "the a an and or of to in on is are was be it that this for with you your user i my".split(" ")
)

/**
 * Whether Latin words of the plain text could be scrambled (ROT13, reversed): it holds at least four of them and
 * fewer than one in five is a common English word.
 */
const scrambled = (plain: string): boolean => {
  let words = 0
  let known = 0
  for (const [word] of plain.matchAll(/[a-z]+/gu)) {
    words++
    if (common.has(word)) known++
  }
  return words >= 4 && known * 5 < words
}

/** The forms a text's words may hide in: look-alike letters, letters spaced apart, reversed, ROT13, encoded. */
const hiddenForms = (text: string, plain: string): ReadonlyArray<string> => {
  const unmasked = Form.unmasked(plain)
  const unspaced = Form.unspaced(text)
  const decoded = Form.decoded(text)
  return [
    ...(unmasked === plain ? [] : [unmasked]),
    ...(unspaced === undefined ? [] : [unspaced]),
    ...(scrambled(plain) ? [Form.reversed(plain), Form.rot13(plain)] : []),
    ...(decoded === "" ? [] : [Form.plain(decoded)])
  ]
}

/**
 * The flag of a text that reads as an instruction to the agent, or `undefined` for a fact. Its own words are read
 * first; then what look-alike letters, spacing, reversal, ROT13 or an encoding hide; then its letters run together.
 */
export const check = (text: string): Flag | undefined => {
  const plain = Form.plain(text)
  const own = plainFlag(plain)
  if (own !== undefined) return flagOf(own, false)
  for (const form of hiddenForms(text, plain)) {
    const found = plainFlag(form) ?? squeezedFlag(Form.squeeze(form))
    if (found !== undefined) return flagOf(found, true)
  }
  const squeezed = Form.squeeze(plain)
  const found = squeezedFlag(squeezed) ?? squeezedFlag(Form.rot13(squeezed)) ?? squeezedFlag(Form.reversed(squeezed))
  return found === undefined ? undefined : flagOf(found, true)
}

/** What each kind of instruction is, for a sentence. */
const kindWords: Readonly<Record<Kind, string>> = {
  Override: "tells the agent to drop or replace its instructions",
  Imperative: "gives the agent an order",
  Command: "tells the agent to run a command or call a tool",
  SendData: "sends data to an address",
  RolePlay: "asks the agent to play a role",
  SystemMarkup: "poses as system or prompt markup",
  Concealment: "asks the agent to hide something from the user"
}

/** A short sentence saying why the text reads as an instruction, quoting the words that show it. */
export const describe = (flag: Flag): string =>
  `it reads as an instruction to the agent, not a fact about the user: it ${kindWords[flag.kind]} ` +
  `(${flag.hidden ? "hidden: " : ""}${JSON.stringify(flag.words)})`
