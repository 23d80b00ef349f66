import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CountryCode, ExternalId } from "../catalog/records/Fields.js"
import { metered } from "../gateway/Api.js"
import { Choice, IdPath } from "../Params.js"
import { List, type Param, param, paramFields, strictStruct } from "../QueryParams.js"
import { shopPrefix } from "../shop/Api.js"
import { entityViews, explorePage } from "../shopExplore/Api.js"
import { exploreParams, type ShopEntity } from "../shopExplore/Entities.js"

/**
 * The detail pages of a shop, a creator and a product (issue 5, "Detail routes ... share one
 * pattern"): declared once here, each page is a profile with its period totals, daily series,
 * and lists that are explore searches of another entity tied to this one. Contract only.
 */

/** A list of a detail page: an explore of `entity` with `link` set to the page's record. */
export interface DetailList {
  readonly entity: ShopEntity
  readonly link: string
  readonly summary: string
  /** Only records launched within the period (a shop's new products). */
  readonly newInPeriod?: boolean
}

export interface DetailSpec {
  readonly entity: ShopEntity
  readonly lists: Readonly<Record<string, DetailList>>
  /** Daily-series routes (POST): `history`, and `salesTrend` (with 7-day averages). */
  readonly series: ReadonlyArray<"history" | "salesTrend">
  /** Whether the page itself and its `/total` are POST routes (categories have GET forms instead). */
  readonly page: boolean
}

export const details = {
  "shop-detail": {
    entity: "shops",
    page: true,
    series: ["history"],
    lists: {
      "product/queryList": { entity: "products", link: "shop_id", summary: "The shop's products" },
      searchNewProducts: { entity: "products", link: "shop_id", summary: "The shop's products launched within the period", newInPeriod: true },
      searchVideos: { entity: "videos", link: "shop_id", summary: "Videos showing the shop's products" },
      searchCooperativeCreators: { entity: "creators", link: "shop_id", summary: "Creators whose videos show the shop's products" }
    }
  },
  "creator-detail": {
    entity: "creators",
    page: true,
    series: ["history"],
    lists: {
      "video/queryList": { entity: "videos", link: "creator_id", summary: "The creator's videos" },
      searchProducts: { entity: "products", link: "creator_id", summary: "Products shown in the creator's videos" },
      searchShopList: { entity: "shops", link: "creator_id", summary: "Shops whose products the creator's videos show" },
      searchCooperativeShops: { entity: "shops", link: "creator_id", summary: "Shops cooperating with the creator (as searchShopList)" }
    }
  },
  "product-detail": {
    entity: "products",
    page: true,
    series: ["history", "salesTrend"],
    lists: {
      "creator/queryList": { entity: "creators", link: "product_id", summary: "Creators whose videos show the product" },
      searchCreators: { entity: "creators", link: "product_id", summary: "Creators whose videos show the product (as creator/queryList)" },
      "video/queryList": { entity: "videos", link: "product_id", summary: "Videos showing the product" },
      searchVideos: { entity: "videos", link: "product_id", summary: "Videos showing the product (as video/queryList)" }
    }
  },
  // A shop's products also at shops/products.
  shops: {
    entity: "shops",
    page: false,
    series: [],
    lists: { products: { entity: "products", link: "shop_id", summary: "The shop's products" } }
  },
  // Categories: the ranking lists are POST like the others; summary and history are GETs (categories/Api.ts).
  categories: {
    entity: "categories",
    page: false,
    series: [],
    lists: {
      "top-products": { entity: "products", link: "category_id", summary: "Products of the category and those below it, ranked" },
      "top-shops": { entity: "shops", link: "category_id", summary: "Shops whose main category is the category or one below it, ranked" },
      "top-creators": { entity: "creators", link: "category_id", summary: "Creators of the category or one below it, ranked" }
    }
  }
} as const satisfies Record<string, DetailSpec>
export type DetailPath = keyof typeof details

/** What selects a detail page's record and its period. */
const selection = {
  id: param.same(ExternalId.annotations({ description: "The record's id" })),
  country: param.same(CountryCode.annotations({ description: "Its region; default: the account's country" })),
  date_from: param.day("First day of the period (UTC); default: 30 days before date_to"),
  date_to: param.day("Last day of the period (UTC); default: yesterday")
}

const Selection = Schema.Struct({
  ...paramFields(selection, "body"),
  id: selection.id.body
}).annotations({ parseOptions: { onExcessProperty: "error" } }) as unknown as Schema.Schema<DetailSelection, any>

export interface DetailSelection {
  readonly id: string
  readonly country?: string
  readonly date_from?: string
  readonly date_to?: string
}

/** A list's body: the record, and the explore parameters of the listed entity but the link. */
const listBody = (list: DetailList) => {
  const { [list.link]: _link, country: _country, ...rest } = exploreParams(list.entity, "explore")
  return Schema.Struct({
    ...paramFields({ ...rest, ...selection }, "body"),
    id: selection.id.body
  }).annotations({ parseOptions: { onExcessProperty: "error" } }) as unknown as Schema.Schema<DetailSelection & Record<string, unknown>, any>
}

export const Totals = Schema.Struct({
  id: Schema.String,
  date_from: Schema.String,
  date_to: Schema.String,
  metrics: Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.Number) })
})

export const SeriesAnswer = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    series: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Null) })).annotations({
      description: "One entry per day of the period: `day` and each metric (null: no data)"
    })
  })
})

const tabsOf = (path: DetailPath) => Object.keys(details[path].lists) as Array<string>

const fullAnswer = (path: DetailPath) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Struct({
      profile: entityViews[details[path].entity],
      tabs: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
        description: "The first page of each list asked for in `tabs`, as its own route answers it"
      })
    })
  })

const FullBody = (path: DetailPath) =>
  Schema.Struct({
    ...paramFields(selection, "body"),
    id: selection.id.body,
    tabs: Schema.optional(List(Choice(...tabsOf(path))).annotations({ description: `Lists to include: ${tabsOf(path).join(", ")}` }))
  }).annotations({ parseOptions: { onExcessProperty: "error" } }) as unknown as Schema.Schema<DetailSelection & { readonly tabs?: ReadonlyArray<string> }, any>

export const ExtraTotals = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    products: Schema.Int.annotations({ description: "Products the shop sells" }),
    products_with_sales: Schema.Int.annotations({ description: "Of them, with units sold in the period" }),
    new_products: Schema.Int.annotations({ description: "Launched in the period" }),
    videos: Schema.Int.annotations({ description: "Videos published in the period showing its products" }),
    creators: Schema.Int.annotations({ description: "Creators of those videos" })
  })
})

export const Strategy = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    videos: Schema.Int,
    creators: Schema.Int,
    views: Schema.Number.annotations({ description: "Views of those videos within the period" }),
    top_creators: Schema.Array(Schema.Struct({ id: Schema.String, handle: Schema.String, videos: Schema.Int, views: Schema.Number }))
  })
})

export const Conversion = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    views: Schema.Number,
    units: Schema.Number,
    gmv: Schema.Number,
    units_per_1000_views: Schema.NullOr(Schema.Number),
    gmv_per_1000_views: Schema.NullOr(Schema.Number),
    creators: Schema.Array(Schema.Struct({
      id: Schema.String,
      handle: Schema.String,
      videos: Schema.Int,
      views: Schema.Number,
      estimated_units: Schema.NullOr(Schema.Number),
      estimated_gmv: Schema.NullOr(Schema.Number)
    })).annotations({ description: "Creators showing the product, most views first (at most 50); units and GMV estimated from their share of views" })
  })
})

/** Endpoint names: the path with `/` and `-` turned into camel case (`shopDetailProductQueryList`). */
export const endpointName = (path: string) => path.replace(/[-/](\w)/g, (_, c: string) => c.toUpperCase())

const post = (path: string) => HttpApiEndpoint.post(endpointName(path), `${shopPrefix}/${path}`)

const endpointsOf = (path: DetailPath) => {
  const spec: DetailSpec = details[path]
  const one = spec.entity.slice(0, -1)
  const page = spec.page
    ? [
      post(path).setPayload(FullBody(path)).addSuccess(fullAnswer(path))
        .annotate(OpenApi.Summary, `The ${one}'s detail: profile with period metrics, and the lists asked for in \`tabs\``),
      post(`${path}/total`).setPayload(Selection).addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Totals }))
        .annotate(OpenApi.Summary, `The ${one}'s totals over the period, with growth against the period before`)
    ]
    : []
  return [
    ...page,
    ...spec.series.map((series) =>
      post(`${path}/${series}`).setPayload(Selection).addSuccess(SeriesAnswer)
        .annotate(OpenApi.Summary, series === "history" ? `The ${one}'s daily metrics over the period` : "Daily units and GMV with 7-day averages")
    ),
    ...Object.entries(spec.lists).map(([sub, list]) =>
      post(`${path}/${sub}`).setPayload(listBody(list)).addSuccess(explorePage(list.entity))
        .annotate(OpenApi.Summary, `${list.summary}: paged and sorted like ${list.entity}/explore (no daily search)`)
    )
  ]
}

/** A category and those below it (`categories/hierarchy`). */
export interface CategoryNode {
  readonly id: string
  readonly name: string
  readonly level: number
  readonly children: ReadonlyArray<CategoryNode>
}
const CategoryNode: Schema.Schema<CategoryNode> = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  level: Schema.Number,
  children: Schema.Array(Schema.suspend(() => CategoryNode))
}).annotations({ identifier: "CategoryNode" })

const CategoryRow = Schema.Struct({ id: Schema.String, name: Schema.String, level: Schema.Number, parent_id: Schema.NullOr(Schema.String) })

/** GET forms: the parameters in the query string; `id` (when taken) and `required` ones must be there. */
const byQuery = (params: Record<string, Param<any>>, required: ReadonlyArray<string> = []) => {
  const fields = paramFields(params, "query")
  for (const name of ["id", ...required]) if (name in params) fields[name] = params[name]!.query
  return strictStruct(fields, "query") as unknown as Schema.Schema<DetailSelection, any>
}
const countryOnly = strictStruct(paramFields({ country: selection.country }, "query"), "query") as unknown as Schema.Schema<
  { readonly country?: string },
  any
>
const get = (path: string) => HttpApiEndpoint.get(endpointName(path), `${shopPrefix}/${path}`)

/** The category routes that read rather than rank: GETs with the record in the query string. */
const categoryReads: ReadonlyArray<AnyEndpoint> = [
  get("categories/hierarchy").setUrlParams(countryOnly)
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(CategoryNode) }))
    .annotate(OpenApi.Summary, "The category tree of a country"),
  get("categories/layers").setUrlParams(countryOnly)
    .addSuccess(Schema.Struct({
      success: Schema.Literal(true),
      data: Schema.Array(Schema.Struct({ level: Schema.Number, categories: Schema.Array(CategoryRow) }))
    }))
    .annotate(OpenApi.Summary, "The categories of a country grouped by level"),
  get("categories/summary").setUrlParams(byQuery(selection))
    .addSuccess(Schema.Struct({
      success: Schema.Literal(true),
      data: Schema.Struct({
        profile: entityViews.categories,
        counts: Schema.Struct({ products: Schema.Int, shops: Schema.Int, creators: Schema.Int, subcategories: Schema.Int })
      })
    }))
    .annotate(OpenApi.Summary, "A category with its period metrics and what it holds (it and those below it)"),
  get("categories/history").setUrlParams(byQuery(selection)).addSuccess(SeriesAnswer)
    .annotate(OpenApi.Summary, "A category's daily metrics over the period"),
  get("categories/siblings").setUrlParams(byQuery(selection))
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(entityViews.categories) }))
    .annotate(OpenApi.Summary, "The other categories under the same parent (the other top categories for a top one), by period GMV")
]

/** A record named in the path, with its period in the query string. */
const inPath = (name: string, path: string) =>
  HttpApiEndpoint.get(name, `${shopPrefix}/${path}`)
    .setPath(IdPath)
    .setUrlParams(byQuery({ country: selection.country, date_from: selection.date_from, date_to: selection.date_to }))

const Profile = (entity: ShopEntity) => Schema.Struct({ success: Schema.Literal(true), data: entityViews[entity] })

export const VideoMetrics = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    metrics: Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.Number) }),
    engagement_rate: Schema.NullOr(Schema.Number).annotations({ description: "(likes + comments + shares) / views over the period" })
  })
})

export const SalesChannels = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    units: Schema.Number,
    gmv: Schema.Number,
    channels: Schema.Array(Schema.Struct({
      channel: Schema.Literal("ads", "creator_videos"),
      videos: Schema.Int,
      creators: Schema.Int,
      views: Schema.Number
    }))
  })
})

/** Reads of one record: the shop's summary and profile, products, and the records named in the path. */
const recordReads: ReadonlyArray<AnyEndpoint> = [
  get("shops/summary").setUrlParams(byQuery(selection))
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Struct({ profile: entityViews.shops, totals: ExtraTotals.fields.data }) }))
    .annotate(OpenApi.Summary, "A shop with its period metrics and its products, videos and creators over the period"),
  get("shops/details").setUrlParams(byQuery(selection)).addSuccess(Profile("shops"))
    .annotate(OpenApi.Summary, "A shop's profile with its period metrics"),
  HttpApiEndpoint.get("shopDetails", `${shopPrefix}/shop-details`).setUrlParams(byQuery(selection)).addSuccess(Profile("shops"))
    .annotate(OpenApi.Summary, "Alias of shops/details"),
  get("products").setUrlParams(strictStruct(paramFields(exploreParams("products", "explore"), "query"), "query") as unknown as Schema.Schema<Record<string, unknown>, any>)
    .addSuccess(explorePage("products"))
    .annotate(OpenApi.Summary, "A simple product list: products/explore's parameters and answer, no daily search"),
  inPath("productSalesChannel", "products/:id/sales-channel").addSuccess(SalesChannels)
    .annotate(OpenApi.Summary, "How a product is promoted over the period: paid videos and creators' organic videos"),
  inPath("video", "videos/:id").addSuccess(Profile("videos")).annotate(OpenApi.Summary, "A video with its period metrics"),
  inPath("videoMetrics", "videos/:id/metrics").addSuccess(VideoMetrics)
    .annotate(OpenApi.Summary, "A video's views, likes, comments and shares over the period, and its engagement rate"),
  inPath("videoHistory", "videos/:id/history").addSuccess(SeriesAnswer).annotate(OpenApi.Summary, "A video's daily metrics"),
  inPath("videoProducts", "videos/:id/products")
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(entityViews.products) }))
    .annotate(OpenApi.Summary, "The products the video shows, with their period metrics"),
  inPath("videoSimilar", "videos/:id/similar")
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(entityViews.videos) }))
    .annotate(OpenApi.Summary, "Other videos showing a product this one shows, most period views first; at most 20"),
  inPath("creatorHistory", "creators/:id/history").addSuccess(SeriesAnswer).annotate(OpenApi.Summary, "A creator's daily metrics")
]

export const visitTypes = ["product", "shop", "creator", "video", "category"] as const

const VisitDay = Schema.Struct({ day: Schema.String, visits: Schema.Int, visitors: Schema.Int })
export const VisitEvents = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    type: Schema.String,
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    visits: Schema.Int.annotations({ description: "Times the record's page was opened in the period, by all accounts" }),
    series: Schema.Array(VisitDay).annotations({ description: "Every day of the period: visits, and distinct visiting accounts" })
  })
})
export const OtherVisits = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    id: Schema.String,
    date_from: Schema.String,
    date_to: Schema.String,
    visits: Schema.Int,
    visitors: Schema.Int.annotations({ description: "Distinct accounts that opened the product in the period" }),
    other_products: Schema.Array(Schema.Struct({ id: Schema.String, title: Schema.String, visits: Schema.Int, visitors: Schema.Int })).annotations({
      description: "Products those accounts also opened in the period, most visitors first (at most 10)"
    })
  })
})

const visitTypeParam = param.same(Choice(...visitTypes).annotations({ description: "What kind of record" }))

/** Visit counts: the service counts every opening of a detail page (any account; no account is named). */
const visitReads: ReadonlyArray<AnyEndpoint> = [
  get("product-other-visits").setUrlParams(byQuery(selection)).addSuccess(OtherVisits)
    .annotate(OpenApi.Summary, "A product's visits over the period, and the products its visitors also opened"),
  get("category-visit-events").setUrlParams(byQuery(selection)).addSuccess(VisitEvents)
    .annotate(OpenApi.Summary, "A category's page visits per day over the period"),
  get("detail-visit-events")
    .setUrlParams(byQuery({ ...selection, type: visitTypeParam }, ["type"]) as unknown as Schema.Schema<
      DetailSelection & { readonly type: (typeof visitTypes)[number] },
      any
    >)
    .addSuccess(VisitEvents)
    .annotate(OpenApi.Summary, "Visits per day of any record's detail page (`type`: product, shop, creator, video, category)")
]

type AnyEndpoint = HttpApiEndpoint.HttpApiEndpoint.Any
type SomeGroup<Name extends string> = HttpApiGroup.HttpApiGroup<Name, AnyEndpoint>

const extras: ReadonlyArray<AnyEndpoint> = [
  post("shop-detail/extraTotal").setPayload(Selection).addSuccess(ExtraTotals)
    .annotate(OpenApi.Summary, "The shop's products, new products, videos and creators over the period"),
  post("shop-detail/salesStrategy/selfPromotion").setPayload(Selection).addSuccess(Strategy)
    .annotate(OpenApi.Summary, "Paid (ad) videos showing the shop's products over the period, and their creators"),
  post("shop-detail/salesStrategy/affiliate").setPayload(Selection).addSuccess(Strategy)
    .annotate(OpenApi.Summary, "Organic (affiliate) videos showing the shop's products over the period, and their creators"),
  HttpApiEndpoint.get("productDetails", `${shopPrefix}/product-details`)
    .setUrlParams(byQuery(selection))
    .addSuccess(fullAnswer("product-detail"))
    .annotate(OpenApi.Summary, "The product's detail (GET form of product-detail)")
]

/** Everything under `product-detail`: its own family, which also has the legacy `/api/product-detail/*` (S4). */
const productDetail: ReadonlyArray<AnyEndpoint> = [
  ...endpointsOf("product-detail"),
  post("product-detail/creator/getConversionRadio").setPayload(Selection).addSuccess(Conversion)
    .annotate(OpenApi.Summary, "How the product's views convert: units and GMV per 1,000 views, by creator"),
  HttpApiEndpoint.get("productDetailById", `${shopPrefix}/product-detail/:id`)
    .setPath(IdPath)
    .setUrlParams(byQuery({ country: selection.country, date_from: selection.date_from, date_to: selection.date_to }))
    .addSuccess(fullAnswer("product-detail"))
    .annotate(OpenApi.Summary, "The product's detail by its id in the path")
]

/** Endpoints built in loops: the group is typed as holding some endpoints; handlers are attached by name. */
const groupOf = <const Name extends string>(name: Name, endpoints: ReadonlyArray<AnyEndpoint>) =>
  endpoints.reduce(
    (group: SomeGroup<Name>, endpoint) => group.add(endpoint) as SomeGroup<Name>,
    HttpApiGroup.make(name) as unknown as SomeGroup<Name>
  )

const otherDetails = (Object.keys(details) as Array<DetailPath>).filter((path) => path !== "product-detail")

export class ShopDetailApi extends metered(
  groupOf("shopDetail", [...otherDetails.flatMap(endpointsOf), ...extras, ...categoryReads, ...recordReads, ...visitReads])
) {}

export class ShopProductDetailApi extends metered(groupOf("shopProductDetail", productDetail)) {}

/** The endpoint names of a group, for attaching handlers by name. */
export const endpointNamesOf = (group: { readonly endpoints: Record<string, unknown> }) => Object.keys(group.endpoints)
