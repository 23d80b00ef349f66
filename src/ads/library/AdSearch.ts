import { Effect, Option, Schema } from "effect"
import { InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { AdId, idOf } from "../../kernel/Ids.js"
import { ImageFeatures, toSigned64 } from "../../platform/media/ImageFeatures.js"
import { RemoteMedia } from "../../platform/media/RemoteMedia.js"
import { AdSearchRepo, type After, type Ranked } from "./AdSearchRepo.js"
import { AdSimilarity, type SimilarityQuery } from "./AdSimilarity.js"
import type { AdView, MagicAiRequest } from "./Api.js"
import {
  type AdFilters,
  defaultLimit,
  filtersOf,
  type Library,
  libraries as allLibraries,
  type SearchParams,
  type Sort
} from "./Filters.js"
import { ScrollToken, type ScrollState } from "./ScrollToken.js"
import { SimilarityRepo } from "./SimilarityRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** A search as a token carries it, short of where the next page starts. */
type SearchState = Omit<ScrollState, "after" | "filters"> & { readonly filters: AdFilters }

/** P1's answer, before the envelope's `success`. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly scroll_token: string | null
  readonly has_more: boolean
}

/**
 * What a magic-ai token carries besides the filters: what the results are compared with. A
 * text or an image's hashes as given; an ad by its row id (read again on each page: a token
 * stays small, and the source is never among its own results).
 */
const Probe = Schema.Struct({
  text: Schema.optional(Schema.String),
  image: Schema.optional(Schema.Tuple(Schema.String, Schema.String)),
  source: Schema.optional(Schema.String)
})
type Probe = typeof Probe.Type

const magicAi = "magic-ai"
/** The largest image magic-ai fetches. */
export const maxImageBytes = 10 * 1024 * 1024

/** Filters sent again with a token must be the token's own: anything else is another search. */
const sameFilters = (sent: AdFilters, carried: Record<string, unknown>) =>
  Object.keys(sent).length === 0 || JSON.stringify(sent) === JSON.stringify(carried)

const adNotFound = new NotFound({ error: "Ad not found" })
/** The ad a request names, its id branded on the way in: one that cannot be an id names nothing. */
const adId = idOf(AdId, adNotFound)

const notSameSearch = new InvalidRequest({
  error: "scroll_token: the filters sent differ from the token's; send the token alone, or start a new search without it"
})

/**
 * The ad search engine (issue 4): one query for every library, keyset pages with signed
 * tokens, one ad by id, and similar ads.
 */
export class AdSearch extends Effect.Service<AdSearch>()("adintel/AdSearch", {
  effect: Effect.gen(function*() {
    const repo = yield* AdSearchRepo
    const similarRepo = yield* SimilarityRepo
    const tokens = yield* ScrollToken
    const similarity = yield* AdSimilarity
    const media = yield* RemoteMedia
    const images = yield* ImageFeatures

    /** Reads `take = limit + 1` rows and turns them into a page and the next token. */
    const paginate = <A>(rows: ReadonlyArray<Ranked<A>>, state: SearchState): Page<A> => {
      const data = rows.slice(0, state.limit)
      const last = data[data.length - 1]
      const has_more = rows.length > state.limit && last !== undefined
      return {
        data: data.map((row) => row.ad),
        scroll_token: has_more
          ? tokens.sign({ ...state, filters: state.filters as Record<string, unknown>, after: [last.after[0], last.after[1]] })
          : null,
        has_more
      }
    }

    /** The state a request continues (its token), or the one it starts. */
    const stateOf = <E>(search: string, params: SearchParams, start: (filters: AdFilters) => Effect.Effect<SearchState, E>) =>
      Effect.gen(function*() {
        const filters = filtersOf(params)
        if (params.scroll_token === undefined) return { state: yield* start(filters), after: Option.none<After>() }
        const state = yield* tokens.open(params.scroll_token, search)
        if (!sameFilters(filters, state.filters)) return yield* Effect.fail(notSameSearch)
        if (params.limit !== undefined && params.limit !== state.limit) return yield* Effect.fail(notSameSearch)
        return { state: state as SearchState, after: Option.some<After>([state.after[0], state.after[1]]) }
      })

    const sortOf = (params: SearchParams, filters: AdFilters): Effect.Effect<Sort, InvalidRequest> => {
      const sort = params.sort ?? (filters.q === undefined ? "newest" : "relevance")
      return sort === "relevance" && filters.q === undefined
        ? Effect.fail(new InvalidRequest({ error: "sort: relevance needs q" }))
        : Effect.succeed(sort)
    }

    const probeOf = (request: MagicAiRequest, libraries: ReadonlyArray<Library>): Effect.Effect<Probe, InvalidRequest | NotFound> =>
      Effect.gen(function*() {
        const given = (["ad_id", "text", "image_url"] as const).filter((field) => request[field] !== undefined)
        if (given.length !== 1) {
          return yield* Effect.fail(new InvalidRequest({ error: "Send exactly one of ad_id, text or image_url (or the scroll_token of an earlier answer)" }))
        }
        if (request.text !== undefined) return { text: request.text }
        if (request.image_url !== undefined) {
          const fetched = yield* media.fetch(request.image_url, { maxBytes: maxImageBytes, accept: ["image/"] }).pipe(
            Effect.mapError((e) => new InvalidRequest({ error: `image_url: ${e.reason}` }))
          )
          const hashes = yield* images.hash(fetched.bytes).pipe(
            Effect.mapError((e) => new InvalidRequest({ error: `image_url: not an image we can read (${e.reason})` }))
          )
          return { image: [String(toSigned64(hashes.phash)), String(toSigned64(hashes.dhash))] as const }
        }
        const sources = yield* similarRepo.sources({ libraries, externalId: yield* adId(request.ad_id!) })
        if (sources.length === 0) return yield* Effect.fail(adNotFound)
        if (sources.length > 1) {
          return yield* Effect.fail(new InvalidRequest({
            error: `ad_id: ads of several libraries (${sources.map((s) => s.library).join(", ")}) have this id; add library`
          }))
        }
        return { source: sources[0]!.rowId }
      })

    /** What a probe compares with, and which ad to leave out. */
    const queryOf = (probe: Probe): Effect.Effect<SimilarityQuery & { readonly exclude: Option.Option<string> }, NotFound> =>
      probe.source === undefined
        ? Effect.succeed({
          text: Option.fromNullable(probe.text),
          image: Option.map(Option.fromNullable(probe.image), ([phash, dhash]) => ({ phash: BigInt(phash), dhash: BigInt(dhash) })),
          exclude: Option.none()
        })
        : Effect.flatMap(similarRepo.sources({ rowId: probe.source }), ([source]) =>
          source === undefined
            ? Effect.fail(adNotFound)
            : Effect.succeed({ text: Option.fromNullable(source.text), image: source.hashes, exclude: Option.some(source.rowId) }))

    return {
      /**
       * A library route's search: a first page from filters, or the next one from a token.
       * `scope` names the route in its tokens (default: the library), so a route that fixes a
       * filter itself (the brand tracker's advertiser) takes no token of a wider search.
       */
      search: Effect.fn("AdSearch.search", serviceSpan)(function*(library: Library, params: SearchParams, scope: string = library): Effect.fn.Return<Page<AdView>, InvalidRequest> {
        const { after, state } = yield* stateOf(scope, params, (filters) =>
          Effect.map(sortOf(params, filters), (sort) => ({ search: scope, filters, sort, limit: params.limit ?? defaultLimit })))
        const rows = yield* repo.search({
          libraries: [library],
          filters: state.filters,
          sort: state.sort as Sort,
          after,
          take: state.limit + 1
        })
        return paginate(rows, state)
      }),

      /** One ad of a library; an unknown id is a 404 (the metered call keeps its credit, G4). */
      ad: Effect.fn("AdSearch.ad", serviceSpan)((library: Library, id: string) =>
        Effect.flatMap(Effect.flatMap(adId(id), (ad) => repo.find(library, ad)), Option.match({
          onNone: () => Effect.fail(adNotFound),
          onSome: Effect.succeed
        }))),

      /** Similar ads (magic-ai): like an ad, a copy or an image, within the filters. */
      similar: Effect.fn("AdSearch.similar", serviceSpan)(function*(request: MagicAiRequest) {
        // With a token, what to compare with comes from the token: ad_id, text or image_url may be sent again.
        const { ad_id: _id, image_url: _url, text: _text, ...params } = request
        const { after, state } = yield* stateOf(magicAi, params, (filters) =>
          Effect.gen(function*() {
            if (request.sort !== undefined && request.sort !== "relevance") {
              return yield* Effect.fail(new InvalidRequest({ error: "sort: similar ads are ordered by similarity (relevance)" }))
            }
            const probe = yield* probeOf(request, filters.library ?? allLibraries)
            return { search: magicAi, filters, sort: "relevance", limit: params.limit ?? defaultLimit, extra: probe }
          }))
        const probe = yield* Schema.decodeUnknown(Probe)(state.extra).pipe(
          Effect.mapError(() => new InvalidRequest({ error: "scroll_token: invalid or altered token; start again without it" }))
        )
        const { exclude, ...query } = yield* queryOf(probe)
        const rows = yield* similarity.similar(query, {
          libraries: state.filters.library ?? allLibraries,
          filters: state.filters,
          after,
          take: state.limit + 1,
          exclude
        })
        return paginate(rows, state)
      })
    }
  }),
  // AdSimilarity, RemoteMedia and ImageFeatures are chosen by the composition root (and by tests).
  dependencies: [AdSearchRepo.Default, SimilarityRepo.Default, ScrollToken.Default, AdSimilarity.layerConfig, RemoteMedia.Default, ImageFeatures.Default]
}) {}
