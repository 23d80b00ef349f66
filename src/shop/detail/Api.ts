import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { keysOf } from "../../kernel/Guards.js"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Context, Schema } from "effect"
import { CountryCode } from "../../kernel/Fields.js"
import { metered } from "../../access/gateway/Api.js"
import { Choice, PathId } from "../../kernel/Params.js"
import { List, param } from "../../kernel/QueryParams.js"
import { shopPrefix } from "../account/Api.js"
import { exploreParams, type ExploreParamsOf, type ShopEntity, ShopRecordId } from "../catalog/Entities.js"
import { fieldsOf, queryOf, withoutParams } from "../../kernel/RouteParams.js"
import { entityViews, explorePage, PeriodMetrics, shopPeriodText } from "../catalog/Views.js"
import { contractPart } from "../../kernel/Contract.js"
import { legacy } from "../../access/session/Legacy.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, type McpDecision, noTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * The detail pages of a shop, a creator and a product (issue 5, "Detail routes ... share one
 * pattern"): declared once here, each page is a profile with its period totals, daily series,
 * and lists that are explore searches of another entity tied to this one. Contract only.
 */

/** A list of a detail page: an explore of `entity` with `link` set to the page's record. */
export interface DetailList<E extends ShopEntity = ShopEntity, Link extends string = string> {
  readonly entity: E
  readonly link: Link
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
  // Categories: the ranking lists are POST like the others; summary and history are GETs (`categories/...` paths).
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

type Details = typeof details
type AnyEndpoint = HttpApiEndpoint.HttpApiEndpoint.Any
export type DetailPath = keyof Details
/** The paths that are a page themselves (with `/total`), not only lists. */
export type PagePath = { [P in DetailPath]: Details[P]["page"] extends true ? P : never }[DetailPath]
type ListKey<P extends DetailPath> = keyof Details[P]["lists"] & string

/** The entity a path is about, typed as declared (a property read through a type parameter is typed as any path's). */
export const entityOf = <P extends DetailPath>(path: P): Details[P]["entity"] => details[path].entity
type SeriesKind<P extends DetailPath> = Details[P]["series"][number]

/** What selects a detail page's record and its period. */
const selection = {
  id: param.same(ShopRecordId.annotations({ description: "The record's id" })),
  country: param.same(CountryCode.annotations({ description: "Its region; default: the account's country" })),
  date_from: param.day("First day of the period (UTC); default: 30 days before date_to"),
  date_to: param.day("Last day of the period (UTC); default: yesterday")
}

/** A body that is the record (`id`, required) and some parameters: anything else is refused. */
const recordBody = <P extends typeof selection>(params: P) =>
  Schema.Struct(fieldsOf(params, "body", "id")).annotations({ parseOptions: { onExcessProperty: "error" } })

const Selection = recordBody(selection)

export type DetailSelection = typeof Selection.Type

/** A list's body: the record, and the explore parameters of the listed entity but the link. */
const listBody = <E extends ShopEntity, Link extends string>(entity: E, link: Link) =>
  recordBody(Object.assign(withoutParams<ExploreParamsOf<E, "explore">, Link | "country">(exploreParams(entity, "explore"), link, "country"), selection))

/** What every detail answer about one record over a period starts with (`ShopDetail`'s `about`). */
const aboutFields = { id: Schema.String, date_from: Schema.String, date_to: Schema.String }

export const Totals = Schema.Struct({ ...aboutFields, metrics: PeriodMetrics })
const TotalAnswer = Schema.Struct({ success: Schema.Literal(true), data: Totals })

export const SeriesAnswer = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    ...aboutFields,
    series: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Null) })).annotations({
      description: "One entry per day of the period: `day` and each metric (null: no data)"
    })
  })
})

const tabsOf = (path: DetailPath) => keysOf(details[path].lists)

/** The entity a list of a path shows. */
type ListEntity<P extends DetailPath, K extends ListKey<P>> = Details[P]["lists"][K] extends DetailList<infer E> ? E : never

/** A detail page's lists, each the first page of its own list route (the listed entity's explore page). */
const tabsAnswer = <P extends DetailPath>(path: P) => {
  const fields: Schema.Struct.Fields = Object.fromEntries(
    Object.entries<DetailList>(details[path].lists).map(([tab, list]) => [tab, Schema.optional(explorePage(list.entity))])
  )
  // (`as`: `Object.fromEntries` types its result as a string record; the fields are the lists', tab by tab.)
  return Schema.Struct(fields as { readonly [K in ListKey<P>]: Schema.optional<ReturnType<typeof explorePage<ListEntity<P, K>>>> })
}
/** What `tabs` holds in a detail page's answer. */
export type DetailTabs<P extends DetailPath> = Schema.Schema.Type<ReturnType<typeof tabsAnswer<P>>>

const fullAnswer = <P extends DetailPath>(path: P) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Struct({
      profile: entityViews[details[path].entity],
      tabs: tabsAnswer(path).annotations({ description: "The first page of each list asked for in `tabs`, as its own route answers it" })
    })
  })

const FullBody = (path: DetailPath) =>
  Schema.Struct({
    ...fieldsOf(selection, "body", "id"),
    tabs: Schema.optional(List(Choice(...tabsOf(path))).annotations({ description: `Lists to include: ${tabsOf(path).join(", ")}` }))
  }).annotations({ parseOptions: { onExcessProperty: "error" } })

export const ExtraTotals = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    ...aboutFields,
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
    ...aboutFields,
    videos: Schema.Int,
    creators: Schema.Int,
    views: Schema.Number.annotations({ description: "Views of those videos within the period" }),
    top_creators: Schema.Array(Schema.Struct({ id: Schema.String, handle: Schema.String, videos: Schema.Int, views: Schema.Number }))
  })
})

export const Conversion = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    ...aboutFields,
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

type Dashed<S extends string> = S extends `${infer Head}/${infer Tail}` ? `${Head}-${Dashed<Tail>}` : S
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S
/** Endpoint names: the path with `/` and `-` turned into camel case (`shopDetailProductQueryList`). */
export type EndpointName<Path extends string> = Camel<Dashed<Path>>

export const endpointName = <const Path extends string>(path: Path) =>
  // The expression spells at run time what `EndpointName` spells in the type.
  path.replace(/[-/](\w)/g, (_, c: string) => c.toUpperCase()) as EndpointName<Path>


/** A record's daily series, as its MCP tool says it. */
const dailyMetrics = (who: string, metrics: string) => ({
  title: `A ${who}'s daily metrics`,
  description: `A ${who}'s metrics for every day of the period (${metrics}). ${shopPeriodText}`
})

/** A detail page's list, as its MCP tool says it: an explore search tied to the record. */
const listOf = (title: string, what: string, like: string) => ({
  title,
  description: `${what}, with period metrics; filtered, sorted and paged like ${like}. ${pagePaging}`
})

const otherLists = noTool(
  "The detail pages' other lists, totals and records by id: the page tools, their daily series and main lists cover research; these stay REST routes"
)
const visitCounters = noTool("The dashboard's visit counters")
const productPageOthers = noTool(
  "The product page's other lists, totals and records by id: get_product_detail, its daily series and main lists cover research"
)

/**
 * What each route of the detail pages is to MCP (kernel/McpTool.ts), by endpoint name: the
 * routes are generated from the declaration, and each finds its decision here as it is built. A
 * route without its line is no tool and no "no tool", which test/routes.test.ts names.
 */
const mcpDecisions: Record<string, McpDecision> = {
  shopDetail: tool("get_shop_detail", {
    title: "A short-video shop's detail",
    description:
      `One shop (id from explore_shops) with its period metrics, and the first page of the lists named in tabs: product/queryList (its products), searchNewProducts, searchVideos (videos showing its products), searchCooperativeCreators. ${shopPeriodText}`
  }),
  shopDetailHistory: tool("shop_history", dailyMetrics("shop", "GMV, units, followers...")),
  shopDetailProductQueryList: tool("list_shop_products", listOf("A shop's products", "The products a shop sells", "explore_shop_products")),
  creatorDetail: tool("get_creator_detail", {
    title: "A short-video creator's detail",
    description:
      `One creator (id from explore_shop_creators) with period metrics, and the first page of the lists named in tabs: video/queryList (their videos), searchProducts, searchShopList, searchCooperativeShops. ${shopPeriodText}`
  }),
  creatorDetailHistory: tool("creator_history", dailyMetrics("creator", "views, followers...")),
  creatorDetailVideoQueryList: tool("list_creator_videos", listOf("A creator's videos", "A creator's videos", "explore_shop_videos")),
  productDetail: tool("get_product_detail", {
    title: "A short-video shop product's detail",
    description:
      `One product (id from explore_shop_products or search_shop_products) with period metrics, and the first page of the lists named in tabs: creator/queryList (creators showing it), video/queryList (videos showing it). ${shopPeriodText}`
  }),
  productDetailHistory: tool("product_history", dailyMetrics("product", "GMV, units, views...")),
  productDetailVideoQueryList: tool("list_product_videos", listOf("Videos showing a product", "The videos showing a product", "explore_shop_videos")),
  productDetailCreatorQueryList: tool(
    "list_product_creators",
    listOf("Creators showing a product", "The creators whose videos show a product", "explore_shop_creators")
  ),
  video: tool("get_shop_video", {
    title: "A short video",
    description: `One short video (id from explore_shop_videos) with its period metrics. ${shopPeriodText}`
  }),
  categoriesHierarchy: tool("shop_category_tree", {
    title: "The short-video shop's category tree",
    description: "The category tree of a country (ids, names, levels, children). Use the ids as category_id filters."
  }),
  categoriesSummary: tool("get_shop_category", {
    title: "A shop category's summary",
    description: `One category with its period metrics and how many products, shops, creators and subcategories it holds (it and below). ${shopPeriodText}`
  }),
  shopDetailTotal: otherLists,
  shopDetailSearchNewProducts: otherLists,
  shopDetailSearchVideos: otherLists,
  shopDetailSearchCooperativeCreators: otherLists,
  shopDetailExtraTotal: otherLists,
  shopDetailSalesStrategySelfPromotion: otherLists,
  shopDetailSalesStrategyAffiliate: otherLists,
  creatorDetailTotal: otherLists,
  creatorDetailSearchProducts: otherLists,
  creatorDetailSearchShopList: otherLists,
  creatorDetailSearchCooperativeShops: otherLists,
  shopsProducts: otherLists,
  shopsSummary: otherLists,
  shopsDetails: otherLists,
  shopDetails: otherLists,
  products: otherLists,
  productDetails: otherLists,
  productSalesChannel: otherLists,
  videoMetrics: otherLists,
  videoHistory: otherLists,
  videoProducts: otherLists,
  videoSimilar: otherLists,
  creatorHistory: otherLists,
  categoriesTopProducts: otherLists,
  categoriesTopShops: otherLists,
  categoriesTopCreators: otherLists,
  categoriesLayers: otherLists,
  categoriesHistory: otherLists,
  categoriesSiblings: otherLists,
  productOtherVisits: visitCounters,
  categoryVisitEvents: visitCounters,
  detailVisitEvents: visitCounters,
  productDetailTotal: productPageOthers,
  productDetailSalesTrend: productPageOthers,
  productDetailSearchCreators: productPageOthers,
  productDetailSearchVideos: productPageOthers,
  productDetailCreatorGetConversionRadio: productPageOthers,
  productDetailById: productPageOthers
}

/** A route's decision, as an annotation to add; none when the table lacks its name. */
const decided = (name: string): Context.Context<never> => {
  const decision = mcpDecisions[name]
  return decision === undefined ? Context.empty() : Context.make(McpTool, decision)
}

const post = <const Path extends string>(path: Path) =>
  HttpApiEndpoint.post(endpointName(path), `${shopPrefix}/${path}`).annotateContext(decided(endpointName(path)))
const get = <const Path extends string>(path: Path) =>
  HttpApiEndpoint.get(endpointName(path), `${shopPrefix}/${path}`).annotateContext(decided(endpointName(path)))

const oneOf = (path: DetailPath) => details[path].entity.slice(0, -1)

/** A page and its totals: `<path>` (the profile and the lists asked for) and `<path>/total`. */
const pageEndpoints = <P extends PagePath>(path: P) => [
  post(path).setPayload(FullBody(path)).addError(NotFoundBody).addSuccess(fullAnswer(path))
    .annotate(OpenApi.Summary, `The ${oneOf(path)}'s detail: profile with period metrics, and the lists asked for in \`tabs\``),
  post(`${path}/total`).setPayload(Selection).addError(NotFoundBody).addSuccess(TotalAnswer)
    .annotate(OpenApi.Summary, `The ${oneOf(path)}'s totals over the period, with growth against the period before`)
] as const

const seriesEndpoint = <P extends DetailPath, Kind extends SeriesKind<P>>(path: P, kind: Kind) =>
  post(`${path}/${kind}`).setPayload(Selection).addError(NotFoundBody).addSuccess(SeriesAnswer)
    .annotate(OpenApi.Summary, kind === "history" ? `The ${oneOf(path)}'s daily metrics over the period` : "Daily units and GMV with 7-day averages")

const listEndpoint = <const Path extends string, E extends ShopEntity, Link extends string>(path: Path, list: DetailList<E, Link>) =>
  post(path).setPayload(listBody(list.entity, list.link)).addError(NotFoundBody).addSuccess(explorePage(list.entity))
    .annotate(OpenApi.Summary, `${list.summary}: paged and sorted like ${list.entity}/explore (no daily search)`)

/** Each daily-series endpoint of a path, typed one by one. */
export type SeriesEndpoints<P extends DetailPath> = { [K in SeriesKind<P>]: ReturnType<typeof seriesEndpoint<P, K>> }[SeriesKind<P>]
/** Each list endpoint of a path, typed one by one. */
export type ListEndpoints<P extends DetailPath> = {
  [S in ListKey<P>]: Details[P]["lists"][S] extends DetailList<infer E, infer Link> ? ReturnType<typeof listEndpoint<`${P}/${S}`, E, Link>>
    : never
}[ListKey<P>]

/**
 * The endpoints a path of the declaration generates: the page and its totals (page paths),
 * its series and its lists, in the declaration's order. The loops build one endpoint per
 * series and list; TypeScript types a loop's calls as one endpoint of any of them, so each
 * array is typed by the mapped types above, endpoint by endpoint.
 */
const seriesEndpoints = <P extends DetailPath>(path: P) => {
  const built: ReadonlyArray<AnyEndpoint> = details[path].series.map((kind: SeriesKind<P>) => seriesEndpoint(path, kind))
  return built as ReadonlyArray<SeriesEndpoints<P>>
}
const listEndpoints = <P extends DetailPath>(path: P) => {
  const built: ReadonlyArray<AnyEndpoint> = Object.entries<DetailList>(details[path].lists).map(([sub, list]) => listEndpoint(`${path}/${sub}`, list))
  return built as ReadonlyArray<ListEndpoints<P>>
}
const pageFamily = <P extends PagePath>(path: P) => [...pageEndpoints(path), ...seriesEndpoints(path), ...listEndpoints(path)]

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

/** GET forms: the record (`id`, required) and its period in the query string. */
const RecordQuery = queryOf(selection, "id")
const countryOnly = queryOf({ country: selection.country })
/** A record named in the path: its period in the query string. */
const periodQuery = queryOf({ country: selection.country, date_from: selection.date_from, date_to: selection.date_to })
/** `{ id }` in the path, branded as the record's. */
const RecordPath = Schema.Struct({ id: PathId.pipe(Schema.brand("ShopRecordId")) })

/** The category routes that read rather than rank: GETs with the record in the query string. */
const categoryReads = [
  get("categories/hierarchy").setUrlParams(countryOnly)
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(CategoryNode) }))
    .annotate(OpenApi.Summary, "The category tree of a country"),
  get("categories/layers").setUrlParams(countryOnly)
    .addSuccess(Schema.Struct({
      success: Schema.Literal(true),
      data: Schema.Array(Schema.Struct({ level: Schema.Number, categories: Schema.Array(CategoryRow) }))
    }))
    .annotate(OpenApi.Summary, "The categories of a country grouped by level"),
  get("categories/summary").setUrlParams(RecordQuery).addError(NotFoundBody)
    .addSuccess(Schema.Struct({
      success: Schema.Literal(true),
      data: Schema.Struct({
        profile: entityViews.categories,
        counts: Schema.Struct({ products: Schema.Int, shops: Schema.Int, creators: Schema.Int, subcategories: Schema.Int })
      })
    }))
    .annotate(OpenApi.Summary, "A category with its period metrics and what it holds (it and those below it)"),
  get("categories/history").setUrlParams(RecordQuery).addError(NotFoundBody).addSuccess(SeriesAnswer)
    .annotate(OpenApi.Summary, "A category's daily metrics over the period"),
  get("categories/siblings").setUrlParams(RecordQuery).addError(NotFoundBody)
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(entityViews.categories) }))
    .annotate(OpenApi.Summary, "The other categories under the same parent (the other top categories for a top one), by period GMV")
]

/** A record named in the path, with its period in the query string. */
const inPath = <const Name extends string>(name: Name, path: string) =>
  HttpApiEndpoint.get(name, `${shopPrefix}/${path}`).setPath(RecordPath).setUrlParams(periodQuery).addError(NotFoundBody)
    .annotateContext(decided(name))

const Profile = (entity: ShopEntity) => Schema.Struct({ success: Schema.Literal(true), data: entityViews[entity] })

export const VideoMetrics = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    ...aboutFields,
    metrics: PeriodMetrics,
    engagement_rate: Schema.NullOr(Schema.Number).annotations({ description: "(likes + comments + shares) / views over the period" })
  })
})

export const SalesChannels = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    ...aboutFields,
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
const recordReads = [
  get("shops/summary").setUrlParams(RecordQuery).addError(NotFoundBody)
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: Schema.Struct({ profile: entityViews.shops, totals: ExtraTotals.fields.data }) }))
    .annotate(OpenApi.Summary, "A shop with its period metrics and its products, videos and creators over the period"),
  get("shops/details").setUrlParams(RecordQuery).addError(NotFoundBody).addSuccess(Profile("shops"))
    .annotate(OpenApi.Summary, "A shop's profile with its period metrics"),
  HttpApiEndpoint.get("shopDetails", `${shopPrefix}/shop-details`).annotateContext(decided("shopDetails")).setUrlParams(RecordQuery).addError(NotFoundBody).addSuccess(Profile("shops"))
    .annotate(OpenApi.Summary, "Alias of shops/details"),
  get("products").setUrlParams(queryOf(exploreParams("products", "explore")))
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
    ...aboutFields,
    visits: Schema.Int.annotations({ description: "Times the record's page was opened in the period, by all accounts" }),
    series: Schema.Array(VisitDay).annotations({ description: "Every day of the period: visits, and distinct visiting accounts" })
  })
})
export const OtherVisits = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    ...aboutFields,
    visits: Schema.Int,
    visitors: Schema.Int.annotations({ description: "Distinct accounts that opened the product in the period" }),
    other_products: Schema.Array(Schema.Struct({ id: Schema.String, title: Schema.String, visits: Schema.Int, visitors: Schema.Int })).annotations({
      description: "Products those accounts also opened in the period, most visitors first (at most 10)"
    })
  })
})

const visitTypeParam = param.same(Choice(...visitTypes).annotations({ description: "What kind of record" }))

/** Visit counts: the service counts every opening of a detail page (any account; no account is named). */
const visitReads = [
  get("product-other-visits").setUrlParams(RecordQuery).addError(NotFoundBody).addSuccess(OtherVisits)
    .annotate(OpenApi.Summary, "A product's visits over the period, and the products its visitors also opened"),
  get("category-visit-events").setUrlParams(RecordQuery).addError(NotFoundBody).addSuccess(VisitEvents)
    .annotate(OpenApi.Summary, "A category's page visits per day over the period"),
  get("detail-visit-events")
    .setUrlParams(queryOf({ ...selection, type: visitTypeParam }, "id", "type"))
    .addError(NotFoundBody)
    .addSuccess(VisitEvents)
    .annotate(OpenApi.Summary, "Visits per day of any record's detail page (`type`: product, shop, creator, video, category)")
]

const extras = [
  post("shop-detail/extraTotal").setPayload(Selection).addError(NotFoundBody).addSuccess(ExtraTotals)
    .annotate(OpenApi.Summary, "The shop's products, new products, videos and creators over the period"),
  post("shop-detail/salesStrategy/selfPromotion").setPayload(Selection).addError(NotFoundBody).addSuccess(Strategy)
    .annotate(OpenApi.Summary, "Paid (ad) videos showing the shop's products over the period, and their creators"),
  post("shop-detail/salesStrategy/affiliate").setPayload(Selection).addError(NotFoundBody).addSuccess(Strategy)
    .annotate(OpenApi.Summary, "Organic (affiliate) videos showing the shop's products over the period, and their creators"),
  HttpApiEndpoint.get("productDetails", `${shopPrefix}/product-details`).annotateContext(decided("productDetails"))
    .setUrlParams(RecordQuery).addError(NotFoundBody)
    .addSuccess(fullAnswer("product-detail"))
    .annotate(OpenApi.Summary, "The product's detail (GET form of product-detail)")
]

/** Each path's endpoints, generated from the declaration (`satisfies`: a path added there must be added here). */
const generated = {
  "shop-detail": pageFamily("shop-detail"),
  "creator-detail": pageFamily("creator-detail"),
  "product-detail": pageFamily("product-detail"),
  shops: listEndpoints("shops"),
  categories: listEndpoints("categories")
} satisfies Record<DetailPath, ReadonlyArray<AnyEndpoint>>

/** Everything under `product-detail`: its own family, which also has the legacy `/api/product-detail/*` (S4). */
const productDetail = [
  ...generated["product-detail"],
  post("product-detail/creator/getConversionRadio").setPayload(Selection).addError(NotFoundBody).addSuccess(Conversion)
    .annotate(OpenApi.Summary, "How the product's views convert: units and GMV per 1,000 views, by creator"),
  HttpApiEndpoint.get("productDetailById", `${shopPrefix}/product-detail/:id`).annotateContext(decided("productDetailById"))
    .setPath(RecordPath)
    .setUrlParams(periodQuery)
    .addError(NotFoundBody)
    .addSuccess(fullAnswer("product-detail"))
    .annotate(OpenApi.Summary, "The product's detail by its id in the path")
]

/** A group of these endpoints, typed endpoint by endpoint. */
const groupOf = <const Name extends string, Endpoint extends AnyEndpoint>(name: Name, endpoints: ReadonlyArray<Endpoint>) =>
  endpoints.reduce<HttpApiGroup.HttpApiGroup<Name, Endpoint, never>>((group, endpoint) => group.add(endpoint), HttpApiGroup.make(name).annotateContext(inProduct("Short-video shop")))

export class ShopDetailApi extends metered(
  groupOf("shopDetail", [
    ...generated["shop-detail"],
    ...generated["creator-detail"],
    ...generated.shops,
    ...generated.categories,
    ...extras,
    ...categoryReads,
    ...recordReads,
    ...visitReads
  ])
) {}

export class ShopProductDetailApi extends metered(groupOf("shopProductDetail", productDetail)) {}

/** The name of each list route of a path whose list is of entity `E`. */
export type ListName<P extends DetailPath, E extends ShopEntity> = P extends DetailPath ? {
    [S in ListKey<P>]: Details[P]["lists"][S] extends { readonly entity: E } ? EndpointName<`${P}/${S}`> : never
  }[ListKey<P>]
  : never

/** The name of each daily-series route of a path. */
export type SeriesName<P extends DetailPath> = P extends DetailPath ? EndpointName<`${P}/${SeriesKind<P>}`> : never

/** A list route of the declaration: its endpoint name, its path and the list. */
export interface ListRoute<E extends ShopEntity = ShopEntity> {
  readonly name: string
  readonly path: DetailPath
  readonly list: DetailList<E>
}

/** The list routes of some paths whose list is of `entity`: a family of the same answer (a page of `entity`). */
export const listRoutes = <P extends DetailPath, E extends ShopEntity>(paths: ReadonlyArray<P>, entity: E) => {
  const routes = paths.flatMap((path) =>
    Object.entries<DetailList>(details[path].lists).flatMap(([sub, list]): Array<ListRoute<E>> =>
      list.entity === entity ? [{ name: endpointName(`${path}/${sub}`), path, list: { ...list, entity } }] : []
    )
  )
  // The filter keeps exactly the lists `ListName` names; TypeScript cannot follow a filter into a type.
  return { names: routes.map((route) => route.name as ListName<P, E>), route: (name: string) => routes.find((route) => route.name === name)! }
}

/** The daily-series routes of some paths: their names, and what each is. */
export const seriesRoutes = <P extends DetailPath>(paths: ReadonlyArray<P>) => {
  const routes = paths.flatMap((path) => details[path].series.map((kind: SeriesKind<DetailPath>) => ({ name: endpointName(`${path}/${kind}`), path, kind })))
  // One route per series of the paths, named as `EndpointName` spells them.
  return { names: routes.map((route) => route.name as SeriesName<P>), route: (name: string) => routes.find((route) => route.name === name)! }
}

/**
 * The detail pages' part of the contract (kernel/Contract.ts), also under the browser session's
 * legacy prefix (S4); the product page also at its own legacy path.
 */
export class ShopDetailContract extends contractPart()
  .add(ShopDetailApi)
  .add(legacy(ShopDetailApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(ShopProductDetailApi)
  .add(legacy(ShopProductDetailApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(legacy(ShopProductDetailApi, { from: `${shopPrefix}/product-detail`, to: "/api/product-detail" }, "product-detail"))
{}
