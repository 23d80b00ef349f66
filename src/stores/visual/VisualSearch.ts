import type { Multipart } from "@effect/platform"
import { ImageDecoding } from "../../platform/media/ImageDecoding.js"
import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import { InvalidRequest } from "../../kernel/Errors.js"
import { RemoteMedia } from "../../platform/media/RemoteMedia.js"
import { StoreCatalog, type StoreFilters } from "../catalog/StoreCatalog.js"
import { checkRanges, filtersOf } from "../explorer/StoreExplorer.js"
import { mediaPrefix } from "../media/MediaPath.js"
import { StoreMedia } from "../media/StoreMedia.js"
import { defaultStores, maxImageBytes, productsPerStore, type VisualMatch, type VisualPayload } from "./Api.js"
import { featuresOf, sniffImage } from "./Features.js"
import { VisualIndex } from "./VisualIndex.js"
import { VisualRepo } from "./VisualRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** Where the photo comes from, and the field a refusal names. */
type Source =
  | { readonly field: "image"; readonly file: Multipart.PersistedFile }
  | { readonly field: "image_url"; readonly url: string }

interface Request {
  readonly source: Source
  readonly filters: StoreFilters
  readonly limit: number
}

const refuse = (error: string) => Effect.fail(new InvalidRequest({ error }))
const sizeRule = `must be at most ${maxImageBytes} bytes (10 MiB)`
const formatRule = "must be a JPEG, PNG, WebP or AVIF image (checked by its content)"

/**
 * The request a body makes (spec: INTERPRETATIONS L4): a JSON body's `image_url` or a form's one
 * `image` file (the contract requires one or the other), and the explorer's filters.
 */
const requestOf = (payload: VisualPayload): Request => {
  if ("image" in payload) {
    const { image, limit, ...rest } = payload
    return { source: { field: "image", file: image[0]! }, filters: filtersOf(rest), limit: limit ?? defaultStores }
  }
  const { image_url, limit, ...rest } = payload
  return { source: { field: "image_url", url: image_url }, filters: filtersOf(rest), limit: limit ?? defaultStores }
}

const hasFilters = (filters: StoreFilters) => Object.keys(filters).length > 0

/**
 * Visual search (issue 20; INTERPRETATIONS L4): the photo is read (an upload from its temporary
 * file, a URL through `RemoteMedia`'s SSRF guard, or this service's own media straight from
 * disk), recognised by content, reduced to features, and matched against every product image
 * of the stores the filters keep (`VisualIndex`). A photo that is not one of the four formats,
 * too large or unreadable is a 400 naming its field; the credit is kept (G4).
 */
export class VisualSearch extends Effect.Service<VisualSearch>()("adintel/VisualSearch", {
  effect: Effect.gen(function*() {
    const catalog = yield* StoreCatalog
    const index = yield* VisualIndex
    const repo = yield* VisualRepo
    const remote = yield* RemoteMedia
    const media = yield* StoreMedia
    const decoding = yield* ImageDecoding

    const bytesOf = (source: Source, base: string): Effect.Effect<Uint8Array, InvalidRequest> => {
      if (source.field === "image") {
        const { path } = source.file
        return Effect.gen(function*() {
          const size = yield* Effect.promise(() => fs.stat(path).then((s) => s.size))
          if (size > maxImageBytes) return yield* refuse(`image: ${sizeRule}`)
          const buffer = yield* Effect.promise(() => fs.readFile(path))
          return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
        })
      }
      // This service's own media (the demo's image URLs) are read from disk, not fetched.
      const own = `${base}${mediaPrefix}`
      if (source.url.startsWith(own)) {
        return Effect.flatMap(media.file(source.url.slice(own.length)), Option.match({
          onNone: () => refuse("image_url: no such media on this service"),
          onSome: (file) => Effect.succeed(file.bytes)
        }))
      }
      return remote.fetch(source.url, { maxBytes: maxImageBytes, accept: ["image/"] }).pipe(
        Effect.map((fetched) => fetched.bytes),
        Effect.mapError((e) => new InvalidRequest({ error: `image_url: ${e.reason}` }))
      )
    }

    return {
      search: Effect.fn("VisualSearch.search", serviceSpan)(function*(payload: VisualPayload, base: string): Effect.fn.Return<ReadonlyArray<VisualMatch>, InvalidRequest> {
        const request = requestOf(payload)
        yield* checkRanges(request.filters)
        const { field } = request.source
        const bytes = yield* bytesOf(request.source, base)
        if (sniffImage(bytes) === undefined) return yield* refuse(`${field}: ${formatRule}`)
        const features = yield* Effect.mapError(Effect.provideService(featuresOf(bytes), ImageDecoding, decoding), (e) => new InvalidRequest({ error: `${field}: ${e.reason}` }))
        const allowed = hasFilters(request.filters) ? yield* catalog.matching(request.filters) : undefined
        const matches = yield* index.search(features, { allowed, limit: request.limit, perStore: productsPerStore })
        const [views, products] = yield* Effect.all([
          catalog.viewsByRow(matches.map((m) => m.store), base),
          repo.products(matches.flatMap((m) => m.products.map((p) => p.product)))
        ])
        const productOf = new Map(products.map((p) => [p.row, p]))
        const image = catalog.productImage(base)
        // A store or product deleted since it was indexed is left out.
        return matches.flatMap((m) => {
          const store = views.get(m.store)
          if (store === undefined) return []
          return [{
            store,
            similarity: m.similarity,
            products: m.products.flatMap(({ product, similarity }) => {
              const found = productOf.get(product)
              return found === undefined
                ? []
                : [{ id: found.id, title: found.title, price: found.price, currency: found.currency, image_url: image(found.image_url), url: found.url, similarity }]
            })
          }]
        })
      })
    }
  }),
  dependencies: [StoreCatalog.Default, VisualIndex.Default, VisualRepo.Default, RemoteMedia.Default, StoreMedia.Default, ImageDecoding.Default]
}) {}
