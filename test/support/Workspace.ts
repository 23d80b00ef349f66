import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ad, advertisers } from "../fixtures/world.js"
import { fixtureReferences, ingestAll, smallWorldServer } from "./AdWorld.js"
import { call, type TestServerOptions } from "./TestServer.js"

/**
 * What the workspace tests share (issue 19; W3, W4): a few hand-written brands and ads, loaded
 * as the server's layer is built, and calls that answer status, exact body and parsed JSON.
 */

const provenance = { fetched_at: "2026-11-01T00:00:00Z", source: "test", method: "manual" }

/** Social brands (page-1 comes from the fixtures); a search advertiser is not a brand. */
export const brands = {
  glow: { id: "page-1", name: "GlowLab Skincare", domain: "glowlab.example.com" },
  fit: { id: "page-2", name: "FitFuel", domain: "fitfuel.example.com" },
  calm: { id: "page-3", name: "CalmCo", domain: null }
} as const
export const searchAdvertiser = advertisers.find((a) => a.platform === "search")!.external_id

const extraAdvertisers = [
  { platform: "social", external_id: "page-2", name: "FitFuel", domain: "fitfuel.example.com", verified: false, followers: 900, country: "GB", ...provenance },
  { platform: "social", external_id: "page-3", name: "CalmCo", ...provenance }
]

/**
 * Ads with distinct first-seen days and running times (for the sorts): `a1` is oldest and ran
 * longest; `dup` exists in the social and the search library.
 */
export const ads = {
  a1: ad("ws-a1", { first_seen: "2026-08-01T08:00:00Z", start_date: "2026-08-01", days_running: 90, headline: "First light" }),
  a2: ad("ws-a2", { first_seen: "2026-10-20T08:00:00Z", start_date: "2026-10-20", days_running: 5, headline: "Second wind", advertiser_external_id: "page-2" }),
  a3: ad("ws-a3", { first_seen: "2026-09-15T08:00:00Z", start_date: "2026-09-15", days_running: 40, headline: "Third time", status: "inactive" }),
  a4: ad("ws-a4", { first_seen: "2026-10-25T08:00:00Z", start_date: "2026-10-25", days_running: 2, headline: "Fourth wall", advertiser_external_id: "page-3" }),
  dup: ad("ws-dup", { headline: "Social twin" }),
  /** Dropped from the library by the snapshot test, and used by no other. */
  gone: ad("ws-gone", {
    headline: "Here today",
    body: "Gone tomorrow, kept on the board.",
    media: [{ type: "image", url: "https://cdn.example.com/gone.jpg", width: 1080, height: 1080 }],
    format: "image"
  })
}
const searchTwin = {
  library: "search",
  external_id: "ws-dup",
  advertiser_external_id: searchAdvertiser,
  status: "active",
  first_seen: "2026-10-02T08:00:00Z",
  last_seen: "2026-11-01T08:00:00Z",
  format: "text",
  headline: "Search twin",
  description: "A search creative with the same id",
  ...provenance
}

export const loadWorkspaceWorld = Effect.gen(function*() {
  yield* fixtureReferences
  yield* ingestAll("advertisers", extraAdvertisers)
  yield* ingestAll("ads", [...Object.values(ads), searchTwin])
})

/** A server with the workspace world loaded as its layer is built; no gateway rate limit in the way. */
export const workspaceServer = (options: TestServerOptions = {}) =>
  Layer.effectDiscard(loadWorkspaceWorld).pipe(Layer.provideMerge(smallWorldServer(options)))

export interface Json {
  readonly status: number
  readonly body: string
  readonly headers: Headers
  readonly json: any
}

const parsed = (answer: { status: number; body: string; headers: Headers }): Json => {
  let json: unknown = undefined
  try {
    json = JSON.parse(answer.body)
  } catch {
    // HTML pages
  }
  return { ...answer, json }
}

/** The headers that authenticate a call: a key, or a browser session. */
export type Auth = Record<string, string>
export const keyAuth = (key: string): Auth => ({ "x-api-key": key })

export const post = (auth: Auth, path: string, body: unknown) =>
  Effect.map(
    call(path, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) }),
    parsed
  )
export const get = (auth: Auth, path: string, query: Record<string, string | number> = {}) => {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return Effect.map(call(search === "" ? path : `${path}?${search}`, { headers: auth }), parsed)
}

export const v1 = "/api/v1/brands"
export const saved = "/api/v1/saved-ads"

/** `[status, body]` of an answer, for exact comparisons. */
export const answerOf = (answer: Json) => [answer.status, answer.body] as const
export const failure = (status: number, error: string) => [status, JSON.stringify({ success: false, error })] as const
export const ok = [200, `{"success":true}`] as const

/** Creates a folder (expecting a 200) and answers its id. */
export const folderOf = (auth: Auth, name: string, prefix = v1) =>
  Effect.map(post(auth, `${prefix}/create-folder`, { name }), (answer) => {
    expect([name, answer.status]).toEqual([name, 200])
    return answer.json.folder.id as string
  })

/** Creates a board in a folder (expecting a 200) and answers its id. */
export const boardOf = (auth: Auth, folder: string, name: string) =>
  Effect.map(post(auth, `${v1}/create-board`, { folder_id: folder, name }), (answer) => {
    expect([name, answer.status, answer.body]).toEqual([name, 200, expect.any(String)])
    return answer.json.board.id as string
  })

/** Removes an ad from the library, as a re-import that no longer has it would. */
export const dropFromLibrary = (library: string, id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from ads where library = ${library} and external_id = ${id}`).pipe(Effect.orDie)

export const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const unknownId = "00000000-0000-4000-8000-000000000000"
