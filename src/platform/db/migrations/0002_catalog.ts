import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The research data every route family reads (record shapes: src/ads/records/, src/shop/records/, docs/DATA.md).
 * Each record table has the natural key it is upserted by, a `content_hash` so that re-sending
 * an unchanged record writes nothing, and provenance (`fetched_at`, `source`, `method`).
 * Indexes follow the query shapes of the routes to come: ad filters, full-text ranking,
 * keyset sorts, and period metrics of the short-video shop.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create extension if not exists pg_trgm;

-- Advertisers / pages, per platform (one per ad library).
create table advertisers (
  id bigint generated always as identity primary key,
  platform text not null check (platform in ('social', 'pinboard', 'clipapp', 'search')),
  external_id text not null,
  name text not null,
  domain text,
  verified boolean not null default false,
  followers bigint check (followers >= 0),
  country text,
  niche text,
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (platform, external_id)
);
create index advertisers_name_trgm on advertisers using gin (name gin_trgm_ops);
create index advertisers_domain on advertisers (domain);

-- Hosted online stores (Shopify-like).
create table stores (
  id bigint generated always as identity primary key,
  external_id text not null unique,
  domain text not null,
  name text,
  platform text,
  country text,
  currency text,
  product_count integer check (product_count >= 0),
  created_on date,
  monthly_visits jsonb not null default '[]',
  active_ads integer not null default 0 check (active_ads >= 0),
  best_sellers jsonb not null default '[]',
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null
);
create index stores_domain_trgm on stores using gin (domain gin_trgm_ops);
create index stores_name_trgm on stores using gin (name gin_trgm_ops);

-- Landing pages.
create table landers (
  id bigint generated always as identity primary key,
  external_id text not null unique,
  url text not null,
  final_url text,
  domain text not null,
  title text,
  page_type text not null check (page_type in ('product', 'listicle', 'advertorial', 'quiz', 'home')),
  screenshot_url text,
  platform text,
  offer_price numeric(12, 2) check (offer_price >= 0),
  currency text,
  linked_ads integer not null default 0 check (linked_ads >= 0),
  first_seen timestamptz,
  last_seen timestamptz,
  store_id bigint references stores (id) on delete set null,
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null
);
create index landers_domain_trgm on landers using gin (domain gin_trgm_ops);
create index landers_title_trgm on landers using gin (title gin_trgm_ops);
create index landers_type_seen on landers (page_type, last_seen desc, id desc);
create index landers_store on landers (store_id);

-- Ads of the four libraries in one table.
create table ads (
  id bigint generated always as identity primary key,
  library text not null check (library in ('social', 'pinboard', 'clipapp', 'search')),
  external_id text not null,
  advertiser_id bigint not null references advertisers (id),
  status text not null check (status in ('active', 'inactive')),
  first_seen timestamptz not null,
  last_seen timestamptz not null,
  start_date date,
  end_date date,
  days_running integer not null check (days_running >= 0),
  format text not null check (format in ('image', 'video', 'carousel', 'text', 'dpa')),
  media jsonb not null default '[]',
  body text,
  headline text,
  description text,
  cta_text text,
  cta_type text,
  landing_url text,
  landing_final_url text,
  landing_domain text,
  lander_id bigint references landers (id) on delete set null,
  store_id bigint references stores (id) on delete set null,
  publisher_platforms text[] not null default '{}',
  countries text[] not null default '{}',
  languages text[] not null default '{}',
  -- ranges: a missing range is null, never 0
  impressions_lower bigint,
  impressions_upper bigint,
  spend_lower numeric(14, 2),
  spend_upper numeric(14, 2),
  spend_currency text,
  reach_lower bigint,
  reach_upper bigint,
  -- engagement where the library has it; null where it does not
  likes bigint,
  comments bigint,
  shares bigint,
  views bigint,
  engagement bigint generated always as (coalesce(likes, 0) + coalesce(comments, 0) + coalesce(shares, 0)) stored,
  niche text,
  hook text,
  angle text,
  persona text,
  variant_group text,
  -- search-engine creatives: advertiser verification, display url, regions
  search jsonb,
  -- headline and advertiser name (A), description (B), body (C); kept by the upsert, which
  -- knows the advertiser's name
  search_vector tsvector not null,
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (library, external_id)
);
create index ads_search on ads using gin (search_vector);
create index ads_newest on ads (library, first_seen desc, id desc);
create index ads_longest on ads (library, days_running desc, id desc);
create index ads_engagement on ads (library, engagement desc, id desc);
create index ads_advertiser on ads (advertiser_id, first_seen desc, id desc);
create index ads_countries on ads using gin (countries);
create index ads_languages on ads using gin (languages);
create index ads_platforms on ads using gin (publisher_platforms);
create index ads_niche on ads (library, niche, first_seen desc);
create index ads_variant on ads (variant_group) where variant_group is not null;
create index ads_lander on ads (lander_id) where lander_id is not null;
create index ads_store on ads (store_id) where store_id is not null;

-- Short-video shop analytics. Every row carries its region (ISO country code).
create table shop_categories (
  id bigint generated always as identity primary key,
  region text not null,
  external_id text not null,
  name text not null,
  level smallint not null check (level between 1 and 3),
  parent_id bigint references shop_categories (id),
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (region, external_id)
);
create index shop_categories_parent on shop_categories (parent_id);

create table shop_shops (
  id bigint generated always as identity primary key,
  region text not null,
  external_id text not null,
  name text not null,
  shop_type text not null check (shop_type in ('brand', 'retailer', 'cross-border')),
  rating numeric(3, 2) check (rating between 0 and 5),
  followers bigint check (followers >= 0),
  main_category_id bigint references shop_categories (id),
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (region, external_id)
);
create index shop_shops_name_trgm on shop_shops using gin (name gin_trgm_ops);
create index shop_shops_category on shop_shops (main_category_id);

create table shop_creators (
  id bigint generated always as identity primary key,
  region text not null,
  external_id text not null,
  handle text not null,
  nickname text,
  followers bigint check (followers >= 0),
  engagement_rate numeric(7, 4) check (engagement_rate >= 0),
  category_ids bigint[] not null default '{}',
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (region, external_id)
);
create index shop_creators_handle_trgm on shop_creators using gin (handle gin_trgm_ops);
create index shop_creators_followers on shop_creators (region, followers desc);
create index shop_creators_categories on shop_creators using gin (category_ids);

create table shop_products (
  id bigint generated always as identity primary key,
  region text not null,
  external_id text not null,
  title text not null,
  shop_id bigint not null references shop_shops (id),
  category_id bigint not null references shop_categories (id),
  price_min numeric(12, 2) not null check (price_min >= 0),
  price_max numeric(12, 2) not null check (price_max >= price_min),
  currency text not null,
  commission_rate numeric(5, 4) check (commission_rate between 0 and 1),
  rating numeric(3, 2) check (rating between 0 and 5),
  reviews integer check (reviews >= 0),
  launched_on date,
  images jsonb not null default '[]',
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (region, external_id)
);
create index shop_products_title_trgm on shop_products using gin (title gin_trgm_ops);
create index shop_products_shop on shop_products (shop_id);
create index shop_products_category on shop_products (category_id);
create index shop_products_launched on shop_products (region, launched_on desc);

create table shop_videos (
  id bigint generated always as identity primary key,
  region text not null,
  external_id text not null,
  creator_id bigint not null references shop_creators (id),
  description text,
  duration_seconds integer check (duration_seconds >= 0),
  published_at timestamptz not null,
  is_ad boolean not null default false,
  playback_url text,
  cdn_url text,
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (region, external_id)
);
create index shop_videos_creator on shop_videos (creator_id, published_at desc);
create index shop_videos_published on shop_videos (region, published_at desc);

-- Which products a video shows: with the video's creator this yields a shop's cooperating
-- creators and a creator's cooperating shops.
create table shop_video_products (
  video_id bigint not null references shop_videos (id) on delete cascade,
  product_id bigint not null references shop_products (id) on delete cascade,
  primary key (video_id, product_id)
);
create index shop_video_products_product on shop_video_products (product_id, video_id);

-- Daily metric series, one table per subject; absent values are null, never 0.
create table shop_category_daily (
  category_id bigint not null references shop_categories (id) on delete cascade,
  day date not null,
  units bigint,
  gmv numeric(16, 2),
  products integer,
  primary key (category_id, day)
);
create table shop_shop_daily (
  shop_id bigint not null references shop_shops (id) on delete cascade,
  day date not null,
  units bigint,
  gmv numeric(16, 2),
  followers bigint,
  primary key (shop_id, day)
);
create table shop_creator_daily (
  creator_id bigint not null references shop_creators (id) on delete cascade,
  day date not null,
  followers bigint,
  views bigint,
  likes bigint,
  gmv numeric(16, 2),
  primary key (creator_id, day)
);
create table shop_product_daily (
  product_id bigint not null references shop_products (id) on delete cascade,
  day date not null,
  units bigint,
  gmv numeric(16, 2),
  views bigint,
  primary key (product_id, day)
);
create table shop_video_daily (
  video_id bigint not null references shop_videos (id) on delete cascade,
  day date not null,
  views bigint,
  likes bigint,
  comments bigint,
  shares bigint,
  primary key (video_id, day)
);
-- Ranking by period metrics over a date range reads the days first.
create index shop_product_daily_day on shop_product_daily (day, product_id) include (units, gmv);
create index shop_shop_daily_day on shop_shop_daily (day, shop_id) include (units, gmv);
create index shop_creator_daily_day on shop_creator_daily (day, creator_id) include (views, gmv);
create index shop_video_daily_day on shop_video_daily (day, video_id) include (views);

-- Facts about this installation, such as which demo dataset was loaded.
create table service_state (
  key text primary key,
  value jsonb not null,
  updated_at timestamptz not null
);
`))
