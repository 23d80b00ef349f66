import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { TranscriptsContract } from "./Api.js"
import { Caller, type CallerInfo } from "../access/gateway/Api.js"
import { serveGroup } from "../access/gateway/Http.js"
import { SignedIn } from "../access/session/SignedIn.js"
import type { Refused, ScriptRefusal, Subject } from "./Api.js"
import { type Presence, type ScriptRequest, Transcripts } from "./Transcripts.js"

/** spec: Errors rule 5: a refusal is an answer, status 200. */
const answered = <A, R>(effect: Effect.Effect<A, ScriptRefusal, R>): Effect.Effect<A | Refused, never, R> =>
  Effect.catchTag(effect, "ScriptRefusal", ({ message }) => Effect.succeed({ success: false as const, message }))

type PresenceOf = (caller: CallerInfo) => Effect.Effect<Presence, never, HttpServerRequest.HttpServerRequest>

/** Only the video routes are session-only (S6); the ad routes are for keys. */
const sessionOnly = (signedIn: SignedIn): PresenceOf => (caller) =>
  Effect.map(signedIn.caller(caller), (yes): Presence => (yes ? "signed-in" : "not-signed-in"))
const anyCaller: PresenceOf = () => Effect.succeed("signed-in")

/** The three routes of one subject, its id read from the field its routes name. */
const routesOf = (transcripts: Transcripts, subject: Subject, presenceOf: PresenceOf) => {
  const withCaller = <A, E>(f: (caller: CallerInfo, presence: Presence) => Effect.Effect<A, E>) =>
    Effect.flatMap(Caller, (caller) => Effect.flatMap(presenceOf(caller), (presence) => f(caller, presence)))
  return {
    transcript: (id: string) => transcripts.read(subject, id),
    generate: (id: string, body: { readonly video_url?: string | undefined; readonly video_cdn_url?: string | undefined }) =>
      answered(withCaller((caller, presence) => transcripts.generate(caller, presence, subject, { ...body, id }))),
    similarScript: (id: string, body: Omit<ScriptRequest, "id">) =>
      answered(withCaller((caller, presence) => transcripts.similarScript(caller, presence, subject, { ...body, id })))
  }
}

/** `/api/v1/clipapp-shop/video/*` and their legacy session paths (S4). */
export const VideoTranscriptsLive = serveGroup(TranscriptsContract, "videoTranscripts", (handlers) =>
  Effect.gen(function*() {
    const routes = routesOf(yield* Transcripts, "video", sessionOnly(yield* SignedIn))
    return handlers
      .handle("transcript", ({ urlParams }) => routes.transcript(urlParams.video_id))
      .handle("generate", ({ payload: { video_id, ...body } }) => routes.generate(video_id, body))
      .handle("similarScript", ({ payload: { video_id, ...body } }) => routes.similarScript(video_id, body))
  }))

/** `/api/v1/ad-transcript`, `/api/v1/ad-transcript-generate`, `/api/v1/ad-similar-script-generate`. */
export const AdTranscriptsLive = serveGroup(TranscriptsContract, "adTranscripts", (handlers) =>
  Effect.gen(function*() {
    const routes = routesOf(yield* Transcripts, "ad", anyCaller)
    return handlers
      .handle("transcript", ({ urlParams }) => routes.transcript(urlParams.ad_id))
      .handle("generate", ({ payload: { ad_id, ...body } }) => routes.generate(ad_id, body))
      .handle("similarScript", ({ payload: { ad_id, ...body } }) => routes.similarScript(ad_id, body))
  }))
