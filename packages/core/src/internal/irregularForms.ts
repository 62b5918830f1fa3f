/**
 * The irregular forms of English a stemmer cannot fold: the past tenses and participles of the common irregular verbs
 * (`went` and `gone` are `go`, `ran` is `run`) and the irregular plurals (`children` is `child`). A question asks in
 * the base form ("When did she run a race?") what memory keeps in the past ("She ran a charity race"): without these
 * the two share no word.
 */

/** Each row: the base form, then its irregular forms. */
const rows = `
  arise arose arisen|awake awoke awoken|bear bore borne|beat beaten|become became|begin began begun|bend bent|
  bite bitten|bleed bled|blow blew blown|break broke broken|breed bred|bring brought|build built|
  buy bought|catch caught|choose chose chosen|cling clung|come came|creep crept|deal dealt|dig dug|draw drew drawn|
  dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|
  find found|flee fled|fly flew flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|
  freeze froze frozen|get got gotten|give gave given|go went gone|grow grew grown|hang hung|hear heard|hide hid hidden|
  hold held|keep kept|kneel knelt|know knew known|lay laid|lead led|leap leapt|learn learnt|leave left|lend lent|
  lie lain|lose lost|make made|mean meant|meet met|pay paid|ride rode ridden|ring rang rung|rise risen|run ran|
  say said|see saw seen|seek sought|sell sold|send sent|shake shook shaken|shine shone|shoot shot|show shown|
  shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat|sleep slept|slide slid|speak spoke spoken|spend spent|
  spin spun|stand stood|steal stole stolen|stick stuck|sting stung|strike struck|swear swore sworn|sweep swept|
  swim swam swum|swing swung|take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown|
  understand understood|wake woke woken|wear wore worn|weep wept|win won|write wrote written|
  child children|man men|woman women|person people|foot feet|tooth teeth|mouse mice|goose geese
`

/** Each irregular form, in lower case, with its base form. */
export const irregularForms: ReadonlyMap<string, string> = new Map(
  rows.split("|").flatMap((row) => {
    const [base, ...forms] = row.trim().split(/\s+/)
    return forms.map((form) => [form, base!] as const)
  })
)
