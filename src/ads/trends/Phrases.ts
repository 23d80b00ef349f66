/**
 * What trends count (issue 20, INTERPRETATIONS L2): the phrases of an ad's copy (one to three
 * words, stop words of the ad's languages out) and its hook (its opening line). Pure functions:
 * the import counts with them, the topic a request names is read with them, and tests count
 * the generated ads with them by brute force.
 */

/** The two kinds of term counted per day; their number is what `trend_daily.kind` stores. */
export const termKinds = { phrase: 0, hook: 1 } as const
export type TermKind = keyof typeof termKinds

/** A phrase has at most this many words. */
export const maxPhraseWords = 3
/** An ad counts at most this many distinct phrases (the first in its copy): one long body cannot weigh more than a feed of ads. */
export const maxPhrasesPerAd = 200
/** A hook is cut to this many characters. */
export const maxHookLength = 200

/**
 * The version of what an ad counts (`termsOf`: its phrases and its hook). Counts are stored with
 * the version that made them (`trend_state.counting_rule`), and counts of an older one are made
 * again at start (TrendCounts), so raise it with any change to what `termsOf` gives an ad: a
 * stop list, the edge rule, the word or clause patterns, a limit. 0: before issue 46; 1: an ad
 * tagged `en` reads with English's stop words too.
 */
export const countingRule = 1

/**
 * Stop words per language: a phrase neither starts nor ends with one (`bundle and save` stays,
 * `the serum` is `serum`). Which lists read an ad is `stopWordsOfAd`'s to say.
 */
const stopLists: Record<string, string> = {
  en: "a about above after again against all also am an and any are aren't as at be because been before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each even ever every few for from further get gets got had hadn't has hasn't have haven't having he her here hers herself him himself his how i i'm i've if in into is isn't it it's its itself just let's me more most much must my myself no nor not now of off on once one only or other our ours ourselves out over own really same she should shouldn't so some such than that that's the their theirs them themselves then there there's these they they're this those through to too under until up us very was wasn't we we're were weren't what what's when where which while who whom why will with won't would wouldn't you you'll you're you've your yours yourself yourselves",
  es: "a al algo algunos ante antes como con contra cual cuando de del desde donde durante e el ella ellas ellos en entre era es esa ese eso esta este esto estos fue ha hay la las le les lo los mas me mi mis muy nada ni no nos o os otra otro para pero poco por porque que se sea ser si sin sobre su sus también te tiene todo tu tus un una uno unos y ya yo",
  fr: "à au aux avec ce ces cette comme dans de des du elle en est et eux il ils je la le les leur lui ma mais me même mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous y c'est",
  de: "aber alle als am an auch auf aus bei bin bis bist da damit dann das dass dein deine dem den der des die dir doch du durch ein eine einem einen einer eines er es für hat hatte ich ihr im in ist ja jetzt kann kein keine mit mein meine mich mir nach nicht noch nur oder ohne sein sich sie sind so um und uns unser von vor war was wie wir zu zum zur über",
  it: "a ad al alla alle anche che chi ci come con da dal dalla dei del della delle di e è gli ha ho i il in io la le lei lo loro lui ma mi mio ne nel nella no noi non o per più quella quello questa questo se si sono su sua suo ti tu tua tuo un una uno vi voi",
  pt: "a ao aos as até com como da das de dela dele do dos e é ela ele eles em entre era essa esse esta este eu foi há isso já la lhe mais mas me meu minha muito na nas não nem no nos nós o os ou para pela pelo por que se sem ser seu sua são também te tem um uma você",
  nl: "aan al als bij dan dat de der deze die dit doch door een en er had heb heeft het hij hoe haar ik in is je jij kan maar me met mij na naar niet nog nu of om ons onze ook op over te tot u uit van veel voor wat we wel werd wie wij zal ze zei zich zij zo zou"
}
const stopWords = new Map(Object.entries(stopLists).map(([language, words]) => [language, new Set(words.split(" "))]))
const english = stopWords.get("en")!
export const stopWordsOf = (language: string): ReadonlySet<string> => stopWords.get(language) ?? english

/** Each language's list with English's. */
const withEnglish = new Map([...stopWords].map(([language, words]) => [language, new Set([...words, ...english])]))

/**
 * The stop words an ad's copy is read with, from its language tags (spec: Trends, "A phrase"):
 * its first language's list, and English's as well when any tag is `en` (issue 46: copy tagged
 * `de, en` is English copy more often than not, and read with the German list alone it made
 * `save 15% with` and `skin without the` topics). A first language without a list here, or no
 * tag, reads with English's (issue 29). Every phrase of an ad is read through this.
 */
export const stopWordsOfAd = (languages: ReadonlyArray<string>): ReadonlySet<string> =>
  (languages.includes("en") ? withEnglish.get(languages[0]!) : undefined) ?? stopWordsOf(languages[0] ?? "")

/** Where a phrase cannot run on: the end of a sentence (a stop before a space or the end), and punctuation that parts clauses. */
const clauseBreak = /[.!?]+(?=\s|$)|[;:,()[\]{}"“”|…–—\n\r\t]|\s-\s/u
/** A word: letters and digits, joined by an inner hyphen, apostrophe, point or slash (sulfate-free, don't, 4.9/5), and a per cent sign. */
const wordPattern = /[\p{L}\p{N}]+(?:[-'’./][\p{L}\p{N}]+)*%?/gu
const lettered = /\p{L}/u

/** The words of a text, lowercased, as phrases are made of them. */
export const wordsOf = (clause: string): ReadonlyArray<string> => {
  const lower = clause.toLowerCase()
  return (lower.includes("’") ? lower.replace(/’/g, "'") : lower).match(wordPattern) ?? []
}

/** Whether a lowercased word holds a letter: an ASCII one is looked for first (most words start with one), the pattern after. */
const hasLetter = (word: string) => {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i)
    if (c >= 0x61 && c <= 0x7a) return true
  }
  return lettered.test(word)
}

/**
 * Whether a word may start or end a phrase (issue 29): not a stop word, and a word of letters,
 * so that no topic starts or ends with a bare number or a percentage (`save 15%`, `4.9/5 by`).
 * Inside a phrase any word stays (`save 15% today`).
 */
const edgeWord = (word: string, stop: ReadonlySet<string>) => !stop.has(word) && hasLetter(word) && !word.endsWith("%")

/**
 * The distinct phrases of some texts of an ad tagged with `languages`, in order of first use, at
 * most `limit`: every run of one to three words within a clause whose first and last words are
 * edge words of the ad's stop words (`stopWordsOfAd`).
 */
export const phrasesOf = (texts: ReadonlyArray<string | null | undefined>, languages: ReadonlyArray<string>, limit = maxPhrasesPerAd): ReadonlyArray<string> => {
  const stop = stopWordsOfAd(languages)
  const found = new Set<string>()
  for (const text of texts) {
    if (!text) continue
    for (const clause of text.split(clauseBreak)) {
      const words = wordsOf(clause)
      const edges = words.map((word) => edgeWord(word, stop))
      for (let start = 0; start < words.length; start++) {
        if (!edges[start]) continue
        let phrase = words[start]!
        for (let n = 1; n <= maxPhraseWords && start + n <= words.length; n++) {
          if (n > 1) phrase = `${phrase} ${words[start + n - 1]}`
          if (!edges[start + n - 1]) continue
          found.add(phrase)
          if (found.size >= limit) return [...found]
        }
      }
    }
  }
  return [...found]
}

/** Where a body's first sentence ends: a space after a stop. */
const sentenceEnd = /(?<=[.!?])\s+/u
/** A body's first sentence (its first part split at `sentenceEnd`), without splitting the rest. */
const firstSentence = (body: string) => {
  const end = body.search(sentenceEnd)
  return end === -1 ? body : body.slice(0, end)
}

/** An ad's opening line: its AI hook when it has one, else its body's first sentence; lowercased, spaces collapsed. */
export const hookOf = (hook: string | null | undefined, body: string | null | undefined): string | undefined => {
  const source = hook ?? (body === null || body === undefined ? undefined : firstSentence(body))
  const line = source?.replace(/\s+/gu, " ").trim().toLowerCase().slice(0, maxHookLength)
  return line ? line : undefined
}

/** What of an ad its trend counts depend on. */
export interface AdCopy {
  readonly library: string
  /** ISO instant; the ad counts on its UTC day. */
  readonly first_seen: string
  readonly niche: string | null
  readonly countries: ReadonlyArray<string>
  readonly languages: ReadonlyArray<string>
  readonly headline: string | null
  readonly body: string | null
  readonly description: string | null
  readonly hook: string | null
}

/** What trends count of an ad record: an import's line, or a generated one. */
export const copyOfAd = (ad: {
  readonly library: string
  readonly first_seen: string
  readonly niche?: string | null | undefined
  readonly countries?: ReadonlyArray<string> | undefined
  readonly languages?: ReadonlyArray<string> | undefined
  readonly headline?: string | null | undefined
  readonly body?: string | null | undefined
  readonly description?: string | null | undefined
  readonly ai_tags?: { readonly hook?: string | null | undefined } | null | undefined
}): AdCopy => ({
  library: ad.library,
  first_seen: ad.first_seen,
  niche: ad.niche ?? null,
  countries: ad.countries ?? [],
  languages: ad.languages ?? [],
  headline: ad.headline ?? null,
  body: ad.body ?? null,
  description: ad.description ?? null,
  hook: ad.ai_tags?.hook ?? null
})

/** Where an ad counts: its first-seen day, library, niche and the countries it targets, and its terms of each kind. */
export interface AdTerms {
  readonly day: string
  readonly library: string
  readonly niche: string
  readonly countries: ReadonlyArray<string>
  readonly phrases: ReadonlyArray<string>
  readonly hook: string | undefined
}

export const termsOf = (ad: AdCopy): AdTerms => ({
  day: new Date(ad.first_seen).toISOString().slice(0, 10),
  library: ad.library,
  niche: ad.niche ?? "",
  countries: [...new Set(ad.countries)],
  phrases: phrasesOf([ad.headline, ad.body, ad.description], ad.languages),
  hook: hookOf(ad.hook, ad.body)
})
