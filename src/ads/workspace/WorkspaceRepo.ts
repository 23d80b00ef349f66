import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Data, Effect, Option, Schema } from "effect"
import { type AdView, AdView as AdViewSchema } from "../library/Api.js"
import { AdRow, decodeAdRows, toView, viewColumns } from "../library/AdSearchRepo.js"
import type { BoardBrand, BoardSummary, Folder, SavedAd, AdSort } from "./Api.js"
import { countOf } from "../../platform/db/Rows.js"
import { type AccountId, type AdId, BoardId, BrandId, FolderId } from "../../kernel/Ids.js"

/** A name as written, and the key its uniqueness is checked on (the service folds it). */
export interface Name {
  readonly name: string
  readonly key: string
}

/** The rows of a window of a list. */
export interface Window {
  readonly limit: number
  readonly offset: number
}

/** A brand as the library has it, when it is added to a board. */
export interface BrandRecord {
  readonly id: BrandId
  readonly name: string
  readonly domain: string | null
}

/** An ad a request names, by library and id. */
export interface AdRef {
  readonly library: string
  readonly adId: AdId
}

/** An ad of the library as the searches show it, and the reference it is saved by (its id read back from its row). */
export interface LibraryAd {
  readonly ref: AdRef
  readonly view: AdView
}

/** Which saved ads a list shows. */
export interface SavedAdsFilter {
  readonly board: BoardId | undefined
  readonly tag: string | undefined
  readonly sort: AdSort
}

/** The limits a write is checked against (WorkspaceConfig). */
export interface Limits {
  readonly maxFolders: number
  readonly maxBoardsPerFolder: number
  readonly maxBoardItems: number
}

/** What the default "Saved ads" board is called, and its folder. */
export const defaultBoardName: Name = { name: "Saved ads", key: "saved ads" }

/** Why a write wrote nothing; the service turns each into its answer. */
export class Refusal extends Data.TaggedError("Refusal")<{
  readonly reason:
    | "FolderMissing"
    | "BoardMissing"
    | "FolderTaken"
    | "BoardTaken"
    | "FoldersFull"
    | "BoardsFull"
    | "BoardFull"
    | "HoldsBoards"
  /** HoldsBoards: how many. */
  readonly boards?: number
}> {}

const refuse = (reason: Refusal["reason"], boards?: number) => Effect.fail(new Refusal(boards === undefined ? { reason } : { reason, boards }))
const folderMissing = refuse("FolderMissing")
const boardMissing = refuse("BoardMissing")

/** Infrastructure failures (SQL, a row that does not decode) are defects; refusals stay answers. */
const refusalsOnly = <A, E, R>(effect: Effect.Effect<A, E | Refusal, R>): Effect.Effect<A, Refusal, R> =>
  Effect.catchAll(effect, (e) => (e instanceof Refusal ? Effect.fail(e) : Effect.die(e)))

const FolderRow = Schema.Struct({ id: FolderId, name: Schema.String })
const BoardRow = Schema.Struct({
  id: BoardId,
  name: Schema.String,
  folder_id: FolderId,
  brands_count: Schema.Int,
  ads_count: Schema.Int
})
/** A board as the repository reads it: the contract's `Board` with its ids branded. */
export type BoardRecord = typeof BoardRow.Type
/** A folder as the repository reads it: the contract's `Folder` with its ids branded. */
export interface FolderRecord extends Folder {
  readonly id: FolderId
  readonly boards: ReadonlyArray<BoardSummary & { readonly id: BoardId }>
}

const BrandRow = Schema.Struct({
  id: BrandId,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  active_ads: Schema.Int,
  in_library: Schema.Boolean,
  added_at: Schema.DateFromSelf
})

/** A saved ad's own columns; the library's view of the ad, when it still has it, comes beside them. */
const SavedRow = Schema.Struct({
  saved_snapshot: Schema.parseJson(AdViewSchema),
  saved_note: Schema.NullOr(Schema.String),
  saved_tags: Schema.Array(Schema.String),
  saved_at: Schema.DateFromSelf,
  saved_board_ids: Schema.Array(Schema.String),
  row_id: Schema.NullOr(Schema.String)
})
const decodeSaved = Schema.decodeUnknown(SavedRow)
const decodeAdRow = Schema.decodeUnknown(AdRow)
const decodeAds = decodeAdRows({})

const LibraryRow = Schema.Struct({ library: Schema.String })

/** The number of boards of a folder, of a folder's boards' items... as one `count(*)`. */
const boardColumns = `b.id::text as id, b.name, b.folder_id::text as folder_id,
  (select count(*)::int from workspace_board_brands x where x.board_id = b.id) as brands_count,
  (select count(*)::int from workspace_board_ads x where x.board_id = b.id) as ads_count`

/**
 * The SQL of the workspace: folders, boards, the brands and saved ads on them. Every statement
 * is scoped by the account, so another account's rows are simply not found. Writes that may
 * grow or rename something run one at a time per account (a transaction-scoped advisory lock),
 * so the counts the limits are checked against and the names checked for a clash stay true
 * until the write; the unique indexes stay the last word.
 */
export class WorkspaceRepo extends Effect.Service<WorkspaceRepo>()("adintel/WorkspaceRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** One account's workspace writes, one at a time, in one transaction; a refusal is an answer, anything else a defect. */
    const write = <A, E, R>(account: AccountId, effect: Effect.Effect<A, E | Refusal, R>): Effect.Effect<A, Refusal, R> =>
      sql.withTransaction(Effect.zipRight(sql`select pg_advisory_xact_lock(hashtext('adintel.workspace'), hashtext(${account}))`, effect))
        .pipe(refusalsOnly)

    /** The `id` column of the statement's rows, decoded with `id`. */
    const idsOf = <A>(id: Schema.Schema<A, string>, statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
      SqlSchema.findAll({ Request: Schema.Void, Result: Schema.Struct({ id }), execute: () => statement })(undefined).pipe(Effect.map((rows) => rows.map((r) => r.id)))
    const ids = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) => idsOf(Schema.String, statement)

    const boards = (where: Fragment, order: Fragment = sql`b.position, b.created_at, b.id`) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: BoardRow,
        execute: () => sql`select ${sql.literal(boardColumns)} from workspace_boards b where ${where} order by ${order}`
      })(undefined)

    const boardOf = (account: AccountId, board: BoardId) =>
      Effect.map(boards(sql`b.id = ${board}::uuid and b.account_id = ${account}::uuid`), (rows) => Option.fromNullable(rows[0]))

    const folderOf = (account: AccountId, folder: FolderId) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: FolderRow,
        execute: () => sql`select id::text as id, name from workspace_folders where id = ${folder}::uuid and account_id = ${account}::uuid`
      })(undefined).pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

    /** A folder with its boards, as the tree shows it. */
    const folderView = (account: AccountId, folder: FolderId) =>
      Effect.gen(function*() {
        const row = yield* existingFolder(account, folder)
        const inside = yield* boards(sql`b.folder_id = ${folder}::uuid`)
        return { id: row.id, name: row.name, boards: inside.map(summary) }
      })

    const existingFolder = (account: AccountId, folder: FolderId) =>
      Effect.flatMap(folderOf(account, folder), Option.match({ onNone: () => folderMissing, onSome: Effect.succeed }))

    const existingBoard = (account: AccountId, board: BoardId) =>
      Effect.flatMap(boardOf(account, board), Option.match({ onNone: () => boardMissing, onSome: Effect.succeed }))

    /** The next place at the end of a list. */
    const nextPosition = (table: "workspace_folders" | "workspace_boards", where: Fragment) =>
      countOf(sql`select coalesce(max(position), 0)::int + 1 as n from ${sql(table)} where ${where}`)

    /** Puts `id` at `position` (1-based; past the end is last) and numbers the list 1, 2, ... */
    const reorder = (table: "workspace_folders" | "workspace_boards", where: Fragment, id: string, position: number) =>
      Effect.gen(function*() {
        const order = (yield* ids(sql`select id::text as id from ${sql(table)} where ${where} order by position, created_at, id`))
          .filter((other) => other !== id)
        order.splice(Math.min(position, order.length + 1) - 1, 0, id)
        yield* sql`update ${sql(table)} t set position = v.position
                    from unnest(${order}::uuid[]) with ordinality as v(id, position)
                   where t.id = v.id`
      })

    const folderCount = (account: AccountId) => countOf(sql`select count(*)::int as n from workspace_folders where account_id = ${account}::uuid`)
    const boardCount = (folder: FolderId) => countOf(sql`select count(*)::int as n from workspace_boards where folder_id = ${folder}::uuid`)
    const itemCount = (board: BoardId) =>
      countOf(sql`select ((select count(*) from workspace_board_brands where board_id = ${board}::uuid)
                     + (select count(*) from workspace_board_ads where board_id = ${board}::uuid))::int as n`)
    const folderTaken = (account: AccountId, key: string, except: FolderId | null) =>
      countOf(sql`select count(*)::int as n from workspace_folders
                 where account_id = ${account}::uuid and name_key = ${key} and id is distinct from ${except}::uuid`).pipe(Effect.map((n) => n > 0))
    const boardTaken = (folder: FolderId, key: string, except: BoardId | null) =>
      countOf(sql`select count(*)::int as n from workspace_boards
                 where folder_id = ${folder}::uuid and name_key = ${key} and id is distinct from ${except}::uuid`).pipe(Effect.map((n) => n > 0))

    const insertFolder = (account: AccountId, name: Name, now: Date) =>
      Effect.gen(function*() {
        const position = yield* nextPosition("workspace_folders", sql`account_id = ${account}::uuid`)
        const [id] = yield* idsOf(FolderId, sql`
          insert into workspace_folders (account_id, name, name_key, position, created_at)
          values (${account}::uuid, ${name.name}, ${name.key}, ${position}, ${now}) returning id::text as id`)
        return id!
      })

    const insertBoard = (account: AccountId, folder: FolderId, name: Name, now: Date, isDefault: boolean) =>
      Effect.gen(function*() {
        const position = yield* nextPosition("workspace_boards", sql`folder_id = ${folder}::uuid`)
        const [id] = yield* idsOf(BoardId, sql`
          insert into workspace_boards (account_id, folder_id, name, name_key, position, is_default, created_at)
          values (${account}::uuid, ${folder}::uuid, ${name.name}, ${name.key}, ${position}, ${isDefault}, ${now}) returning id::text as id`)
        return id!
      })

    /** Saved ads left on no board are no longer saved (their note and tags go with them). */
    const dropUnboarded = (account: AccountId) =>
      sql`delete from saved_ads s where s.account_id = ${account}::uuid
            and not exists (select 1 from workspace_board_ads x where x.saved_ad_id = s.id)`

    /**
     * The account's default board ("Saved ads"), made on first use in a folder of that name
     * (an existing board of that name there becomes the default); within the limits like any other.
     */
    const defaultBoard = (account: AccountId, now: Date, limits: Limits) =>
      Effect.gen(function*() {
        const [found] = yield* idsOf(BoardId, sql`select id::text as id from workspace_boards where account_id = ${account}::uuid and is_default`)
        if (found !== undefined) return found
        const [folderFound] = yield* idsOf(FolderId, sql`
          select id::text as id from workspace_folders where account_id = ${account}::uuid and name_key = ${defaultBoardName.key}`)
        let folder = folderFound
        if (folder === undefined) {
          if ((yield* folderCount(account)) >= limits.maxFolders) return yield* refuse("FoldersFull")
          folder = yield* insertFolder(account, defaultBoardName, now)
        }
        const [named] = yield* idsOf(BoardId, sql`
          update workspace_boards set is_default = true
           where folder_id = ${folder}::uuid and name_key = ${defaultBoardName.key} returning id::text as id`)
        if (named !== undefined) return named
        if ((yield* boardCount(folder)) >= limits.maxBoardsPerFolder) return yield* refuse("BoardsFull")
        return yield* insertBoard(account, folder, defaultBoardName, now, true)
      })

    /** The saved ad's row id, saving it (with its snapshot) when the account has not yet. */
    const savedRow = (account: AccountId, { ref, view: ad }: LibraryAd, now: Date) =>
      Effect.gen(function*() {
        const [existing] = yield* ids(sql`
          select id::text as id from saved_ads where account_id = ${account}::uuid and library = ${ref.library} and ad_id = ${ref.adId}`)
        if (existing !== undefined) return existing
        const [inserted] = yield* ids(sql`
          insert into saved_ads (account_id, library, ad_id, snapshot, first_seen, days_running, saved_at)
          values (${account}::uuid, ${ref.library}, ${ref.adId}, ${JSON.stringify(ad)}::jsonb, ${ad.first_seen}::timestamptz, ${ad.days_running}, ${now})
          returning id::text as id`)
        return inserted!
      })

    const savedIdOf = (account: AccountId, ref: AdRef) =>
      ids(sql`select id::text as id from saved_ads where account_id = ${account}::uuid and library = ${ref.library} and ad_id = ${ref.adId}`)
        .pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

    /** The saved ads a filter selects, `s`, joined to the board when there is one (`x`), and to the library's ad (`a`, `adv`). */
    const savedFrom = (account: AccountId, filter: SavedAdsFilter, withAd: boolean) =>
      sql`from saved_ads s
          ${filter.board === undefined ? sql.literal("") : sql`join workspace_board_ads x on x.saved_ad_id = s.id and x.board_id = ${filter.board}::uuid`}
          ${withAd ? sql.literal(adJoin) : sql.literal("")}
          where ${
        sql.and([
          sql`s.account_id = ${account}::uuid`,
          ...(filter.tag === undefined ? [] : [sql`exists (select 1 from unnest(s.tags) t where lower(t) = lower(${filter.tag}))`])
        ])
      }`

    const savedOrder = (filter: SavedAdsFilter) => {
      switch (filter.sort) {
        case "first_seen":
          return sql`coalesce(a.first_seen, s.first_seen) desc, s.seq desc`
        case "days_running":
          return sql`coalesce(a.days_running, s.days_running) desc, s.seq desc`
        case "newest_saved":
          return filter.board === undefined ? sql`s.saved_at desc, s.seq desc` : sql`x.added_at desc, x.seq desc`
      }
    }

    /** The library's view when it still has the ad, else the snapshot; with the account's own fields. */
    const savedAdOf = (row: Record<string, unknown>): Effect.Effect<SavedAd> =>
      Effect.gen(function*() {
        const saved = yield* Effect.orDie(decodeSaved(row))
        const view = saved.row_id === null ? saved.saved_snapshot : toView(yield* Effect.orDie(decodeAdRow(row)))
        return {
          ...view,
          in_library: saved.row_id !== null,
          saved_at: saved.saved_at.toISOString(),
          board_ids: saved.saved_board_ids,
          note: saved.saved_note,
          tags: saved.saved_tags
        }
      })

    return {
      /** The account's folders in order, each with its boards in order. */
      tree: (account: AccountId): Effect.Effect<ReadonlyArray<FolderRecord>> =>
        Effect.gen(function*() {
          const folders = yield* SqlSchema.findAll({
            Request: Schema.Void,
            Result: FolderRow,
            execute: () => sql`select id::text as id, name from workspace_folders where account_id = ${account}::uuid order by position, created_at, id`
          })(undefined)
          const all = yield* boards(sql`b.account_id = ${account}::uuid`)
          return folders.map((f) => ({ ...f, boards: all.filter((b) => b.folder_id === f.id).map(summary) }))
        }).pipe(Effect.orDie),

      board: (account: AccountId, board: BoardId): Effect.Effect<Option.Option<BoardRecord>> => Effect.orDie(boardOf(account, board)),

      createFolder: (account: AccountId, name: Name, now: Date, limits: Limits): Effect.Effect<FolderRecord, Refusal> =>
        write(account, Effect.gen(function*() {
            if (yield* folderTaken(account, name.key, null)) return yield* refuse("FolderTaken")
            if ((yield* folderCount(account)) >= limits.maxFolders) return yield* refuse("FoldersFull")
            return yield* folderView(account, yield* insertFolder(account, name, now))
          })),

      renameFolder: (account: AccountId, folder: FolderId, name: Name): Effect.Effect<FolderRecord, Refusal> =>
        write(account, Effect.gen(function*() {
            yield* existingFolder(account, folder)
            if (yield* folderTaken(account, name.key, folder)) return yield* refuse("FolderTaken")
            yield* sql`update workspace_folders set name = ${name.name}, name_key = ${name.key} where id = ${folder}::uuid`
            return yield* folderView(account, folder)
          })),

      moveFolder: (account: AccountId, folder: FolderId, position: number): Effect.Effect<FolderRecord, Refusal> =>
        write(account, Effect.gen(function*() {
            yield* existingFolder(account, folder)
            yield* reorder("workspace_folders", sql`account_id = ${account}::uuid`, folder, position)
            return yield* folderView(account, folder)
          })),

      /** The number of boards deleted with it. */
      deleteFolder: (account: AccountId, folder: FolderId, force: boolean): Effect.Effect<number, Refusal> =>
        write(account, Effect.gen(function*() {
            yield* existingFolder(account, folder)
            const held = yield* boardCount(folder)
            if (held > 0 && !force) return yield* refuse("HoldsBoards", held)
            yield* sql`delete from workspace_folders where id = ${folder}::uuid`
            yield* dropUnboarded(account)
            return held
          })),

      createBoard: (account: AccountId, folder: FolderId, name: Name, now: Date, limits: Limits): Effect.Effect<BoardRecord, Refusal> =>
        write(account, Effect.gen(function*() {
            yield* existingFolder(account, folder)
            if (yield* boardTaken(folder, name.key, null)) return yield* refuse("BoardTaken")
            if ((yield* boardCount(folder)) >= limits.maxBoardsPerFolder) return yield* refuse("BoardsFull")
            return yield* existingBoard(account, yield* insertBoard(account, folder, name, now, false))
          })),

      renameBoard: (account: AccountId, board: BoardId, name: Name): Effect.Effect<BoardRecord, Refusal> =>
        write(account, Effect.gen(function*() {
            const found = yield* existingBoard(account, board)
            if (yield* boardTaken(found.folder_id, name.key, board)) return yield* refuse("BoardTaken")
            yield* sql`update workspace_boards set name = ${name.name}, name_key = ${name.key} where id = ${board}::uuid`
            return yield* existingBoard(account, board)
          })),

      /** To another folder (at its end unless `position` says where) and/or another place. */
      moveBoard: (
        account: AccountId,
        board: BoardId,
        to: { readonly folder: FolderId | undefined; readonly position: number | undefined },
        limits: Limits
      ): Effect.Effect<BoardRecord, Refusal> =>
        write(account, Effect.gen(function*() {
            const found = yield* existingBoard(account, board)
            const folder = to.folder ?? found.folder_id
            if (folder !== found.folder_id) {
              yield* existingFolder(account, folder)
              const [row] = yield* SqlSchema.findAll({
                Request: Schema.Void,
                Result: Schema.Struct({ name_key: Schema.String }),
                execute: () => sql`select name_key from workspace_boards where id = ${board}::uuid`
              })(undefined)
              if (yield* boardTaken(folder, row!.name_key, board)) return yield* refuse("BoardTaken")
              if ((yield* boardCount(folder)) >= limits.maxBoardsPerFolder) return yield* refuse("BoardsFull")
              const position = yield* nextPosition("workspace_boards", sql`folder_id = ${folder}::uuid`)
              yield* sql`update workspace_boards set folder_id = ${folder}::uuid, position = ${position} where id = ${board}::uuid`
            }
            if (to.position !== undefined) yield* reorder("workspace_boards", sql`folder_id = ${folder}::uuid`, board, to.position)
            return yield* existingBoard(account, board)
          })),

      deleteBoard: (account: AccountId, board: BoardId): Effect.Effect<void, Refusal> =>
        write(account, Effect.gen(function*() {
            const [deleted] = yield* ids(sql`
              delete from workspace_boards where id = ${board}::uuid and account_id = ${account}::uuid returning id::text as id`)
            if (deleted === undefined) return yield* boardMissing
            yield* dropUnboarded(account)
          })),

      /** A social-library advertiser by its id. */
      brand: (id: BrandId): Effect.Effect<Option.Option<BrandRecord>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ id: BrandId, name: Schema.String, domain: Schema.NullOr(Schema.String) }),
          execute: () => sql`select external_id as id, name, domain from advertisers where platform = 'social' and external_id = ${id}`
        })(undefined).pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie),

      /** Idempotent: a brand already on the board is kept as it was. */
      addBrand: (account: AccountId, board: BoardId, brand: BrandRecord, now: Date, limits: Limits): Effect.Effect<void, Refusal> =>
        write(account, Effect.gen(function*() {
            yield* existingBoard(account, board)
            const present = yield* countOf(sql`
              select count(*)::int as n from workspace_board_brands where board_id = ${board}::uuid and brand_id = ${brand.id}`)
            if (present > 0) return
            if ((yield* itemCount(board)) >= limits.maxBoardItems) return yield* refuse("BoardFull")
            yield* sql`insert into workspace_board_brands (board_id, brand_id, name, domain, added_at)
                       values (${board}::uuid, ${brand.id}, ${brand.name}, ${brand.domain}, ${now})`
          })),

      removeBrand: (account: AccountId, board: BoardId, brand: BrandId): Effect.Effect<void, Refusal> =>
        write(
          account,
          Effect.zipRight(existingBoard(account, board), sql`delete from workspace_board_brands where board_id = ${board}::uuid and brand_id = ${brand}`)
        ).pipe(Effect.asVoid),

      /** The libraries in which the account saved an ad with this id. */
      savedLibraries: (account: AccountId, adId: AdId): Effect.Effect<ReadonlyArray<string>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: LibraryRow,
          execute: () => sql`select library from saved_ads where account_id = ${account}::uuid and ad_id = ${adId} order by library`
        })(undefined).pipe(Effect.map((rows) => rows.map((r) => r.library)), Effect.orDie),

      /** The ad by its id in every library that has it, as the searches show it. */
      libraryAds: (adId: AdId): Effect.Effect<ReadonlyArray<LibraryAd>> =>
        sql`
          select ${sql.literal(viewColumns)}
            from ads a join advertisers adv on adv.id = a.advertiser_id
           where a.external_id = ${adId} order by a.library`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeAds),
          Effect.map((rows) => rows.map((row) => ({ ref: { library: row.library, adId: row.external_id }, view: toView(row) })))
        ),

      /**
       * Saves the ad (a snapshot of it, the first time) on a board of the account, or on its
       * default board; idempotent: an ad already on the board is kept as it was.
       */
      saveAd: (account: AccountId, ad: LibraryAd, board: BoardId | undefined, now: Date, limits: Limits): Effect.Effect<void, Refusal> =>
        write(account, Effect.gen(function*() {
            const target = board === undefined ? yield* defaultBoard(account, now, limits) : (yield* existingBoard(account, board)).id
            const saved = yield* savedIdOf(account, ad.ref)
            if (Option.isSome(saved)) {
              const on = yield* countOf(sql`
                select count(*)::int as n from workspace_board_ads where board_id = ${target}::uuid and saved_ad_id = ${saved.value}::uuid`)
              if (on > 0) return
            }
            if ((yield* itemCount(target)) >= limits.maxBoardItems) return yield* refuse("BoardFull")
            const id = Option.isSome(saved) ? saved.value : yield* savedRow(account, ad, now)
            yield* sql`insert into workspace_board_ads (board_id, saved_ad_id, added_at) values (${target}::uuid, ${id}::uuid, ${now})`
          })),

      /** Off one board (an ad left on none is no longer saved), or off every board. Idempotent. */
      unsaveAd: (account: AccountId, ref: AdRef, board: BoardId | undefined): Effect.Effect<void, Refusal> =>
        write(account, Effect.gen(function*() {
            if (board !== undefined) yield* existingBoard(account, board)
            const saved = yield* savedIdOf(account, ref)
            if (Option.isNone(saved)) return
            if (board === undefined) yield* sql`delete from saved_ads where id = ${saved.value}::uuid`
            else {
              yield* sql`delete from workspace_board_ads where board_id = ${board}::uuid and saved_ad_id = ${saved.value}::uuid`
              yield* dropUnboarded(account)
            }
          })),

      /** Sets the note and/or the tags; false when the account has not saved the ad. */
      annotate: (
        account: AccountId,
        ref: AdRef,
        changes: { readonly note?: string | null; readonly tags?: ReadonlyArray<string> }
      ): Effect.Effect<boolean> =>
        Effect.gen(function*() {
          const set = [
            ...(changes.note === undefined ? [] : [sql`note = ${changes.note}`]),
            ...(changes.tags === undefined ? [] : [sql`tags = ${changes.tags}::text[]`])
          ]
          const updated = yield* ids(sql`
            update saved_ads set ${sql.csv(set)}
             where account_id = ${account}::uuid and library = ${ref.library} and ad_id = ${ref.adId} returning id::text as id`)
          return updated.length > 0
        }).pipe(Effect.orDie),

      /** One saved ad of the account, as lists show it. */
      savedAd: (account: AccountId, ref: AdRef): Effect.Effect<Option.Option<SavedAd>> =>
        Effect.gen(function*() {
          const rows = yield* sql<Record<string, unknown>>`
            select ${sql.literal(savedColumns)}, ${sql.literal(viewColumns)}
              from saved_ads s ${sql.literal(adJoin)}
             where s.account_id = ${account}::uuid and s.library = ${ref.library} and s.ad_id = ${ref.adId}`
          return rows[0] === undefined ? Option.none() : Option.some(yield* savedAdOf(rows[0]))
        }).pipe(Effect.orDie),

      /** One P2 page of the account's saved ads (on one board, with one tag), and how many match. */
      savedAds: (
        account: AccountId,
        filter: SavedAdsFilter,
        window: Window
      ): Effect.Effect<{ readonly ads: ReadonlyArray<SavedAd>; readonly total: number }> =>
        Effect.all({
          ads: Effect.flatMap(
            sql<Record<string, unknown>>`
              select ${sql.literal(savedColumns)}, ${sql.literal(viewColumns)}
              ${savedFrom(account, filter, true)}
              order by ${savedOrder(filter)}
              limit ${window.limit} offset ${window.offset}`,
            (rows) => Effect.forEach(rows, savedAdOf)
          ),
          total: countOf(sql`select count(*)::int as n ${savedFrom(account, filter, false)}`)
        }).pipe(Effect.orDie),

      /** One P2 page of a board's brands, latest added first, and how many it has. */
      brands: (board: BoardId, window: Window): Effect.Effect<{ readonly brands: ReadonlyArray<BoardBrand>; readonly total: number }> =>
        Effect.all({
          brands: SqlSchema.findAll({
            Request: Schema.Void,
            Result: BrandRow,
            execute: () => sql`
              select bb.brand_id as id,
                     coalesce(adv.name, bb.name) as name,
                     case when adv.id is null then bb.domain else adv.domain end as domain,
                     case when adv.id is null then 0
                          else (select count(*)::int from ads where advertiser_id = adv.id and status = 'active') end as active_ads,
                     adv.id is not null as in_library,
                     bb.added_at
                from workspace_board_brands bb
                left join advertisers adv on adv.platform = 'social' and adv.external_id = bb.brand_id
               where bb.board_id = ${board}::uuid
               order by bb.added_at desc, bb.seq desc
               limit ${window.limit} offset ${window.offset}`
          })(undefined).pipe(Effect.map((rows) => rows.map((r) => ({ ...r, added_at: r.added_at.toISOString() })))),
          total: countOf(sql`select count(*)::int as n from workspace_board_brands where board_id = ${board}::uuid`)
        }).pipe(Effect.orDie)
    }
  })
}) {}

const summary = (board: BoardRecord): FolderRecord["boards"][number] => ({
  id: board.id,
  name: board.name,
  brands_count: board.brands_count,
  ads_count: board.ads_count
})

/** The library's current record of a saved ad, when it still has it. */
const adJoin = `left join ads a on a.library = s.library and a.external_id = s.ad_id
  left join advertisers adv on adv.id = a.advertiser_id`

/** A saved ad's own columns, named apart from the ad view's. */
const savedColumns = `s.snapshot::text as saved_snapshot, s.note as saved_note, s.tags as saved_tags, s.saved_at,
  array(select x2.board_id::text from workspace_board_ads x2 where x2.saved_ad_id = s.id order by x2.added_at, x2.seq) as saved_board_ids`
