import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { baseUrl, clientAddress } from "../../platform/Forwarded.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { ShareViewsLimited, WorkspaceContract } from "./Api.js"
import { ShareLinks } from "./ShareLinks.js"
import { sharedBoardPage, shareMessagePage } from "./SharePage.js"
import { Workspace } from "./Workspace.js"

const done = { success: true as const }
const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })
const folder = <A>(folder: A) => ({ success: true as const, folder })
const board = <A>(board: A) => ({ success: true as const, board })
const account = Effect.map(Caller, (caller) => caller.accountId)

/**
 * `/api/v1/brands/*` folders, boards and share links, and their mirrors under
 * `/api/v1/saved-ads/*` and `/api/brands/*`: the caller's own workspace.
 */
export const WorkspaceLive = serveGroup(WorkspaceContract, "workspace", (handlers) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const links = yield* ShareLinks
    const config = yield* AppConfig
    return handlers
      .handle("foldersWithBoards", () => Effect.map(Effect.flatMap(account, workspace.tree), (data) => fields({ data })))
      .handle("createFolder", ({ payload }) => Effect.map(Effect.flatMap(account, (a) => workspace.createFolder(a, payload.name)), folder))
      .handle("renameFolder", ({ payload }) =>
        Effect.map(Effect.flatMap(account, (a) => workspace.renameFolder(a, payload.folder_id, payload.name)), folder))
      .handle("moveFolder", ({ payload }) =>
        Effect.map(Effect.flatMap(account, (a) => workspace.moveFolder(a, payload.folder_id, payload.position)), folder))
      .handle("deleteFolder", ({ payload }) =>
        Effect.map(
          Effect.flatMap(account, (a) => workspace.deleteFolder(a, payload.folder_id, payload.force === true)),
          (deleted_boards) => fields({ deleted_boards })
        ))
      .handle("createBoard", ({ payload }) =>
        Effect.map(Effect.flatMap(account, (a) => workspace.createBoard(a, payload.folder_id, payload.name)), board))
      .handle("renameBoard", ({ payload }) =>
        Effect.map(Effect.flatMap(account, (a) => workspace.renameBoard(a, payload.board_id, payload.name)), board))
      .handle("moveBoard", ({ payload }) => Effect.map(Effect.flatMap(account, (a) => workspace.moveBoard(a, payload)), board))
      .handle("deleteBoard", ({ payload }) => Effect.as(Effect.flatMap(account, (a) => workspace.deleteBoard(a, payload.board_id)), done))
      .handle("addToBoard", ({ payload }) =>
        Effect.as(Effect.flatMap(account, (a) => workspace.addBrand(a, payload.board_id, payload.brand_id)), done))
      .handle("removeFromBoard", ({ payload }) => Effect.as(Effect.flatMap(account, (a) => workspace.removeItem(a, payload)), done))
      .handle("boardAds", ({ urlParams }) => Effect.map(Effect.flatMap(account, (a) => workspace.boardAds(a, urlParams)), fields))
      .handle("boardBrands", ({ urlParams }) => Effect.map(Effect.flatMap(account, (a) => workspace.boardBrands(a, urlParams)), fields))
      .handle("createShareLink", ({ payload, request }) =>
        Effect.map(
          Effect.flatMap(account, (a) => links.create(a, payload, baseUrl(request, config))),
          (share_link) => fields({ share_link })
        ))
      .handle("shareLinks", ({ urlParams }) => Effect.map(Effect.flatMap(account, (a) => links.list(a, urlParams)), fields))
      .handle("revokeShareLink", ({ payload }) => Effect.as(Effect.flatMap(account, (a) => links.revoke(a, payload.share_link_id)), done))
  }))

/** spec: issue 19: the public page is private to its visitor and kept out of search engines. */
const privateHeaders = { "cache-control": "private, no-store", "x-robots-tag": "noindex" }

/** The page has no script and loads nothing but itself. */
const htmlPage = (body: string, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: {
      ...privateHeaders,
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      ...headers
    }
  })

/** spec: W3: JSON for `Accept: application/json`, an HTML page otherwise. */
const wantsJson = (accept: string | undefined) => accept?.toLowerCase().includes("application/json") ?? false

/** `/share/<token>`: no key, no session, no credit; limited per client address (TRUST_PROXY decides which). */
export const ShareLive = serveGroup(WorkspaceContract, "share", (handlers) =>
  Effect.gen(function*() {
    const links = yield* ShareLinks
    const config = yield* AppConfig
    return handlers.handle("view", ({ path, request, urlParams }) =>
      Effect.gen(function*() {
        yield* HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeaders(response, privateHeaders)))
        const json = wantsJson(request.headers["accept"])
        // Another page keeps the sort and page size the visitor chose.
        const kept = Object.entries({ sort: urlParams.sort, page_size: urlParams.page_size }).flatMap(([k, v]): Array<[string, string]> => (v === undefined ? [] : [[k, String(v)]]))
        const pageHref = (page: number) => `?${new URLSearchParams([...kept, ["page", String(page)]])}`
        return yield* links.view(clientAddress(request, config), path.token, urlParams).pipe(
          Effect.map((shared) => (json ? fields(shared) : htmlPage(sharedBoardPage(shared, pageHref), 200))),
          Effect.catchTags({
            NotFound: (error) =>
              json
                ? Effect.fail(error)
                : Effect.succeed(htmlPage(shareMessagePage("Link not found", "This link is not valid: it may have expired or been revoked."), 404)),
            TooManyViews: ({ retryAfterSeconds }) => {
              const retry = { "retry-after": String(retryAfterSeconds) }
              const message = `Too many views. Try again in ${retryAfterSeconds} seconds.`
              return json
                ? Effect.zipRight(
                  HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeaders(response, retry))),
                  Effect.fail(new ShareViewsLimited({ error: message }))
                )
                : Effect.succeed(htmlPage(shareMessagePage("Too many views", message), 429, retry))
            }
          })
        )
      }))
  }))
