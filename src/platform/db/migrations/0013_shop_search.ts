import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Short-video shop autocomplete (src/shop/search/). Each type's strings in a region, holding
 * what suggestions read (index-only scans):
 * - most popular first (ties by id, byte order): a common prefix is completed from the first
 *   rows of this order;
 * - lowercased, by prefix: a rarer prefix's strings that start with it, whatever its characters;
 * - the trigram indexes of 0002 (titles, shop names, creator handles) find a rarer prefix at a
 *   later word's start.
 * Categories are a few hundred rows and need none of these.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index shop_products_popular on shop_products (region, reviews desc nulls last, external_id collate "C") include (title);
create index shop_shops_popular on shop_shops (region, followers desc nulls last, external_id collate "C") include (name);
create index shop_creators_popular on shop_creators (region, followers desc nulls last, external_id collate "C") include (handle);
create index shop_products_title_prefix on shop_products (region, lower(title) text_pattern_ops) include (title, reviews, external_id);
create index shop_shops_name_prefix on shop_shops (region, lower(name) text_pattern_ops) include (name, followers, external_id);
create index shop_creators_handle_prefix on shop_creators (region, lower(handle) text_pattern_ops) include (handle, followers, external_id);
`))
