import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Hosted stores (issue 20; INTERPRETATIONS L3, L4): the store record grows its theme, apps,
 * language and social links; its products and their daily observations (price, inventory)
 * arrive by import; sales are estimated from inventory changes (`units` null where the stock is
 * hidden or restocked: "unknown", never 0) and summed per store and day in `store_daily`.
 * `store_product_images` holds the visual search's features of each product's first image;
 * `seq` grows with every write so replicas load only what changed. `store_tracking` is the
 * per-account tracker.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table stores
  add column theme text,
  add column apps text[] not null default '{}',
  add column language text,
  add column social_links jsonb not null default '[]',
  -- the latest month of monthly_visits: what filters and sorts read
  add column visits_estimate bigint;
create index stores_platform on stores (platform);
create index stores_apps on stores using gin (apps);
create index stores_created_on on stores (created_on desc, id desc);

create table store_products (
  id bigint generated always as identity primary key,
  store_id bigint not null references stores (id) on delete cascade,
  external_id text not null,
  title text not null,
  price numeric(12, 2) check (price >= 0),
  compare_at_price numeric(12, 2) check (compare_at_price >= 0),
  currency text,
  images jsonb not null default '[]',
  url text,
  product_type text,
  published_on date,
  fetched_at timestamptz not null,
  source text not null,
  method text not null,
  content_hash text not null,
  unique (store_id, external_id)
);
create index store_products_title_trgm on store_products using gin (title gin_trgm_ops);
create index store_products_published on store_products (store_id, published_on desc, id desc);

-- One observation of a product a day; inventory null: the store hides its stock.
create table store_product_daily (
  product_id bigint not null references store_products (id) on delete cascade,
  day date not null,
  price numeric(12, 2) check (price >= 0),
  inventory integer,
  -- estimated from the previous day's inventory; null when it cannot be told
  units integer check (units >= 0),
  primary key (product_id, day)
);

create table store_daily (
  store_id bigint not null references stores (id) on delete cascade,
  day date not null,
  -- null: no product of the store shows its stock that day ("unknown")
  units integer,
  revenue numeric(14, 2),
  products integer not null,
  primary key (store_id, day)
);
create index store_daily_day on store_daily (day, store_id) include (units, revenue);

create table store_product_images (
  product_id bigint primary key references store_products (id) on delete cascade,
  store_id bigint not null references stores (id) on delete cascade,
  image_url text not null,
  phash bigint not null,
  dhash bigint not null,
  colour bytea not null,
  seq bigint not null
);
create sequence store_product_images_seq;
create index store_product_images_seq_idx on store_product_images (seq);

create table store_tracking (
  account_id uuid not null references accounts (id) on delete cascade,
  store_id bigint not null references stores (id) on delete cascade,
  tracked_at timestamptz not null,
  seq bigint generated always as identity,
  primary key (account_id, store_id)
);
create index store_tracking_newest on store_tracking (account_id, tracked_at desc, seq desc);
create index store_tracking_store on store_tracking (store_id);
`))
