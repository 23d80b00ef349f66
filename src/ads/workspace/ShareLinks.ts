import { Clock, Data, Effect, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { Conflict, NotFound } from "../../kernel/Errors.js"
import { type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import { type CreateShareLink, defaultShareDays, type ShareLink, type SharedBoard, type ShareLinksQuery, type ShareQuery } from "./Api.js"
import { ShareLinksRepo } from "./ShareLinksRepo.js"
import { boardNotFound, Workspace } from "./Workspace.js"
import { WorkspaceConfig } from "./WorkspaceConfig.js"
import { type AccountId, BoardId, idOf } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

const DAY = 86_400_000
const MINUTE = 60_000

export const shareLinkNotFound = new NotFound({ error: "Share link not found" })
const boardId = idOf(BoardId, boardNotFound)

/** Too many views from one client address this minute; a slot frees in `retryAfterSeconds`. */
export class TooManyViews extends Data.TaggedError("TooManyViews")<{ readonly retryAfterSeconds: number }> {}

/** 256 random bits, base64url: what a share link's URL carries. */
const tokenPattern = /^[A-Za-z0-9_-]{43}$/
const newToken = () => randomBytes(32).toString("base64url")
/** Only this is stored: a leaked table opens no board. */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex")

/**
 * Share links (issue 19; INTERPRETATIONS W3): a board shown read-only, without a key or a
 * session, at `/share/<token>` until the link expires (default 30 days) or is revoked. The
 * public view is limited per client address; it shows the board's brands and saved ads, not
 * the owner's notes, tags or other boards.
 */
export class ShareLinks extends Effect.Service<ShareLinks>()("adintel/ShareLinks", {
  effect: Effect.gen(function*() {
    const repo = yield* ShareLinksRepo
    const workspace = yield* Workspace
    const limits = yield* WorkspaceConfig

    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    return {
      /** A new link to one of the account's boards; `baseUrl` is where browsers reach the service. */
      create: Effect.fn("ShareLinks.create", serviceSpan)(function*(
        account: AccountId,
        { board_id, expires_in_days }: CreateShareLink,
        baseUrl: string
      ): Effect.fn.Return<ShareLink & { readonly url: string; readonly token: string }, NotFound | Conflict> {
        const at = yield* now
        const token = newToken()
        const expiresAt = new Date(at.getTime() + (expires_in_days ?? defaultShareDays) * DAY)
        const created = yield* repo.create(account, yield* boardId(board_id), hashToken(token), at, expiresAt, limits.maxShareLinksPerBoard)
        if (created === "missing") return yield* Effect.fail(boardNotFound)
        if (created === "full") {
          const cap = limits.maxShareLinksPerBoard
          return yield* Effect.fail(new Conflict({ error: `Share link limit reached: ${cap} live link${cap === 1 ? "" : "s"} per board` }))
        }
        return { ...created, url: `${baseUrl}/share/${token}`, token }
      }),

      list: Effect.fn("ShareLinks.list", serviceSpan)(function*(account: AccountId, query: ShareLinksQuery): Effect.fn.Return<Page<ShareLink>, NotFound> {
        const board = query.board_id === undefined ? undefined : (yield* workspace.board(account, query.board_id)).id
        const window = windowOf(query)
        const { links, total } = yield* repo.page(account, board, yield* now, window)
        return pageOf(window, links, total)
      }),

      revoke: Effect.fn("ShareLinks.revoke", serviceSpan)((account: AccountId, id: string): Effect.Effect<void, NotFound> =>
        Effect.flatMap(now, (at) => Effect.flatMap(repo.revoke(account, id, at), (done) => done ? Effect.void : Effect.fail(shareLinkNotFound)))),

      /**
       * What a token shows. Every view counts against its address's minute, found or not, so
       * guessing tokens is as slow as reading boards.
       */
      view: Effect.fn("ShareLinks.view", serviceSpan)(function*(address: string, token: string, query: ShareQuery): Effect.fn.Return<Omit<SharedBoard, "success">, NotFound | TooManyViews> {
        const at = yield* now
        const window = Math.floor(at.getTime() / MINUTE) * MINUTE
        const views = yield* repo.view(address, new Date(window))
        if (views > limits.shareViewsPerMinute) {
          return yield* Effect.fail(new TooManyViews({ retryAfterSeconds: Math.max(1, Math.ceil((window + MINUTE - at.getTime()) / 1000)) }))
        }
        if (!tokenPattern.test(token)) return yield* Effect.fail(shareLinkNotFound)
        const target = yield* Effect.flatMap(repo.resolve(hashToken(token), at), Option.match({
          onNone: () => Effect.fail(shareLinkNotFound),
          onSome: Effect.succeed
        }))
        const board = yield* Effect.catchTag(workspace.board(target.accountId, target.boardId), "NotFound", () => Effect.fail(shareLinkNotFound))
        const [brands, ads] = yield* Effect.all([
          // Every brand: a board holds at most `maxBoardItems` items.
          workspace.boardBrands(target.accountId, { board_id: board.id, page: 1, page_size: limits.maxBoardItems }),
          workspace.boardAds(target.accountId, { board_id: board.id, sort: query.sort, page: query.page, page_size: query.page_size })
        ]).pipe(Effect.catchTag("NotFound", () => Effect.fail(shareLinkNotFound)))
        return {
          board: { name: board.name, brands_count: board.brands_count, ads_count: board.ads_count, expires_at: target.expiresAt.toISOString() },
          brands: brands.data,
          data: ads.data.map(({ board_ids: _boards, note: _note, tags: _tags, ...ad }) => ad),
          total: ads.total,
          page: ads.page,
          page_size: ads.page_size
        }
      })
    }
  }),
  dependencies: [ShareLinksRepo.Default, Workspace.Default, WorkspaceConfig.Default]
}) {}
