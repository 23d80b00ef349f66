import { Clock, Effect } from "effect"
import { InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import { type Favorite, type FavoriteCheck, type FavoritesQuery, type FavoriteTarget, type FavoriteType, maxFavorites } from "./Api.js"
import { type EntityRow, ShopFavoritesRepo } from "./ShopFavoritesRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

const typeNames: Record<FavoriteType, string> = {
  product: "Product",
  shop: "Shop",
  creator: "Creator",
  video: "Video",
  category: "Category"
}

const notFound = (type: FavoriteType) => new NotFound({ error: `${typeNames[type]} not found` })

/** G11: an id in several regions names no single entity: the field to send is `region`. */
const ambiguous = (id: string, rows: ReadonlyArray<EntityRow>) =>
  new InvalidRequest({ error: `region is missing: ${id} exists in several regions (${rows.map((r) => r.region).join(", ")})` })

const full = new InvalidRequest({ error: `Favorites are limited to ${maxFavorites} per account` })

const byId = (rows: ReadonlyArray<EntityRow>) => {
  const found = new Map<string, Array<EntityRow>>()
  for (const row of rows) found.set(row.externalId, [...(found.get(row.externalId) ?? []), row])
  return found
}

/**
 * The account's short-video shop favorites (issue 5): an entity is named by its type, its
 * imported id and, when that id exists in several regions, its region. Favorites never touch
 * the daily search quota (G7); the key side pays its 1 credit at the gateway.
 */
export class ShopFavorites extends Effect.Service<ShopFavorites>()("adintel/ShopFavorites", {
  effect: Effect.gen(function*() {
    const repo = yield* ShopFavoritesRepo

    /** The one entity a request names: 404 when there is none, 400 when the id needs its region. */
    const entityOf = ({ id, region, type }: FavoriteTarget): Effect.Effect<EntityRow, NotFound | InvalidRequest> =>
      Effect.flatMap(repo.find(type, [id], region), (rows): Effect.Effect<EntityRow, NotFound | InvalidRequest> => {
        if (rows.length === 0) return Effect.fail(notFound(type))
        if (rows.length > 1) return Effect.fail(ambiguous(id, rows))
        return Effect.succeed(rows[0]!)
      })

    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    return {
      /** P2 page of the account's favorites, newest first. */
      list: Effect.fn("ShopFavorites.list", serviceSpan)((account: AccountId, query: FavoritesQuery): Effect.Effect<Page<Favorite>> => {
        const window = windowOf(query)
        return Effect.map(repo.page(account, query.type, window), ({ favorites, total }) => pageOf(window, favorites, total))
      }),

      /** The state afterwards: true when it was added, false when it was removed. */
      toggle: Effect.fn("ShopFavorites.toggle", serviceSpan)(function*(account: AccountId, target: FavoriteTarget): Effect.fn.Return<boolean, NotFound | InvalidRequest> {
        const entity = yield* entityOf(target)
        const outcome = yield* repo.toggle(account, target.type, entity.row, yield* now, maxFavorites)
        if (outcome === "full") return yield* Effect.fail(full)
        return outcome !== "removed"
      }),

      /** Idempotent: a favorite already there is kept as it was (its date included). */
      add: Effect.fn("ShopFavorites.add", serviceSpan)(function*(account: AccountId, target: FavoriteTarget): Effect.fn.Return<true, NotFound | InvalidRequest> {
        const entity = yield* entityOf(target)
        const outcome = yield* repo.add(account, target.type, entity.row, yield* now, maxFavorites)
        if (outcome === "full") return yield* Effect.fail(full)
        return true as const
      }),

      /** Idempotent: removing what is not a favorite is not an error; an unknown entity is. */
      remove: Effect.fn("ShopFavorites.remove", serviceSpan)((account: AccountId, target: FavoriteTarget): Effect.Effect<false, NotFound | InvalidRequest> =>
        Effect.flatMap(entityOf(target), (entity) => Effect.as(repo.remove(account, target.type, entity.row), false as const))),

      /**
       * One `id`: whether it is a favorite (an unknown entity is a 404, as elsewhere). Many
       * `ids`: each id sent mapped to whether it is a favorite; one naming no entity is false,
       * so a page of results still renders when one of them has left the catalog.
       */
      check: Effect.fn("ShopFavorites.check", serviceSpan)(function*(
        account: AccountId,
        { id, ids, region, type }: FavoriteCheck
      ): Effect.fn.Return<boolean | Record<string, boolean>, NotFound | InvalidRequest> {
        if (id !== undefined && ids !== undefined) {
          return yield* Effect.fail(new InvalidRequest({ error: "ids: send id or ids, not both" }))
        }
        if (id !== undefined) {
          const entity = yield* entityOf({ type, id, region })
          return (yield* repo.favorited(account, type, [entity.row])).size > 0
        }
        if (ids === undefined) return yield* Effect.fail(new InvalidRequest({ error: "id is missing" }))
        const found = byId(yield* repo.find(type, [...new Set(ids)], region))
        const several = ids.find((externalId) => (found.get(externalId)?.length ?? 0) > 1)
        if (several !== undefined) return yield* Effect.fail(ambiguous(several, found.get(several)!))
        const favorites = yield* repo.favorited(account, type, [...found.values()].map(([entity]) => entity!.row))
        return Object.fromEntries(ids.map((externalId) => {
          const entity = found.get(externalId)?.[0]
          return [externalId, entity !== undefined && favorites.has(entity.row)]
        }))
      })
    }
  }),
  dependencies: [ShopFavoritesRepo.Default]
}) {}
