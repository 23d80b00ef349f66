import type { ProductionLevel, ScriptAnalysis, ScriptBrief, ScriptRow, WrittenScript } from "../Pipeline.js"

/**
 * The offline script writer's rules (no model, no network; see docs/SPEC-NOTES.md): the
 * original transcript is cut into lines, each line is given the beat it plays by its words
 * (hook, problem, solution, proof, offer, call to action), and the new script keeps the
 * original's beats in order with lines written for the brief's product, audience and tone.
 * Deterministic: the same brief always gives the same script.
 */

export type Beat = "hook" | "problem" | "solution" | "proof" | "offer" | "cta"

/** Spoken ads run about 2.5 words a second: the row timings assume it. */
const wordsPerSecond = 2.5

const cues: ReadonlyArray<readonly [Beat, RegExp]> = [
  ["cta", /\b(tap|click|order|buy|shop now|sign up|link|download|visit|swipe|get yours|grab yours|call now|subscribe)\b/i],
  ["offer", /(\b\d+\s*(%|percent)|\bpercent\b|\b(off|discount|sale|deal|free shipping|free|coupon|code|save|bundle|limited)\b)/i],
  ["proof", /\b(thousands|millions|customers|reviews?|rated|stars?|love[sd]?|proven|clinically|results|tested|recommended|best[- ]selling|people)\b/i],
  ["problem", /\b(tired|sick of|struggl\w*|problem|hate|annoy\w*|pain\w*|dry|frustrat\w*|never|can't|cannot|worr\w*|stress\w*|waste)\b/i],
  ["solution", /\b(try|introducing|meet|new|our|works?|helps?|made|designed|formula|finally)\b/i]
]

const problemCue = cues.find(([beat]) => beat === "problem")![1]

const questionStart = /^(are|do|does|did|is|have|has|ever|what|why|how|who|when|which|can|could|would|tired|want|need|looking)\b/i

/** Lines: sentences when the text is punctuated, else runs of about ten words (speech engines print none). */
export const linesOf = (transcript: string): Array<string> => {
  const text = transcript.replace(/\s+/g, " ").trim()
  if (text === "") return []
  const sentences = text.split(/(?<=[.!?])\s+/).map((line) => line.trim()).filter((line) => line !== "")
  if (sentences.length > 1 || /[.!?]$/.test(text)) return sentences
  const words = text.split(" ")
  const lines: Array<string> = []
  for (let at = 0; at < words.length; at += 10) lines.push(words.slice(at, at + 10).join(" "))
  return lines
}

/** The first line is the hook; the others play the first beat whose cue they carry, else the one before. */
export const beatsOf = (lines: ReadonlyArray<string>): Array<{ readonly beat: Beat; readonly line: string }> => {
  let previous: Beat = "hook"
  return lines.map((line, index) => {
    if (index === 0) return { beat: "hook" as const, line }
    const cued = cues.find(([, cue]) => cue.test(line))?.[0]
    previous = cued ?? (previous === "hook" ? "solution" : previous)
    return { beat: previous, line }
  })
}

const hookTypeOf = (hook: string) =>
  hook.endsWith("?") || questionStart.test(hook)
    ? "question"
    : /\b(stop|don't|never|warning|secret|nobody)\b/i.test(hook)
    ? "pattern interrupt"
    : problemCue.test(hook)
    ? "problem callout"
    : /\b(best|only|#1|number one|fastest|easiest)\b/i.test(hook)
    ? "bold claim"
    : "statement"

const purposes: Record<Beat, string> = {
  hook: "Stop the scroll in the first seconds",
  problem: "Name the pain the viewer already feels",
  solution: "Present the product as the answer",
  proof: "Make the claim believable with others' results",
  offer: "Give a reason to act now",
  cta: "Tell the viewer exactly what to do next"
}

const beatNames: Record<Beat, string> = {
  hook: "Hook",
  problem: "Problem",
  solution: "Solution",
  proof: "Proof",
  offer: "Offer",
  cta: "Call to action"
}

/** A problem heard anywhere (the hook included: "Tired of ...?") makes it Problem-Agitate-Solution. */
const frameworkOf = (beats: ReadonlySet<Beat>, problemHeard: boolean) =>
  problemHeard
    ? "Problem-Agitate-Solution"
    : beats.has("proof") && beats.has("offer")
    ? "Hook-Proof-Offer"
    : "AIDA"

const sentenceCase = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
const firstClause = (text: string) => text.split(/[.!?;\n]/)[0]!.trim().replace(/\s+/g, " ")

interface Voice {
  readonly product: string
  readonly brand: string
  readonly audience: string | undefined
  readonly benefit: string
  readonly extra: string | undefined
}

const voiceOf = (brief: ScriptBrief): Voice => {
  const given = (text: string | undefined) => (text !== undefined && text.trim() !== "" ? text.trim() : undefined)
  const product = given(brief.product_name) ?? given(brief.brand_name) ?? "our product"
  const description = given(brief.product_description)
  return {
    product,
    brand: given(brief.brand_name) ?? product,
    audience: given(brief.target_audience),
    benefit: description !== undefined ? firstClause(description).replace(/\.$/, "") : `${product} does the hard part for you`,
    extra: given(brief.additional_info)
  }
}

const voiceover = (beat: Beat, hookType: string, v: Voice): string => {
  switch (beat) {
    case "hook":
      return hookType === "question"
        ? `${v.audience !== undefined ? `${sentenceCase(v.audience)}, what` : "What"} if it could be this easy?`
        : `${v.audience !== undefined ? `${sentenceCase(v.audience)}: ` : ""}this is the one thing you need to see today.`
    case "problem":
      return "You have tried everything, and nothing sticks."
    case "solution":
      return `Meet ${v.product}. ${sentenceCase(v.benefit)}.`
    case "proof":
      return `People who switched to ${v.brand} are not going back.`
    case "offer":
      return v.extra !== undefined ? `${sentenceCase(firstClause(v.extra))}.` : `Try ${v.product} today.`
    case "cta":
      return `Tap the link and get ${v.product} now.`
  }
}

const onScreen: Record<Beat, (v: Voice) => string> = {
  hook: () => "Wait for it",
  problem: () => "Sound familiar?",
  solution: (v) => v.product,
  proof: () => "Loved by customers",
  offer: (v) => (v.extra !== undefined ? firstClause(v.extra) : "Available now"),
  cta: () => "Tap the link"
}

/** What the camera does per beat: the production level sets the means. */
const visuals: Record<ProductionLevel, Record<Beat, string>> = {
  Low: {
    hook: "Selfie-style phone shot, face to camera",
    problem: "Handheld shot of the everyday problem",
    solution: "Product held up to the phone camera",
    proof: "Screen recording of reviews or comments",
    offer: "Product on a table with a text overlay",
    cta: "Face to camera, pointing down to the link"
  },
  Medium: {
    hook: "Tripod shot in natural light, quick zoom on the speaker",
    problem: "Two short cuts showing the problem",
    solution: "Close-up of the product in use",
    proof: "Customer clips or review cards, fast cuts",
    offer: "Product flat lay with animated price text",
    cta: "Speaker with product, end card with the link"
  },
  High: {
    hook: "Studio-lit cinematic opener, motion graphics title",
    problem: "Staged scene of the problem, shallow depth of field",
    solution: "Macro shots of the product with a reveal transition",
    proof: "Testimonials from several customers, edited montage",
    offer: "Branded motion-graphics offer card",
    cta: "Hero product shot with an animated call-to-action card"
  }
}

/** Row timings: each beat gets the original line's share of the spoken time, at least two seconds. */
const timings = (wordCounts: ReadonlyArray<number>) => {
  let at = 0
  return wordCounts.map((words) => {
    const length = Math.max(2, Math.round(words / wordsPerSecond))
    const seconds = `${at}-${at + length}`
    at += length
    return seconds
  })
}

const wordCount = (line: string) => line.split(/\s+/).filter((w) => w !== "").length

export const analyse = (transcript: string): ScriptAnalysis & { readonly beats: ReadonlyArray<{ readonly beat: Beat; readonly line: string }> } => {
  const beats = beatsOf(linesOf(transcript))
  const present = new Set(beats.map((b) => b.beat))
  const order = beats.map((b) => b.beat).filter((beat, index, all) => index === 0 || all[index - 1] !== beat)
  const hook = beats[0]?.line ?? ""
  const words = beats.reduce((sum, b) => sum + wordCount(b.line), 0)
  const perLine = beats.length === 0 ? 0 : words / beats.length
  const strategies: Array<{ name: string; description: string }> = []
  const strategy = (when: boolean, name: string, description: string) => when && strategies.push({ name, description })
  strategy(hookTypeOf(hook) === "question", "Question hook", "Opens on a question the viewer answers in their head")
  strategy(present.has("problem") || problemCue.test(hook), "Pain point", "Names a problem before showing the product")
  strategy(present.has("proof"), "Social proof", "Leans on other customers' numbers or love")
  strategy(present.has("offer"), "Offer", "A discount or deal gives a reason to buy now")
  strategy(/\b(today|now|limited|hurry|last chance|ends)\b/i.test(transcript), "Urgency", "Time words push the viewer to act immediately")
  strategy(/\b(you|your)\b/i.test(transcript), "Direct address", "Speaks to the viewer as \"you\"")
  const framework = frameworkOf(present, present.has("problem") || problemCue.test(hook))
  return {
    beats,
    framework: {
      name: framework,
      stages: (["hook", "problem", "solution", "proof", "offer", "cta"] as const).map((beat) => ({
        name: beatNames[beat],
        purpose: purposes[beat],
        evidence: beats.filter((b) => b.beat === beat).map((b) => b.line).join(" ")
      }))
    },
    ad_pattern: {
      hook_type: beats.length === 0 ? "" : hookTypeOf(hook),
      structure: order.join(" > "),
      pacing: beats.length === 0 ? "" : perLine <= 8 ? "fast" : perLine <= 14 ? "medium" : "slow",
      call_to_action: beats.filter((b) => b.beat === "cta").map((b) => b.line).join(" ")
    },
    creative_strategies: strategies
  }
}

export const write = (brief: ScriptBrief): WrittenScript => {
  const { beats, ...analysis } = analyse(brief.transcript)
  const voice = voiceOf(brief)
  // One row per run of the same beat, and always a call to action to end on.
  const runs: Array<{ beat: Beat; words: number }> = []
  for (const { beat, line } of beats) {
    const last = runs[runs.length - 1]
    if (last !== undefined && last.beat === beat) last.words += wordCount(line)
    else runs.push({ beat, words: wordCount(line) })
  }
  if (runs.length === 0) runs.push({ beat: "hook", words: 6 })
  if (!runs.some((run) => run.beat === "solution")) runs.splice(1, 0, { beat: "solution", words: 8 })
  if (runs[runs.length - 1]!.beat !== "cta") runs.push({ beat: "cta", words: 6 })
  const seconds = timings(runs.map((run) => run.words))
  const tone = brief.tone_of_voice?.trim()
  const rows: Array<ScriptRow> = runs.map((run, index) => ({
    beat: beatNames[run.beat],
    seconds: seconds[index]!,
    visual: visuals[brief.production_level][run.beat] + (tone ? ` (tone: ${tone})` : ""),
    voiceover: voiceover(run.beat, analysis.ad_pattern.hook_type, voice),
    on_screen_text: onScreen[run.beat](voice)
  }))
  return { script: { framework_used: analysis.framework.name, rows }, script_analysis: analysis }
}
