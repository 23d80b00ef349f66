import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { account, balanceOf, call, signIn } from "./support/TestServer.js"
import {
  ads,
  answerOf,
  type Auth,
  boardOf,
  brands,
  failure,
  folderOf,
  get,
  keyAuth,
  ok,
  post,
  saved,
  searchAdvertiser,
  unknownId,
  uuid,
  v1,
  workspaceServer
} from "./support/Workspace.js"

/**
 * Folders, boards, brands on boards and share links through HTTP (issue 19; INTERPRETATIONS
 * W3): W3's pinned shapes byte for byte, the rest of the family, the limits (small here, from
 * configuration), isolation between accounts, metering, and the mirrors under
 * `/api/v1/saved-ads/*` (metered alike) and `/api/brands/*` (the browser session, S4).
 */

const limits = { folders: 4, boardsPerFolder: 3, items: 4, shareLinks: 2 }
const env = {
  WORKSPACE_MAX_FOLDERS: String(limits.folders),
  WORKSPACE_MAX_BOARDS_PER_FOLDER: String(limits.boardsPerFolder),
  WORKSPACE_MAX_BOARD_ITEMS: String(limits.items),
  WORKSPACE_MAX_SHARE_LINKS_PER_BOARD: String(limits.shareLinks),
  SHARE_VIEWS_PER_MINUTE: "3"
}

const password = "workspace password 1"
const user = (plan: "basic" | "free" = "basic") =>
  Effect.map(account({ plan, password, email: `ws-${Math.random().toString(36).slice(2)}@example.com` }), (created) => ({
    ...created,
    auth: keyAuth(created.api_key)
  }))

const tree = (auth: Auth, prefix = v1) => get(auth, `${prefix}/folders-with-boards`)
const board = (id: string, name: string, brandsCount = 0, adsCount = 0) => ({ id, name, brands_count: brandsCount, ads_count: adsCount })

describe("the workspace: folders, boards, brands on boards, share links (W3)", () => {
  layer(workspaceServer({ env }))((it) => {
    it.effect("folders-with-boards, create-folder and add-to-board answer W3's shapes byte for byte", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        expect(answerOf(yield* tree(auth))).toEqual([200, `{"success":true,"data":[]}`])

        const created = yield* post(auth, `${v1}/create-folder`, { name: "  Competitors " })
        expect(created.status).toBe(200)
        const folderId = created.json.folder.id as string
        expect(folderId).toMatch(uuid)
        expect(created.body).toBe(`{"success":true,"folder":{"id":"${folderId}","name":"Competitors","boards":[]}}`)
        // Unique per account whatever the case (spec: W3, the exact message).
        for (const name of ["competitors", "COMPETITORS", " Competitors"]) {
          expect(answerOf(yield* post(auth, `${v1}/create-folder`, { name }))).toEqual(failure(409, "A folder with this name already exists"))
        }
        // 1 to 100 characters.
        const tooLong = "x".repeat(101)
        const nameRule = "name: must be a non-empty text of at most 100 characters"
        for (const name of ["", "   ", tooLong]) {
          expect(answerOf(yield* post(auth, `${v1}/create-folder`, { name }))).toEqual(failure(400, nameRule))
        }
        expect(answerOf(yield* post(auth, `${v1}/create-folder`, {}))).toEqual(failure(400, "name is missing"))
        expect(answerOf(yield* post(auth, `${v1}/create-folder`, { name: "A", color: "red" }))).toEqual(failure(400, "color: unknown parameter"))
        const longest = yield* post(auth, `${v1}/create-folder`, { name: "y".repeat(100) })
        expect(longest.status).toBe(200)

        const boardId = yield* boardOf(auth, folderId, "Skincare")
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: boardId, brand_id: brands.glow.id }))).toEqual(ok)
        // Idempotent: adding again changes nothing.
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: boardId, brand_id: brands.glow.id }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: boardId, brand_id: brands.fit.id }))).toEqual(ok)
        expect(answerOf(yield* tree(auth))).toEqual([
          200,
          JSON.stringify({
            success: true,
            data: [
              { id: folderId, name: "Competitors", boards: [board(boardId, "Skincare", 2, 0)] },
              { id: longest.json.folder.id, name: "y".repeat(100), boards: [] }
            ]
          })
        ])
        // A brand is a social-library advertiser: a search advertiser's id is not one.
        for (const brand_id of ["no-such-page", searchAdvertiser]) {
          expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: boardId, brand_id }))).toEqual(failure(404, "Brand not found"))
        }
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: unknownId, brand_id: brands.glow.id }))).toEqual(failure(404, "Board not found"))
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: "not-a-uuid", brand_id: brands.glow.id }))).toEqual(
          failure(400, "board_id: must be a board id (a UUID)")
        )
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: boardId }))).toEqual(failure(400, "brand_id is missing"))
      }))

    it.effect("boards: create, rename, move within and across folders, delete; names unique per folder", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        const work = yield* folderOf(auth, "Work")
        const play = yield* folderOf(auth, "Play")
        const a = yield* boardOf(auth, work, "Alpha")
        const created = yield* post(auth, `${v1}/create-board`, { folder_id: work, name: "Beta" })
        const b = created.json.board.id as string
        expect(answerOf(created)).toEqual([200, JSON.stringify({ success: true, board: { id: b, name: "Beta", folder_id: work, brands_count: 0, ads_count: 0 } })])
        const c = yield* boardOf(auth, work, "Gamma")
        expect(answerOf(yield* post(auth, `${v1}/create-board`, { folder_id: work, name: "alpha" }))).toEqual(
          failure(409, "A board with this name already exists in this folder")
        )
        // Another folder may have a board of that name.
        const playAlpha = yield* boardOf(auth, play, "ALPHA")
        expect(answerOf(yield* post(auth, `${v1}/create-board`, { folder_id: unknownId, name: "X" }))).toEqual(failure(404, "Folder not found"))

        // Rename: same rules.
        expect(answerOf(yield* post(auth, `${v1}/rename-board`, { board_id: b, name: "GAMMA" }))).toEqual(
          failure(409, "A board with this name already exists in this folder")
        )
        const renamed = yield* post(auth, `${v1}/rename-board`, { board_id: b, name: "Beta two" })
        expect(renamed.json.board).toEqual({ id: b, name: "Beta two", folder_id: work, brands_count: 0, ads_count: 0 })
        // Renaming to its own name in another case is no clash.
        expect((yield* post(auth, `${v1}/rename-board`, { board_id: b, name: "BETA TWO" })).status).toBe(200)

        // Move within the folder: Gamma first.
        expect((yield* post(auth, `${v1}/move-board`, { board_id: c, position: 1 })).status).toBe(200)
        const names = (json: any) => json.data.map((f: any) => [f.name, f.boards.map((x: any) => x.name)])
        expect(names((yield* tree(auth)).json)).toEqual([["Work", ["Gamma", "Alpha", "BETA TWO"]], ["Play", ["ALPHA"]]])
        // Past the end is last.
        expect((yield* post(auth, `${v1}/move-board`, { board_id: c, position: 99 })).status).toBe(200)
        expect(names((yield* tree(auth)).json)).toEqual([["Work", ["Alpha", "BETA TWO", "Gamma"]], ["Play", ["ALPHA"]]])
        // Across folders: a name already there is a clash; otherwise it goes last, or where asked.
        expect(answerOf(yield* post(auth, `${v1}/move-board`, { board_id: a, folder_id: play }))).toEqual(
          failure(409, "A board with this name already exists in this folder")
        )
        const moved = yield* post(auth, `${v1}/move-board`, { board_id: c, folder_id: play, position: 1 })
        expect(moved.json.board.folder_id).toBe(play)
        expect(names((yield* tree(auth)).json)).toEqual([["Work", ["Alpha", "BETA TWO"]], ["Play", ["Gamma", "ALPHA"]]])
        expect(answerOf(yield* post(auth, `${v1}/move-board`, { board_id: c }))).toEqual(failure(400, "folder_id or position is missing"))
        expect(answerOf(yield* post(auth, `${v1}/move-board`, { board_id: c, position: 0 }))).toEqual(
          failure(400, "position: must be an integer from 1 to 100000")
        )
        expect(answerOf(yield* post(auth, `${v1}/move-board`, { board_id: c, folder_id: unknownId }))).toEqual(failure(404, "Folder not found"))

        // Folders: rename and move.
        expect(answerOf(yield* post(auth, `${v1}/rename-folder`, { folder_id: play, name: "work" }))).toEqual(
          failure(409, "A folder with this name already exists")
        )
        const renamedFolder = yield* post(auth, `${v1}/rename-folder`, { folder_id: play, name: "Leisure" })
        expect(renamedFolder.json.folder.name).toBe("Leisure")
        const movedFolder = yield* post(auth, `${v1}/move-folder`, { folder_id: play, position: 1 })
        expect(answerOf(movedFolder)).toEqual([
          200,
          JSON.stringify({ success: true, folder: { id: play, name: "Leisure", boards: [board(c, "Gamma"), board(playAlpha, "ALPHA")] } })
        ])
        expect(names((yield* tree(auth)).json)).toEqual([["Leisure", ["Gamma", "ALPHA"]], ["Work", ["Alpha", "BETA TWO"]]])

        // Delete a board: gone, and so are its brands.
        yield* post(auth, `${v1}/add-to-board`, { board_id: a, brand_id: brands.glow.id })
        expect(answerOf(yield* post(auth, `${v1}/delete-board`, { board_id: a }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${v1}/delete-board`, { board_id: a }))).toEqual(failure(404, "Board not found"))
        expect(names((yield* tree(auth)).json)).toEqual([["Leisure", ["Gamma", "ALPHA"]], ["Work", ["BETA TWO"]]])
      }))

    it.effect("delete-folder: a folder with boards needs force (409 naming how many), and its boards go with it", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        const full = yield* folderOf(auth, "Full")
        const one = yield* folderOf(auth, "One")
        const empty = yield* folderOf(auth, "Empty")
        const x = yield* boardOf(auth, full, "X")
        yield* boardOf(auth, full, "Y")
        yield* boardOf(auth, one, "Z")
        yield* post(auth, `${v1}/add-to-board`, { board_id: x, brand_id: brands.glow.id })
        const before = (yield* tree(auth)).body
        expect(answerOf(yield* post(auth, `${v1}/delete-folder`, { folder_id: full }))).toEqual(
          failure(409, "This folder holds 2 boards: send force: true to delete it with them")
        )
        expect(answerOf(yield* post(auth, `${v1}/delete-folder`, { folder_id: one, force: false }))).toEqual(
          failure(409, "This folder holds 1 board: send force: true to delete it with them")
        )
        // Refused: nothing changed.
        expect((yield* tree(auth)).body).toBe(before)
        expect(answerOf(yield* post(auth, `${v1}/delete-folder`, { folder_id: full, force: true }))).toEqual([
          200,
          `{"success":true,"deleted_boards":2}`
        ])
        expect(answerOf(yield* post(auth, `${v1}/delete-folder`, { folder_id: empty }))).toEqual([200, `{"success":true,"deleted_boards":0}`])
        expect(answerOf(yield* post(auth, `${v1}/delete-folder`, { folder_id: empty }))).toEqual(failure(404, "Folder not found"))
        expect((yield* tree(auth)).json.data.map((f: any) => f.name)).toEqual(["One"])
        expect(answerOf(yield* get(auth, `${v1}/board-brands`, { board_id: x }))).toEqual(failure(404, "Board not found"))
        expect(answerOf(yield* post(auth, `${v1}/delete-folder`, { folder_id: one, force: "yes" }))).toEqual(
          failure(400, "force: Expected boolean, actual \"yes\"")
        )
      }))

    it.effect("board-brands: the board's brands, latest added first, paged; remove-from-board takes one off, idempotently", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        const folder = yield* folderOf(auth, "Brands")
        const b = yield* boardOf(auth, folder, "Watch")
        for (const brand of [brands.glow, brands.fit, brands.calm]) {
          expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: b, brand_id: brand.id }))).toEqual(ok)
        }
        const activeOf = (brand: string) => Object.values(ads).filter((a) => a.advertiser_external_id === brand && a.status === "active").length
        const listed = yield* get(auth, `${v1}/board-brands`, { board_id: b, page_size: 2 })
        expect(listed.status).toBe(200)
        expect(Object.keys(listed.json)).toEqual(["success", "data", "total", "page", "page_size"])
        expect(listed.json).toMatchObject({ success: true, total: 3, page: 1, page_size: 2 })
        // All three were added at the same instant (the clock stands still): the later add first.
        expect(listed.json.data.map((x: any) => x.id)).toEqual([brands.calm.id, brands.fit.id])
        expect(listed.json.data[0]).toEqual({
          id: brands.calm.id,
          name: "CalmCo",
          domain: null,
          active_ads: activeOf(brands.calm.id),
          in_library: true,
          added_at: "1970-01-01T00:00:00.000Z"
        })
        const second = yield* get(auth, `${v1}/board-brands`, { board_id: b, page_size: 2, page: 2 })
        expect(second.json.data.map((x: any) => [x.id, x.active_ads])).toEqual([[brands.glow.id, activeOf(brands.glow.id)]])

        expect(answerOf(yield* post(auth, `${v1}/remove-from-board`, { board_id: b, brand_id: brands.fit.id }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${v1}/remove-from-board`, { board_id: b, brand_id: brands.fit.id }))).toEqual(ok)
        expect((yield* get(auth, `${v1}/board-brands`, { board_id: b })).json.total).toBe(2)
        expect(answerOf(yield* post(auth, `${v1}/remove-from-board`, { board_id: b }))).toEqual(failure(400, "brand_id or ad_id is missing"))
        expect(answerOf(yield* post(auth, `${v1}/remove-from-board`, { board_id: b, brand_id: "x", ad_id: "y" }))).toEqual(
          failure(400, "brand_id: send brand_id or ad_id, not both")
        )
        expect(answerOf(yield* post(auth, `${v1}/remove-from-board`, { board_id: unknownId, brand_id: "x" }))).toEqual(failure(404, "Board not found"))
      }))

    it.effect("share links: create (30 days by default, at most 365), list without tokens, revoke", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        const folder = yield* folderOf(auth, "Shared")
        const b = yield* boardOf(auth, folder, "Public")
        const created = yield* post(auth, `${v1}/create-share-link`, { board_id: b })
        expect(created.status).toBe(200)
        const link = created.json.share_link
        expect(Object.keys(created.json)).toEqual(["success", "share_link"])
        expect(Object.keys(link)).toEqual(["id", "board_id", "created_at", "expires_at", "url", "token"])
        expect(link).toMatchObject({ board_id: b, created_at: "1970-01-01T00:00:00.000Z", expires_at: "1970-01-31T00:00:00.000Z" })
        // 256 random bits, base64url; the URL is the public page.
        expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(link.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/share/${link.token}$`))
        // Only a hash is stored.
        const stored = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ token_hash: string }>`select token_hash from workspace_share_links where id = ${link.id}::uuid`).pipe(Effect.orDie)
        expect(stored[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/)
        expect(stored[0]!.token_hash).not.toContain(link.token)

        const year = yield* post(auth, `${v1}/create-share-link`, { board_id: b, expires_in_days: 365 })
        expect(year.json.share_link.expires_at).toBe("1971-01-01T00:00:00.000Z")
        expect(year.json.share_link.token).not.toBe(link.token)
        for (const days of [0, 366, 1.5]) {
          expect(answerOf(yield* post(auth, `${v1}/create-share-link`, { board_id: b, expires_in_days: days }))).toEqual(
            failure(400, "expires_in_days: must be an integer from 1 to 365")
          )
        }
        expect(answerOf(yield* post(auth, `${v1}/create-share-link`, { board_id: unknownId }))).toEqual(failure(404, "Board not found"))

        const listed = yield* get(auth, `${v1}/share-links`, { board_id: b })
        expect(answerOf(listed)).toEqual([
          200,
          JSON.stringify({
            success: true,
            data: [year.json.share_link, link].map(({ board_id, created_at, expires_at, id }) => ({ id, board_id, created_at, expires_at })),
            total: 2,
            page: 1,
            page_size: 20
          })
        ])
        expect(listed.body).not.toContain(link.token)
        expect((yield* get(auth, `${v1}/share-links`)).json.total).toBe(2)

        expect(answerOf(yield* post(auth, `${v1}/revoke-share-link`, { share_link_id: link.id }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${v1}/revoke-share-link`, { share_link_id: link.id }))).toEqual(failure(404, "Share link not found"))
        expect((yield* get(auth, `${v1}/share-links`)).json.data.map((l: any) => l.id)).toEqual([year.json.share_link.id])
        expect(answerOf(yield* get(auth, `${v1}/share-links`, { board_id: unknownId }))).toEqual(failure(404, "Board not found"))
      }))

    it.effect("another account's folder, board and share link are a 404 on every route, and nothing of theirs changes", () =>
      Effect.gen(function*() {
        const owner = yield* user()
        const stranger = yield* user()
        const folder = yield* folderOf(owner.auth, "Mine")
        const b = yield* boardOf(owner.auth, folder, "Private")
        yield* post(owner.auth, `${v1}/add-to-board`, { board_id: b, brand_id: brands.glow.id })
        const link = (yield* post(owner.auth, `${v1}/create-share-link`, { board_id: b })).json.share_link
        const before = (yield* tree(owner.auth)).body
        const folderGone = failure(404, "Folder not found")
        const boardGone = failure(404, "Board not found")
        const s = stranger.auth
        const refusals: ReadonlyArray<readonly [string, unknown, readonly [number, string]]> = [
          ["rename-folder", { folder_id: folder, name: "Theirs" }, folderGone],
          ["move-folder", { folder_id: folder, position: 1 }, folderGone],
          ["delete-folder", { folder_id: folder, force: true }, folderGone],
          ["create-board", { folder_id: folder, name: "Intruder" }, folderGone],
          ["rename-board", { board_id: b, name: "Theirs" }, boardGone],
          ["move-board", { board_id: b, position: 1 }, boardGone],
          ["delete-board", { board_id: b }, boardGone],
          ["add-to-board", { board_id: b, brand_id: brands.fit.id }, boardGone],
          ["remove-from-board", { board_id: b, brand_id: brands.glow.id }, boardGone],
          ["create-share-link", { board_id: b }, boardGone],
          ["revoke-share-link", { share_link_id: link.id }, failure(404, "Share link not found")]
        ]
        for (const [route, body, expected] of refusals) {
          expect([route, ...answerOf(yield* post(s, `${v1}/${route}`, body))]).toEqual([route, ...expected])
        }
        // The stranger's own folder cannot take the owner's board either.
        const theirs = yield* folderOf(s, "Theirs")
        expect(answerOf(yield* post(owner.auth, `${v1}/move-board`, { board_id: b, folder_id: theirs }))).toEqual(folderGone)
        expect(answerOf(yield* get(s, `${v1}/board-brands`, { board_id: b }))).toEqual(boardGone)
        expect(answerOf(yield* get(s, `${v1}/board-ads`, { board_id: b }))).toEqual(boardGone)
        expect(answerOf(yield* get(s, `${v1}/share-links`, { board_id: b }))).toEqual(boardGone)
        expect((yield* get(s, `${v1}/share-links`)).json.total).toBe(0)
        expect((yield* tree(s)).json.data.map((f: any) => f.name)).toEqual(["Theirs"])
        // The owner's workspace is as it was, link included.
        expect((yield* tree(owner.auth)).body).toBe(before)
        expect((yield* get(owner.auth, `${v1}/share-links`)).json.total).toBe(1)
      }))

    it.effect("limits: folders per account, boards per folder (moves too), items per board, share links per board", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        const folders: Array<string> = []
        for (let i = 0; i < limits.folders; i++) folders.push(yield* folderOf(auth, `F${i}`))
        expect(answerOf(yield* post(auth, `${v1}/create-folder`, { name: "One more" }))).toEqual(
          failure(409, `Folder limit reached: ${limits.folders} folders per account`)
        )
        // A deleted folder makes room.
        yield* post(auth, `${v1}/delete-folder`, { folder_id: folders.pop()! })
        folders.push(yield* folderOf(auth, "One more"))

        const [first, second] = folders as [string, string]
        const boards: Array<string> = []
        for (let i = 0; i < limits.boardsPerFolder; i++) boards.push(yield* boardOf(auth, first, `B${i}`))
        const boardsFull = failure(409, `Board limit reached: ${limits.boardsPerFolder} boards per folder`)
        expect(answerOf(yield* post(auth, `${v1}/create-board`, { folder_id: first, name: "Extra" }))).toEqual(boardsFull)
        const elsewhere = yield* boardOf(auth, second, "Elsewhere")
        expect(answerOf(yield* post(auth, `${v1}/move-board`, { board_id: elsewhere, folder_id: first }))).toEqual(boardsFull)
        // Within its own folder a full folder still reorders.
        expect((yield* post(auth, `${v1}/move-board`, { board_id: boards[2]!, position: 1 })).status).toBe(200)

        const b = boards[0]!
        for (const brand of [brands.glow, brands.fit, brands.calm]) yield* post(auth, `${v1}/add-to-board`, { board_id: b, brand_id: brand.id })
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a1", board_id: b }))).toEqual(ok)
        const boardFull = failure(409, `Board is full: ${limits.items} items (brands and saved ads) per board`)
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a2", board_id: b }))).toEqual(boardFull)
        // What is already there is no new item: idempotent calls still answer 200.
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a1", board_id: b }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: b, brand_id: brands.fit.id }))).toEqual(ok)
        yield* post(auth, `${v1}/remove-from-board`, { board_id: b, brand_id: brands.fit.id })
        expect(answerOf(yield* post(auth, `${saved}/save`, { ad_id: "ws-a2", board_id: b }))).toEqual(ok)
        expect(answerOf(yield* post(auth, `${v1}/add-to-board`, { board_id: b, brand_id: brands.fit.id }))).toEqual(boardFull)

        for (let i = 0; i < limits.shareLinks; i++) expect((yield* post(auth, `${v1}/create-share-link`, { board_id: b })).status).toBe(200)
        expect(answerOf(yield* post(auth, `${v1}/create-share-link`, { board_id: b }))).toEqual(
          failure(409, `Share link limit reached: ${limits.shareLinks} live links per board`)
        )
        // Another board has its own.
        expect((yield* post(auth, `${v1}/create-share-link`, { board_id: boards[1]! })).status).toBe(200)
      }))

    it.effect("limits hold exactly when calls race: of two creates for the last slot, one wins", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        for (let i = 0; i < limits.folders - 1; i++) yield* folderOf(auth, `F${i}`)
        const raced = yield* Effect.all([
          post(auth, `${v1}/create-folder`, { name: "Left" }),
          post(auth, `${v1}/create-folder`, { name: "Right" })
        ], { concurrency: "unbounded" })
        expect(raced.map((a) => a.status).sort()).toEqual([200, 409])
        expect((yield* tree(auth)).json.data).toHaveLength(limits.folders)

        const folder = (yield* tree(auth)).json.data[0].id as string
        const boardsRaced = yield* Effect.all(
          Array.from({ length: limits.boardsPerFolder + 2 }, (_, i) => post(auth, `${v1}/create-board`, { folder_id: folder, name: `R${i}` })),
          { concurrency: "unbounded" }
        )
        expect(boardsRaced.filter((a) => a.status === 200)).toHaveLength(limits.boardsPerFolder)
        const b = boardsRaced.find((a) => a.status === 200)!.json.board.id as string
        const itemsRaced = yield* Effect.all(
          [brands.glow, brands.fit, brands.calm].map((brand) => post(auth, `${v1}/add-to-board`, { board_id: b, brand_id: brand.id }))
            .concat(["ws-a1", "ws-a2", "ws-a3"].map((ad_id) => post(auth, `${saved}/save`, { ad_id, board_id: b }))),
          { concurrency: "unbounded" }
        )
        expect(itemsRaced.filter((a) => a.status === 200)).toHaveLength(limits.items)
        const linksRaced = yield* Effect.all(
          Array.from({ length: limits.shareLinks + 2 }, () => post(auth, `${v1}/create-share-link`, { board_id: b })),
          { concurrency: "unbounded" }
        )
        expect(linksRaced.filter((a) => a.status === 200)).toHaveLength(limits.shareLinks)
        // Two saves of one ad at once save it once.
        const other = (yield* tree(auth)).json.data[1].id as string
        const roomy = yield* boardOf(auth, other, "Roomy")
        const twice = yield* Effect.all([1, 2].map(() => post(auth, `${saved}/save`, { ad_id: "ws-a4", board_id: roomy })), {
          concurrency: "unbounded"
        })
        expect(twice.map(answerOf)).toEqual([ok, ok])
        expect((yield* get(auth, `${v1}/board-ads`, { board_id: roomy })).json.total).toBe(1)
      }))

    it.effect("every call costs one credit, share links included; refused calls keep it (G4), a 500 refunds it", () =>
      Effect.gen(function*() {
        const { auth, id } = yield* user()
        const folder = yield* folderOf(auth, "Metered")
        const b = yield* boardOf(auth, folder, "Board")
        const link = (yield* post(auth, `${v1}/create-share-link`, { board_id: b })).json.share_link
        yield* post(auth, `${v1}/revoke-share-link`, { share_link_id: link.id })
        yield* post(auth, `${v1}/create-folder`, { name: "metered" }) // 409
        yield* get(auth, `${v1}/board-ads`, { board_id: unknownId }) // 404
        yield* get(auth, `${v1}/board-ads`, { board_id: b, sort: "oldest" }) // 400
        expect((yield* balanceOf(id)).used).toBe(7)

        // An answer the handler did not choose (the database failing under it) is a 500, and refunded.
        const sql = yield* SqlClient.SqlClient
        yield* Effect.acquireUseRelease(
          Effect.orDie(sql`alter table workspace_folders rename to workspace_folders_away`),
          () =>
            Effect.gen(function*() {
              expect(answerOf(yield* tree(auth))).toEqual(failure(500, "Internal server error"))
            }),
          () => Effect.orDie(sql`alter table workspace_folders_away rename to workspace_folders`)
        )
        expect((yield* balanceOf(id)).used).toBe(7)

        // No key: 401, no credit; a plan below Basic: 403.
        expect(answerOf(yield* tree({}))).toEqual(failure(401, "Unauthorized"))
        const free = yield* user("free")
        expect(answerOf(yield* tree(free.auth))).toEqual(failure(403, "AdIntel Basic plan or higher required"))
        const rated = yield* tree(auth)
        expect(rated.headers.get("ratelimit-policy")).toBe(`"minute";q=100000;w=60`)
      }))

    it.effect("the same folders and boards under /api/v1/saved-ads/* (metered alike) and /api/brands/* (the session, no credit)", () =>
      Effect.gen(function*() {
        const { auth, email, id } = yield* user()
        const folder = yield* folderOf(auth, "Everywhere", saved)
        const b = yield* boardOf(auth, folder, "Board")
        expect((yield* tree(auth, saved)).body).toBe((yield* tree(auth)).body)
        expect((yield* balanceOf(id)).used).toBe(4)
        expect(answerOf(yield* tree({}, saved))).toEqual(failure(401, "Unauthorized"))

        const session = yield* signIn(email, password)
        const legacyTree = yield* tree(session, "/api/brands")
        expect(legacyTree.body).toBe((yield* tree(auth)).body)
        expect(answerOf(yield* post(session, "/api/brands/add-to-board", { board_id: b, brand_id: brands.glow.id }))).toEqual(ok)
        expect(answerOf(yield* post(session, "/api/brands/create-folder", { name: "everywhere" }))).toEqual(
          failure(409, "A folder with this name already exists")
        )
        const legacyLink = yield* post(session, "/api/brands/create-share-link", { board_id: b })
        expect(legacyLink.status).toBe(200)
        expect((yield* balanceOf(id)).used).toBe(5)
        // Without a session (a key does not count there): 401.
        expect(answerOf(yield* tree({}, "/api/brands"))).toEqual(failure(401, "Unauthorized"))
        expect(answerOf(yield* tree(auth, "/api/brands"))).toEqual(failure(401, "Unauthorized"))
        // S1: a state change needs this service's Origin.
        expect(answerOf(yield* post({ cookie: session.cookie }, "/api/brands/create-folder", { name: "CSRF" }))).toEqual(
          failure(403, "Cross-site request refused: Origin header missing")
        )
        expect((yield* tree(auth)).json.data.map((f: any) => [f.name, f.boards[0]?.brands_count])).toEqual([["Everywhere", 1]])
      }))
    it.effect("without TRUST_PROXY the share view counts by the socket's address: X-Forwarded-For changes nothing", () =>
      Effect.gen(function*() {
        const { auth } = yield* user()
        const b = yield* boardOf(auth, yield* folderOf(auth, "Viewed"), "Board")
        const { token } = (yield* post(auth, `${v1}/create-share-link`, { board_id: b })).json.share_link
        const statuses: Array<number> = []
        for (let i = 0; i < 4; i++) {
          const answer = yield* call(`/share/${token}`, { headers: { accept: "application/json", "x-forwarded-for": `203.0.113.${i}` } })
          statuses.push(answer.status)
        }
        // The only test of this file that views a shared board: the three views of the minute are its own.
        expect(statuses).toEqual([200, 200, 200, 429])
      }))
  })
})
