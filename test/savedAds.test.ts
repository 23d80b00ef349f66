import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { account, balanceOf } from "./support/TestServer.js"
import {
  ads,
  answerOf,
  boardOf,
  dropFromLibrary,
  failure,
  folderOf,
  get,
  keyAuth,
  ok,
  post,
  saved,
  unknownId,
  v1,
  workspaceServer
} from "./support/Workspace.js"

/**
 * Saved ads through HTTP (issue 19; INTERPRETATIONS W4): save and unsave exactly as W4 pins
 * them, the list of ad records with `saved_at` and `board_ids`, the snapshot that outlives the
 * library's record, notes and tags, isolation and metering.
 */

const user = Effect.map(account(), (created) => ({ ...created, auth: keyAuth(created.api_key) }))
const list = (auth: Record<string, string>, query: Record<string, string | number> = {}) => get(auth, saved, query)
const ids = (answer: { json: any }) => answer.json.data.map((ad: any) => ad.id)

describe("saved ads (W4)", () => {
  layer(workspaceServer())((it) => {
    it.effect("save without a board: the default \"Saved ads\" board; idempotent; the list shows the ad with saved_at and board_ids", () =>
      Effect.gen(function*() {
        const { auth, id } = yield* user
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a1" }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a1" }))).toEqual(ok)
        const tree = (yield* get(auth, `${v1}/folders-with-boards`)).json
        expect(tree.data).toHaveLength(1)
        const defaultBoard = tree.data[0].boards[0]
        expect(tree.data[0]).toMatchObject({ name: "Saved ads", boards: [{ name: "Saved ads", brands_count: 0, ads_count: 1 }] })

        const listed = yield* list(auth)
        expect(listed.status).toBe(200)
        expect(Object.keys(listed.json)).toEqual(["success", "data", "total", "page", "page_size"])
        expect(listed.json).toMatchObject({ success: true, total: 1, page: 1, page_size: 20 })
        const item = listed.json.data[0]
        // The ad record as the searches show it, then the account's fields.
        const searched = (yield* get(auth, "/api/v1/adlibrary", { q: "First light", limit: 50 })).json.data.find((ad: any) => ad.id === "ws-a1")
        expect(item).toEqual({ ...searched, in_library: true, saved_at: "1970-01-01T00:00:00.000Z", board_ids: [defaultBoard.id], note: null, tags: [] })

        // On a second board too: board_ids in the order it was added to them.
        const folder = yield* folderOf(auth, "Research")
        const b = yield* boardOf(auth, folder, "Hooks")
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a1", board_id: b }))).toEqual(ok)
        expect((yield* list(auth)).json.data[0].board_ids).toEqual([defaultBoard.id, b])
        expect((yield* list(auth, { board_id: b })).json.total).toBe(1)

        // Unsave from one board: still saved on the other; from every board: gone.
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-a1", board_id: defaultBoard.id }))).toEqual(ok)
        expect((yield* list(auth)).json.data[0].board_ids).toEqual([b])
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a2" }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-a1" }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-a1" }))).toEqual(ok)
        expect(ids(yield* list(auth))).toEqual(["ws-a2"])
        expect((yield* get(auth, `${v1}/folders-with-boards`)).json.data.map((f: any) => f.boards.map((x: any) => x.ads_count))).toEqual([[1], [0]])

        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "no-such-ad" }))).toEqual(failure(404, "Ad not found"))
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a1", board_id: unknownId }))).toEqual(failure(404, "Board not found"))
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-a1", board_id: unknownId }))).toEqual(failure(404, "Board not found"))
        expect(answerOf(yield* post(auth, `${saved}/save`, {}))).toEqual(failure(400, "ad_id is missing"))
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a1", library: "tv" }))).toEqual(
          failure(400, "library: must be one of social, pinboard, clipapp, search")
        )
        expect(answerOf(yield* list(auth, { board_id: unknownId }))).toEqual(failure(404, "Board not found"))
        // 1 credit each: 2 saves, tree, list, adlibrary, folder, board, save, 2 lists, unsave, list, save, 2 unsaves, list, tree, 6 refusals
        expect((yield* balanceOf(id)).used).toBe(2 + 1 + 1 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 1 + 2 + 1 + 1 + 6)
      }))

    it.effect("a saved ad keeps its snapshot: the board still shows it after the library drops the ad", () =>
      Effect.gen(function*() {
        const { auth } = yield* user
        const folder = yield* folderOf(auth, "Keep")
        const b = yield* boardOf(auth, folder, "Forever")
        yield* post(auth, `${saved}/save`, { ad_id: "ws-gone", board_id: b })
        const before = (yield* get(auth, `${v1}/board-ads`, { board_id: b })).json.data[0]
        expect(before).toMatchObject({ id: "ws-gone", in_library: true, headline: ads.gone.headline, body: ads.gone.body })

        yield* dropFromLibrary("social", "ws-gone")
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-gone" }))).toEqual(failure(404, "Ad not found"))
        const after = (yield* get(auth, `${v1}/board-ads`, { board_id: b })).json.data[0]
        // Copy, media URLs and advertiser as they were when it was saved.
        expect(after).toEqual({ ...before, in_library: false })
        expect(after.media).toEqual(ads.gone.media)
        expect(after.advertiser).toMatchObject({ id: "page-1", name: "GlowLab Skincare" })
        expect((yield* list(auth)).json.data[0]).toEqual(after)
        // Notes still work on it; unsaving it works, and then it is gone for good.
        expect((yield* post(auth, `${saved}/annotate`, { ad_id: "ws-gone", note: "gone but kept" })).json.data.note).toBe("gone but kept")
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-gone" }))).toEqual(ok)
        expect((yield* list(auth)).json.total).toBe(0)
      }))

    it.effect("notes (up to 2,000 characters) and tags (up to 20) on a saved ad; the list filters by tag", () =>
      Effect.gen(function*() {
        const { auth } = yield* user
        yield* post(auth, `${saved}/save`, { ad_id: "ws-a1" })
        yield* post(auth, `${saved}/save`, { ad_id: "ws-a2" })
        const note = "n".repeat(2_000)
        const annotated = yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", note, tags: ["Hook", " ugc ", "hook", "Q4"] })
        expect(annotated.status).toBe(200)
        expect(Object.keys(annotated.json)).toEqual(["success", "data"])
        // Trimmed; of two that differ only in case, the first kept.
        expect(annotated.json.data).toMatchObject({ id: "ws-a1", note, tags: ["Hook", "ugc", "Q4"] })
        // Tags alone leave the note; an empty note clears it.
        expect((yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", tags: ["hook"] })).json.data).toMatchObject({ note, tags: ["hook"] })
        expect((yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a2", tags: ["HOOK", "other"] })).json.data.tags).toEqual(["HOOK", "other"])
        expect(ids(yield* list(auth, { tag: "Hook" })).sort()).toEqual(["ws-a1", "ws-a2"])
        expect(ids(yield* list(auth, { tag: "other" }))).toEqual(["ws-a2"])
        expect((yield* list(auth, { tag: "none" })).json.total).toBe(0)
        expect((yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", note: "" })).json.data.note).toBe(null)
        expect((yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", note: null, tags: [] })).json.data).toMatchObject({ note: null, tags: [] })

        const tooMany = Array.from({ length: 21 }, (_, i) => `t${i}`)
        expect((yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", tags: tooMany.slice(0, 20) })).json.data.tags).toHaveLength(20)
        expect(answerOf(yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", tags: tooMany }))).toEqual(failure(400, "tags: must have at most 20 items"))
        expect(answerOf(yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", note: "n".repeat(2_001) }))).toEqual(
          failure(400, "note: must be a text of at most 2000 characters")
        )
        expect(answerOf(yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", tags: [""] }))).toEqual(
          failure(400, "tags.0: must be a non-empty text of at most 50 characters")
        )
        expect(answerOf(yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1" }))).toEqual(failure(400, "note or tags is missing"))
        expect(answerOf(yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a4", note: "x" }))).toEqual(failure(404, "Saved ad not found"))
        // The refusals changed nothing.
        expect((yield* list(auth, { tag: "t0" })).json.data[0].tags).toHaveLength(20)
      }))

    it.effect("board contents sort by newest saved, the ad's first seen, or days running, and page (P2)", () =>
      Effect.gen(function*() {
        const { auth } = yield* user
        const folder = yield* folderOf(auth, "Sorted")
        const b = yield* boardOf(auth, folder, "All")
        for (const ad_id of ["ws-a3", "ws-a1", "ws-a4", "ws-a2"]) yield* post(auth, `${saved}/save`, { ad_id, board_id: b })
        const order = (sort?: string) => Effect.map(get(auth, `${v1}/board-ads`, { board_id: b, ...(sort ? { sort } : {}) }), ids)
        // Saved at one instant: the later save first.
        expect(yield* order()).toEqual(["ws-a2", "ws-a4", "ws-a1", "ws-a3"])
        expect(yield* order("newest_saved")).toEqual(["ws-a2", "ws-a4", "ws-a1", "ws-a3"])
        expect(yield* order("first_seen")).toEqual(["ws-a4", "ws-a2", "ws-a3", "ws-a1"])
        expect(yield* order("days_running")).toEqual(["ws-a1", "ws-a3", "ws-a2", "ws-a4"])
        const page2 = yield* get(auth, `${v1}/board-ads`, { board_id: b, sort: "first_seen", page: 2, page_size: 3 })
        expect(page2.json).toMatchObject({ total: 4, page: 2, page_size: 3 })
        expect(ids(page2)).toEqual(["ws-a1"])
        expect(ids(yield* list(auth, { sort: "days_running", page_size: 2 }))).toEqual(["ws-a1", "ws-a3"])
        expect(answerOf(yield* get(auth, `${v1}/board-ads`, { board_id: b, sort: "oldest" }))).toEqual(
          failure(400, "sort: must be one of newest_saved, first_seen, days_running")
        )
        expect(answerOf(yield* get(auth, `${v1}/board-ads`, { board_id: b, page_size: 101 }))).toEqual(
          failure(400, "page_size: must be an integer from 1 to 100")
        )
        // remove-from-board takes a saved ad off too.
        expect(answerOf(yield* post(auth, `${v1}/remove-from-board`, { board_id: b, ad_id: "ws-a2" }))).toEqual(ok)
        expect(yield* order()).toEqual(["ws-a4", "ws-a1", "ws-a3"])
        expect(ids(yield* list(auth))).not.toContain("ws-a2")
      }))

    it.effect("an id in two libraries needs `library`; another account's saved ads are its own", () =>
      Effect.gen(function*() {
        const { auth } = yield* user
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-dup" }))).toEqual(
          failure(400, "library is missing: ws-dup exists in several libraries (search, social)")
        )
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-dup", library: "search" }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-dup", library: "social" }))).toEqual(ok)
        const both = (yield* list(auth)).json.data.map((ad: any) => [ad.library, ad.headline])
        expect(both).toEqual([["social", "Social twin"], ["search", "Search twin"]])
        expect(answerOf(yield* post(auth, `${saved}/annotate`, { ad_id: "ws-dup", note: "which?" }))).toEqual(
          failure(400, "library is missing: ws-dup exists in several libraries (search, social)")
        )
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-dup", library: "search" }))).toEqual(ok)
        // One left: the id alone names it now.
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-dup" }))).toEqual(ok)
        expect((yield* list(auth)).json.total).toBe(0)

        // Isolation: the other account sees none of these, and cannot touch them.
        const owner = yield* user
        yield* post(owner.auth, `${saved}/save`, { ad_id: "ws-a1" })
        const ownerBoard = (yield* list(owner.auth)).json.data[0].board_ids[0]
        expect((yield* list(auth)).json.total).toBe(0)
        expect(answerOf(yield* list(auth, { board_id: ownerBoard }))).toEqual(failure(404, "Board not found"))
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a2", board_id: ownerBoard }))).toEqual(failure(404, "Board not found"))
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-a1", board_id: ownerBoard }))).toEqual(failure(404, "Board not found"))
        expect(answerOf(yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", note: "mine" }))).toEqual(failure(404, "Saved ad not found"))
        // Unsaving "its" ws-a1 (not saved by it) changes nothing for the owner.
        expect(answerOf(yield* post(auth, `${saved}/unsave`, { ad_id: "ws-a1" }))).toEqual(ok)
        expect((yield* list(owner.auth)).json.data.map((ad: any) => [ad.id, ad.note])).toEqual([["ws-a1", null]])
        // Without a key: 401.
        expect(answerOf(yield* list({}))).toEqual(failure(401, "Unauthorized"))
      }))
  })
})
