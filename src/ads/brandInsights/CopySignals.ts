/**
 * What an ad's copy says where its record has no field for it (issue 19: "derive it
 * deterministically from the copy"; docs/SPEC-NOTES.md, "Brand insight tabs"). Each rule is a
 * case-insensitive regular expression over the ad's copy: its body, headline and description
 * joined by a newline. The patterns use only the syntax PostgreSQL's and JavaScript's regular
 * expressions read alike (no word-boundary escapes), so the SQL that applies them and any
 * program that checks them agree. Contract data only: no runtime beyond the tables.
 */

export interface Signal<Name extends string = string> {
  readonly name: Name
  readonly pattern: string
}

/** A whole word (or phrase) of the alternatives: letters on neither side. */
const word = (alternatives: string) => `(^|[^a-z])(${alternatives})([^a-z]|$)`

/** Offers found in the copy; an ad may make several. */
export const offerSignals = [
  { name: "discount", pattern: "[0-9]{1,3} ?% off|save [0-9]{1,3} ?%|[0-9]{1,3} ?% discount|half price" },
  { name: "free_shipping", pattern: "free (shipping|delivery)" },
  { name: "bogo", pattern: "buy [0-9one]+,? get [0-9one]+|bogo" },
  { name: "bundle", pattern: word("bundles?|[0-9]+-pack|multipack") },
  { name: "guarantee", pattern: "guarantee|money-back|money back|risk-free" },
  { name: "free_trial", pattern: "free trial|try it (free|risk-free)" },
  { name: "urgency", pattern: "today only|this week|limited time|ends (today|tonight|soon|sunday)|last chance|while (stocks|supplies) last|selling fast|sold out" },
  { name: "code", pattern: "(promo |discount )?code [a-z0-9]{3,20}" }
] as const satisfies ReadonlyArray<Signal>
export type Offer = (typeof offerSignals)[number]["name"]

/** A percentage the copy names (`20% off`, `save 15%`): the first group is the number. */
export const percentPattern = "([0-9]{1,3}) ?%"
/** A discount code the copy names (`code HELLO15`): the first group is the code. */
export const codePattern = "code ([a-z0-9]{3,20})"

/**
 * The angle of an ad without an `ai_tags.angle`: the first rule whose pattern the copy
 * matches. The names are those the libraries' tags use, so tagged and derived ads count together.
 */
export const angleSignals = [
  { name: "limited-time discount", pattern: "[0-9]{1,3} ?% off|today only|sale ends|limited time" },
  { name: "before and after results", pattern: "before and after|before & after|results in [0-9]+|in [0-9]+ days" },
  { name: "expert approved", pattern: word("dermatologists?|doctors?|experts?|clinically|vets?") },
  { name: "social proof: thousands of reviews", pattern: "reviews|customers|rated [0-9]" },
  { name: "founder story", pattern: word("founders?|our story") },
  { name: "comparison with the leading brand", pattern: word("vs|versus|compared to|leading brand") },
  { name: "unboxing", pattern: "unbox" },
  { name: "problem-agitate-solve", pattern: "tired of|sick of|struggl|stop scrolling|nobody talks about" }
] as const satisfies ReadonlyArray<Signal>

/** The audience of an ad without an `ai_tags.persona`: the first rule whose pattern the copy matches. */
export const personaSignals = [
  { name: "parents", pattern: word("moms?|mums?|dads?|parents?") },
  { name: "pet owners", pattern: word("dogs?|cats?|puppy|puppies|pets?") },
  { name: "women", pattern: word("women|woman|ladies|her") },
  { name: "men", pattern: word("men|man|guys|him") },
  { name: "athletes", pattern: word("runners?|lifters?|athletes?|gym") },
  { name: "professionals", pattern: word("professionals?|remote workers?|office") },
  { name: "students", pattern: word("students?") },
  { name: "travelers", pattern: word("travel(l?ers?)?") },
  { name: "beginners", pattern: word("beginners?") }
] as const satisfies ReadonlyArray<Signal>

/**
 * An ad's hook when its record has no `ai_tags.hook`: the copy's opening sentence (up to the
 * first `.`, `!` or `?` followed by a space or the end), else its first line, at most
 * `maxHookChars` characters.
 */
export const hookPattern = "^[^\\n]*?[.!?](?=\\s|$)"
export const maxHookChars = 300

/**
 * The product an ad advertises, from its landing URL: the handle after `/products/` (the hosted
 * stores' convention), else the URL's last path segment; a URL to a site's root names none.
 */
export const productHandlePattern = "/products/([^/?#]+)"
export const lastSegmentPattern = "^https?://[^/?#]+/(?:[^?#]*/)?([^/?#]+)/*(?:[?#].*)?$"

/** Emoji: the pictographs and dingbats blocks (modifiers and joiners are not counted on their own). */
export const emojiPattern = "[\\u2600-\\u27bf\\U0001f300-\\U0001faff]"
/** The same class as JavaScript writes it (with the `u` flag). */
export const emojiPatternJs = "[\\u{2600}-\\u{27bf}\\u{1f300}-\\u{1faff}]"

/** Video length buckets, in seconds: [min, max), max null for the open end. */
export const videoLengthBuckets = [
  { bucket: "0-15s", min: 0, max: 15 },
  { bucket: "15-30s", min: 15, max: 30 },
  { bucket: "30-60s", min: 30, max: 60 },
  { bucket: "60s+", min: 60, max: null }
] as const
