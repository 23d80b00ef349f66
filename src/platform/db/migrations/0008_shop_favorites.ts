import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Short-video shop favorites (issue 5): one row per account and favorited entity. Each entity
 * type has its own foreign key, so deleting a product, shop, creator, video or category (or an
 * account) deletes its favorites with it; exactly the column of the row's type is set, and
 * `entity_id` repeats it so that the key is (account, type, entity row). `seq` orders
 * favorites made at the same instant; `created_at` comes from the service's clock.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table shop_favorites (
  account_id uuid not null references accounts (id) on delete cascade,
  entity_type text not null check (entity_type in ('product', 'shop', 'creator', 'video', 'category')),
  product_id bigint references shop_products (id) on delete cascade,
  shop_id bigint references shop_shops (id) on delete cascade,
  creator_id bigint references shop_creators (id) on delete cascade,
  video_id bigint references shop_videos (id) on delete cascade,
  category_id bigint references shop_categories (id) on delete cascade,
  entity_id bigint generated always as (coalesce(product_id, shop_id, creator_id, video_id, category_id)) stored,
  seq bigint generated always as identity,
  created_at timestamptz not null,
  primary key (account_id, entity_type, entity_id),
  constraint shop_favorites_one_entity check (
    num_nonnulls(product_id, shop_id, creator_id, video_id, category_id) = 1 and
    case entity_type
      when 'product' then product_id is not null
      when 'shop' then shop_id is not null
      when 'creator' then creator_id is not null
      when 'video' then video_id is not null
      when 'category' then category_id is not null
    end
  )
);
create index shop_favorites_newest on shop_favorites (account_id, created_at desc, seq desc);
create index shop_favorites_type_newest on shop_favorites (account_id, entity_type, created_at desc, seq desc);
-- A deleted entity finds its favorites by these.
create index shop_favorites_product on shop_favorites (product_id) where product_id is not null;
create index shop_favorites_shop on shop_favorites (shop_id) where shop_id is not null;
create index shop_favorites_creator on shop_favorites (creator_id) where creator_id is not null;
create index shop_favorites_video on shop_favorites (video_id) where video_id is not null;
create index shop_favorites_category on shop_favorites (category_id) where category_id is not null;
`))
