import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Short-video shop autocomplete, summed ahead (src/shop/search/). `shop_suggestions`: each
 * type's distinct strings of a region (case ignored), each as its most popular record, with that
 * popularity: about a tenth of the catalog's rows, since titles repeat across shops.
 * `shop_suggestion_words`: the same strings once per later place a word may start (after a space
 * or ASCII punctuation, or at a character that is no ASCII letter or digit), keyed by the
 * lowercased rest of the string: a later word's prefix is a range of that index like a string's.
 *
 * Suggestions read them whenever `shop_rollup_state` says they hold the 30 days up to yesterday
 * (entity 'suggestions'); an import of shop records or metrics clears that, and suggestions read
 * the catalog tables (0013's indexes) until the next refresh. For the strings starting with a
 * prefix, PostgreSQL picks the cheaper way to each type's most popular: the popular ones first,
 * keeping those that match (a common prefix), or every match by prefix, then the most popular
 * (a rare one). A partition per type gives each type statistics of its own for that choice:
 * "premium" starts many product titles and no shop name.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table shop_suggestions (
  region text not null,
  type text not null,
  text text not null,
  external_id text not null,
  popularity numeric
) partition by list (type);
create table shop_suggestions_products partition of shop_suggestions for values in ('products');
create table shop_suggestions_shops partition of shop_suggestions for values in ('shops');
create table shop_suggestions_creators partition of shop_suggestions for values in ('creators');
create table shop_suggestions_categories partition of shop_suggestions for values in ('categories');
create index shop_suggestions_popular on shop_suggestions (region, type, popularity desc nulls last, external_id collate "C") include (text);
create index shop_suggestions_prefix on shop_suggestions (region, type, lower(text) text_pattern_ops) include (popularity, external_id, text);

create table shop_suggestion_words (
  region text not null,
  type text not null,
  key text not null,
  text text not null,
  external_id text not null,
  popularity numeric
);
create index shop_suggestion_words_key on shop_suggestion_words (region, type, key text_pattern_ops) include (popularity, external_id, text);
`))
