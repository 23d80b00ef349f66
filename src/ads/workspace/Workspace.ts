import { Clock, Effect, Option, Schema } from "effect"
import { Conflict, InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import type {
  AdLibrary,
  AdSort,
  BoardAdsQuery,
  BoardBrand,
  BoardBrandsQuery,
  MoveBoard,
  RemoveFromBoard,
  SavedAd
} from "./Api.js"
import { WorkspaceConfig } from "./WorkspaceConfig.js"
import { type AdRef, type BoardRecord, type FolderRecord, type LibraryAd, type Name, type Refusal, WorkspaceRepo } from "./WorkspaceRepo.js"
import { type AccountId, AdId, BoardId, BrandId, FolderId, idOf } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** Two names are the same name when they fold alike: the same characters (NFC), whatever their case. */
export const nameOf = (name: string): Name => ({ name, key: name.normalize("NFC").toLowerCase() })

export const folderNotFound = new NotFound({ error: "Folder not found" })
export const boardNotFound = new NotFound({ error: "Board not found" })
export const brandNotFound = new NotFound({ error: "Brand not found" })
export const adNotFound = new NotFound({ error: "Ad not found" })
export const savedAdNotFound = new NotFound({ error: "Saved ad not found" })

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`

/** An ad id in several libraries names no single ad: the field to send is `library` (G11). */
export const ambiguousAd = (id: string, found: ReadonlyArray<string>) =>
  new InvalidRequest({ error: `library is missing: ${id} exists in several libraries (${found.join(", ")})` })

/**
 * The account's workspace (issue 19; INTERPRETATIONS W3, W4): folders hold boards, a board
 * holds brands and saved ads. Another account's folder or board is a 404 like an unknown one.
 * Limits come from `WorkspaceConfig`; each refusal names the limit.
 */
export class Workspace extends Effect.Service<Workspace>()("adintel/Workspace", {
  effect: Effect.gen(function*() {
    const repo = yield* WorkspaceRepo
    const limits = yield* WorkspaceConfig

    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** Each reason a write wrote nothing, as its answer. */
    const refused = (refusal: Refusal): NotFound | Conflict => {
      switch (refusal.reason) {
        case "FolderMissing":
          return folderNotFound
        case "BoardMissing":
          return boardNotFound
        // spec: W3, the duplicate folder's exact message.
        case "FolderTaken":
          return new Conflict({ error: "A folder with this name already exists" })
        case "BoardTaken":
          return new Conflict({ error: "A board with this name already exists in this folder" })
        case "FoldersFull":
          return new Conflict({ error: `Folder limit reached: ${plural(limits.maxFolders, "folder")} per account` })
        case "BoardsFull":
          return new Conflict({ error: `Board limit reached: ${plural(limits.maxBoardsPerFolder, "board")} per folder` })
        case "BoardFull":
          return new Conflict({ error: `Board is full: ${plural(limits.maxBoardItems, "item")} (brands and saved ads) per board` })
        // spec: issue 19, a folder with boards is deleted only with force, naming how many it holds.
        case "HoldsBoards":
          return new Conflict({ error: `This folder holds ${plural(refusal.boards ?? 0, "board")}: send force: true to delete it with them` })
      }
    }
    const answer = <A, R>(effect: Effect.Effect<A, Refusal, R>) => Effect.mapError(effect, refused)
    /** For writes that can only miss their folder or board: any other refusal would be a bug. */
    const missing = <A, R>(effect: Effect.Effect<A, Refusal, R>): Effect.Effect<A, NotFound, R> =>
      Effect.catchAll(effect, (refusal) => {
        const error = refused(refusal)
        return error instanceof NotFound ? Effect.fail(error) : Effect.die(error)
      })

    /** For creating a folder: there is nothing it could miss, only a taken name or a full workspace. */
    const conflicting = <A, R>(effect: Effect.Effect<A, Refusal, R>): Effect.Effect<A, Conflict, R> =>
      Effect.catchAll(effect, (refusal) => {
        const error = refused(refusal)
        return error instanceof Conflict ? Effect.fail(error) : Effect.die(error)
      })

    // The ids a request names, branded on the way in: one that cannot be an id names nothing.
    const folderId = idOf(FolderId, folderNotFound)
    const boardId = idOf(BoardId, boardNotFound)
    const brandId = idOf(BrandId, brandNotFound)
    const adId = idOf(AdId, adNotFound)

    const boardOf = (account: AccountId, board: string): Effect.Effect<BoardRecord, NotFound> =>
      Effect.flatMap(boardId(board), (id) => Effect.flatMap(repo.board(account, id), Option.match({ onNone: () => Effect.fail(boardNotFound), onSome: Effect.succeed })))
    /** The board a request may name, as the account's (its id read back), or none. */
    const someBoardOf = (account: AccountId, board: string | undefined): Effect.Effect<BoardId | undefined, NotFound> =>
      board === undefined ? Effect.succeed(undefined) : Effect.map(boardOf(account, board), (found) => found.id)

    /** The one ad a request names in the library: 404 when none, 400 when the id needs its library. */
    const libraryAd = (ad: string, library: AdLibrary | undefined): Effect.Effect<LibraryAd, NotFound | InvalidRequest> =>
      Effect.flatMap(Effect.flatMap(adId(ad), repo.libraryAds), (found): Effect.Effect<LibraryAd, NotFound | InvalidRequest> => {
        const matching = library === undefined ? found : found.filter(({ ref }) => ref.library === library)
        if (matching.length === 0) return Effect.fail(adNotFound)
        if (matching.length > 1) return Effect.fail(ambiguousAd(ad, matching.map(({ ref }) => ref.library)))
        return Effect.succeed(matching[0]!)
      })

    /**
     * The one ad of the account's saved ads a request names (it may be gone from the library);
     * none when not saved, as for an id that cannot be an ad's.
     */
    const savedRef = (account: AccountId, ad: string, library: AdLibrary | undefined): Effect.Effect<Option.Option<AdRef>, InvalidRequest> =>
      Option.match(Schema.decodeUnknownOption(AdId)(ad), {
        onNone: () => Effect.succeed(Option.none()),
        onSome: (id) =>
          Effect.flatMap(repo.savedLibraries(account, id), (found): Effect.Effect<Option.Option<AdRef>, InvalidRequest> => {
            const matching = library === undefined ? found : found.filter((l) => l === library)
            if (matching.length > 1) return Effect.fail(ambiguousAd(ad, matching))
            return Effect.succeed(Option.map(Option.fromNullable(matching[0]), (l) => ({ library: l, adId: id })))
          })
      })

    const adsPage = (account: AccountId, filter: { board?: BoardId | undefined; tag?: string | undefined; sort?: AdSort | undefined }, request: { page?: number | undefined; page_size?: number | undefined }) => {
      const window = windowOf(request)
      return Effect.map(
        repo.savedAds(account, { board: filter.board, tag: filter.tag, sort: filter.sort ?? "newest_saved" }, window),
        ({ ads, total }) => pageOf(window, ads, total)
      )
    }

    return {
      tree: Effect.fn("Workspace.tree", serviceSpan)((account: AccountId): Effect.Effect<ReadonlyArray<FolderRecord>> => repo.tree(account)),

      createFolder: Effect.fn("Workspace.createFolder", serviceSpan)((account: AccountId, name: string): Effect.Effect<FolderRecord, Conflict> =>
        Effect.flatMap(now, (at) => conflicting(repo.createFolder(account, nameOf(name), at, limits)))),

      renameFolder: Effect.fn("Workspace.renameFolder", serviceSpan)((account: AccountId, folder: string, name: string): Effect.Effect<FolderRecord, NotFound | Conflict> =>
        Effect.flatMap(folderId(folder), (id) => answer(repo.renameFolder(account, id, nameOf(name))))),

      moveFolder: Effect.fn("Workspace.moveFolder", serviceSpan)((account: AccountId, folder: string, position: number): Effect.Effect<FolderRecord, NotFound> =>
        Effect.flatMap(folderId(folder), (id) => missing(repo.moveFolder(account, id, position)))),

      /** How many boards went with it. */
      deleteFolder: Effect.fn("Workspace.deleteFolder", serviceSpan)((account: AccountId, folder: string, force: boolean): Effect.Effect<number, NotFound | Conflict> =>
        Effect.flatMap(folderId(folder), (id) => answer(repo.deleteFolder(account, id, force)))),

      createBoard: Effect.fn("Workspace.createBoard", serviceSpan)((account: AccountId, folder: string, name: string): Effect.Effect<BoardRecord, NotFound | Conflict> =>
        Effect.flatMap(folderId(folder), (id) => Effect.flatMap(now, (at) => answer(repo.createBoard(account, id, nameOf(name), at, limits))))),

      renameBoard: Effect.fn("Workspace.renameBoard", serviceSpan)((account: AccountId, board: string, name: string): Effect.Effect<BoardRecord, NotFound | Conflict> =>
        Effect.flatMap(boardId(board), (id) => answer(repo.renameBoard(account, id, nameOf(name))))),

      moveBoard: Effect.fn("Workspace.moveBoard", serviceSpan)((account: AccountId, { board_id, folder_id, position }: MoveBoard): Effect.Effect<BoardRecord, NotFound | Conflict | InvalidRequest> =>
        folder_id === undefined && position === undefined
          ? Effect.fail(new InvalidRequest({ error: "folder_id or position is missing" }))
          : Effect.gen(function*() {
            const board = yield* boardId(board_id)
            const folder = folder_id === undefined ? undefined : yield* folderId(folder_id)
            return yield* answer(repo.moveBoard(account, board, { folder, position }, limits))
          })),

      deleteBoard: Effect.fn("Workspace.deleteBoard", serviceSpan)((account: AccountId, board: string): Effect.Effect<void, NotFound> =>
        Effect.flatMap(boardId(board), (id) => missing(repo.deleteBoard(account, id)))),

      /** spec: W3 `add-to-board`: idempotent; the brand is a social-library advertiser. */
      addBrand: Effect.fn("Workspace.addBrand", serviceSpan)(function*(account: AccountId, board: string, brand: string): Effect.fn.Return<void, NotFound | Conflict> {
        // The board first: another account's board is a 404 whatever the brand.
        const { id } = yield* boardOf(account, board)
        const found = yield* Effect.flatMap(
          Effect.flatMap(brandId(brand), repo.brand),
          Option.match({ onNone: () => Effect.fail(brandNotFound), onSome: Effect.succeed })
        )
        yield* answer(repo.addBrand(account, id, found, yield* now, limits))
      }),

      /** A brand or a saved ad off a board; idempotent. */
      removeItem: Effect.fn("Workspace.removeItem", serviceSpan)(function*(account: AccountId, { ad_id, board_id, brand_id, library }: RemoveFromBoard): Effect.fn.Return<void, NotFound | InvalidRequest> {
        if (brand_id !== undefined && ad_id !== undefined) return yield* Effect.fail(new InvalidRequest({ error: "brand_id: send brand_id or ad_id, not both" }))
        if (brand_id !== undefined) return yield* missing(repo.removeBrand(account, yield* boardId(board_id), yield* brandId(brand_id)))
        if (ad_id === undefined) return yield* Effect.fail(new InvalidRequest({ error: "brand_id or ad_id is missing" }))
        const { id } = yield* boardOf(account, board_id)
        const ref = yield* savedRef(account, ad_id, library)
        if (Option.isSome(ref)) yield* missing(repo.unsaveAd(account, ref.value, id))
      }),

      boardAds: Effect.fn("Workspace.boardAds", serviceSpan)((account: AccountId, query: BoardAdsQuery): Effect.Effect<Page<SavedAd>, NotFound> =>
        Effect.flatMap(boardOf(account, query.board_id), ({ id }) => adsPage(account, { board: id, sort: query.sort }, query))),

      boardBrands: Effect.fn("Workspace.boardBrands", serviceSpan)((account: AccountId, query: BoardBrandsQuery): Effect.Effect<Page<BoardBrand>, NotFound> =>
        Effect.flatMap(boardOf(account, query.board_id), ({ id }) => {
          const window = windowOf(query)
          return Effect.map(repo.brands(id, window), ({ brands, total }) => pageOf(window, brands, total))
        })),

      board: Effect.fn("Workspace.board", serviceSpan)(boardOf),

      /** The account's saved ads (W4), on one board or all, with one tag or any. */
      savedAds: Effect.fn("Workspace.savedAds", serviceSpan)((
        account: AccountId,
        query: { board_id?: string | undefined; tag?: string | undefined; sort?: AdSort | undefined; page?: number | undefined; page_size?: number | undefined }
      ): Effect.Effect<Page<SavedAd>, NotFound> =>
        Effect.flatMap(someBoardOf(account, query.board_id), (board) => adsPage(account, { board, tag: query.tag, sort: query.sort }, query))),

      /** spec: W4 `save`: on the board, or the default "Saved ads" board; idempotent. */
      save: Effect.fn("Workspace.save", serviceSpan)(function*(account: AccountId, request: { ad_id: string; library?: AdLibrary | undefined; board_id?: string | undefined }): Effect.fn.Return<void, NotFound | Conflict | InvalidRequest> {
        const board = yield* someBoardOf(account, request.board_id)
        const ad = yield* libraryAd(request.ad_id, request.library)
        yield* answer(repo.saveAd(account, ad, board, yield* now, limits))
      }),

      /** spec: W4 `unsave`: off the board, or off every board; idempotent. */
      unsave: Effect.fn("Workspace.unsave", serviceSpan)(function*(account: AccountId, request: { ad_id: string; library?: AdLibrary | undefined; board_id?: string | undefined }): Effect.fn.Return<void, NotFound | InvalidRequest> {
        const board = yield* someBoardOf(account, request.board_id)
        const ref = yield* savedRef(account, request.ad_id, request.library)
        if (Option.isSome(ref)) yield* missing(repo.unsaveAd(account, ref.value, board))
      }),

      /** The note and/or tags of a saved ad; the saved ad afterwards. */
      annotate: Effect.fn("Workspace.annotate", serviceSpan)(function*(
        account: AccountId,
        request: { ad_id: string; library?: AdLibrary | undefined; note?: string | null | undefined; tags?: ReadonlyArray<string> | undefined }
      ): Effect.fn.Return<SavedAd, NotFound | InvalidRequest> {
        if (request.note === undefined && request.tags === undefined) {
          return yield* Effect.fail(new InvalidRequest({ error: "note or tags is missing" }))
        }
        const ref = yield* Effect.flatMap(savedRef(account, request.ad_id, request.library), Option.match({
          onNone: () => Effect.fail(savedAdNotFound),
          onSome: Effect.succeed
        }))
        const note = request.note === undefined ? undefined : request.note === "" ? null : request.note
        const tags = request.tags === undefined ? undefined : distinctTags(request.tags)
        if (!(yield* repo.annotate(account, ref, { ...(note === undefined ? {} : { note }), ...(tags === undefined ? {} : { tags }) }))) {
          return yield* Effect.fail(savedAdNotFound)
        }
        return yield* Effect.flatMap(repo.savedAd(account, ref), Option.match({ onNone: () => Effect.fail(savedAdNotFound), onSome: Effect.succeed }))
      })
    }
  }),
  dependencies: [WorkspaceRepo.Default, WorkspaceConfig.Default]
}) {}

/** Tags as sent, the first of two that differ only in case kept. */
const distinctTags = (tags: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  return tags.filter((tag) => {
    const key = tag.normalize("NFC").toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
