/**
 * The English words a search does not count: function words (articles, pronouns, prepositions, conjunctions,
 * auxiliary verbs), the question words, and the pieces contractions leave (`don't` reads as `don` and `t`). They say
 * how a question is asked, not what it is about: in memory they are in nearly every entry, and would let any entry
 * match any question. Words of one letter are no words to a search at all.
 */

const words = `
  about above across after again against all almost along already also although always am among an and another any
  anybody anyone anything anyway anywhere are around as at away be became because become been before behind being
  below beside besides between beyond both but by can cannot could did do does doing done down during each either
  else enough even ever every for from further had has have having he her here hers herself him himself his how
  however if in inside into is it its itself just least less let may maybe me might mine more most much must my
  myself neither never no nobody none nor not nothing now of off often on once one only onto or other others
  otherwise our ours ourselves out over own perhaps quite rather really same shall she should since so some
  somebody someone something sometimes somewhat somewhere still such than that the their theirs them themselves then
  there therefore these they this those though through throughout thus to together too toward towards under unless
  until up upon us very via was we well were what whatever when whenever where whereas wherever whether which
  whichever while who whoever whole whom whomever whose why will with within without would yet you your yours
  yourself yourselves
  aren couldn didn doesn don hadn hasn haven isn ll mustn needn re shan shouldn ve wasn weren wouldn
`

/** The words a search does not count, in lower case. */
export const stopWords: ReadonlySet<string> = new Set(words.split(/\s+/).filter((word) => word !== ""))
