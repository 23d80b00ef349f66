import { Effect, Option } from "effect"
import type { AdView } from "../library/Api.js"
import { InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { AdId, idOf, StoreId, type StoreRow } from "../../kernel/Ids.js"
import {
  defaultPageSize,
  maxAdvertisers,
  maxPageWindow,
  maxWeeks,
  type StoreAdvertiser,
  type StoreCountQuery,
  type StoreCreative,
  type StoreCreativeQuery,
  type StoreListQuery,
  type StoreQuery
} from "./Api.js"
import { type Overview, type StoreAdFilters, StoreAdsRepo } from "./StoreAdsRepo.js"
import type { Page } from "../../kernel/Params.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"


const storeNotFound = new NotFound({ error: "Store not found" })
const creativeNotFound = new NotFound({ error: "Creative not found" })
// The ids a request names, branded on the way in: one that cannot be an id names nothing.
const storeId = idOf(StoreId, storeNotFound)
const creativeId = idOf(AdId, creativeNotFound)

/** How a request names its store, as sent. */
interface StoreName {
  readonly by: "store_id" | "domain"
  readonly value: string
}

/** spec: INTERPRETATIONS G11: exactly one of the two names the store. */
const keyOf = (query: StoreQuery): Effect.Effect<StoreName, InvalidRequest> => {
  if (query.store_id !== undefined && query.domain !== undefined) {
    return Effect.fail(new InvalidRequest({ error: "domain: send store_id or domain, not both" }))
  }
  if (query.store_id !== undefined) return Effect.succeed({ by: "store_id", value: query.store_id })
  if (query.domain !== undefined) return Effect.succeed({ by: "domain", value: query.domain })
  return Effect.fail(new InvalidRequest({ error: "store_id or domain is missing" }))
}

const checkFilters = (filters: StoreAdFilters): Effect.Effect<void, InvalidRequest> =>
  filters.first_seen_from !== undefined && filters.first_seen_to !== undefined && filters.first_seen_from > filters.first_seen_to
    ? Effect.fail(new InvalidRequest({ error: "first_seen_from: must not be after first_seen_to" }))
    : Effect.void

/**
 * A hosted store's search-engine creatives (issue 4): the list, counts, one creative, the
 * overview and the advertisers behind them. Bad input is refused before the store is looked up.
 */
export class StoreAds extends Effect.Service<StoreAds>()("adintel/StoreAds", {
  effect: Effect.gen(function*() {
    const repo = yield* StoreAdsRepo

    /** The store a request names, once its input is known to be good. */
    const storeOf = (name: StoreName): Effect.Effect<StoreRow, NotFound> =>
      Effect.flatMap(
        name.by === "store_id"
          ? Effect.flatMap(storeId(name.value), (value) => repo.store({ by: "store_id", value }))
          : repo.store({ by: "domain", value: name.value }),
        Option.match({ onNone: () => Effect.fail(storeNotFound), onSome: Effect.succeed })
      )

    const found = <A>(creative: Option.Option<A>) =>
      Option.match(creative, { onNone: () => Effect.fail(creativeNotFound), onSome: Effect.succeed })

    return {
      /** P2 page of the store's creatives, newest first. */
      list: Effect.fn("StoreAds.list", serviceSpan)(function*(query: StoreListQuery): Effect.fn.Return<Page<AdView>, InvalidRequest | NotFound> {
        const key = yield* keyOf(query)
        const page = query.page ?? 1
        const pageSize = query.page_size ?? defaultPageSize
        // Offsets cost what they skip: pages stop at a fixed depth (issue 4, "bound the paging").
        if (page * pageSize > maxPageWindow) {
          return yield* Effect.fail(new InvalidRequest({
            error: `page: at most ${Math.floor(maxPageWindow / pageSize)} for page_size ${pageSize}; narrow the list with status, region or first_seen_from/first_seen_to`
          }))
        }
        yield* checkFilters(query)
        const store = yield* storeOf(key)
        const { ads, total } = yield* repo.page(store, query, { limit: pageSize, offset: (page - 1) * pageSize })
        return { data: ads, total, page, page_size: pageSize }
      }),

      count: Effect.fn("StoreAds.count", serviceSpan)(function*(query: StoreCountQuery) {
        const key = yield* keyOf(query)
        yield* checkFilters(query)
        return yield* repo.count(yield* storeOf(key), query)
      }),

      /** One creative of the store; another store's creative is not found. */
      detail: Effect.fn("StoreAds.detail", serviceSpan)((query: StoreCreativeQuery): Effect.Effect<AdView, InvalidRequest | NotFound> =>
        Effect.flatMap(Effect.flatMap(keyOf(query), storeOf), (store) =>
          Effect.flatMap(Effect.flatMap(creativeId(query.id), (id) => repo.find(store, id)), found))),

      creative: Effect.fn("StoreAds.creative", serviceSpan)((query: StoreCreativeQuery): Effect.Effect<StoreCreative, InvalidRequest | NotFound> =>
        Effect.flatMap(Effect.flatMap(keyOf(query), storeOf), (store) =>
          Effect.flatMap(Effect.flatMap(creativeId(query.id), (id) => repo.creative(store, id)), found))),

      overview: Effect.fn("StoreAds.overview", serviceSpan)((query: StoreQuery): Effect.Effect<Overview, InvalidRequest | NotFound> =>
        Effect.flatMap(Effect.flatMap(keyOf(query), storeOf), (store) => repo.overview(store, maxWeeks))),

      advertisers: Effect.fn("StoreAds.advertisers", serviceSpan)((query: StoreQuery): Effect.Effect<ReadonlyArray<StoreAdvertiser>, InvalidRequest | NotFound> =>
        Effect.flatMap(Effect.flatMap(keyOf(query), storeOf), (store) => repo.advertisers(store, maxAdvertisers)))
    }
  }),
  dependencies: [StoreAdsRepo.Default]
}) {}
