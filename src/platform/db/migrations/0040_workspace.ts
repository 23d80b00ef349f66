import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The workspace (issue 19; INTERPRETATIONS W3, W4): one per account, folders hold boards, a
 * board holds brands and saved ads; share links show one board read-only.
 * - Names are unique per account (folders) or per folder (boards) as `name_key` (the name folded
 *   by the service, so uniqueness does not depend on the database's locale).
 * - A brand on a board is a social-library advertiser by its `external_id`, with its name and
 *   domain as they were when it was added (the board still shows it if the library drops it).
 * - A saved ad is one row per account and ad, with the ad as the library showed it when it was
 *   saved (`snapshot`), a note and tags; `workspace_board_ads` says on which boards it is.
 * - Share links keep only the SHA-256 of their token.
 * - `workspace_share_views`: one row per client address, the views of its current minute.
 * Times come from the service's clock; `seq` orders rows written at the same instant.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table workspace_folders (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 100),
  name_key text not null,
  position integer not null,
  created_at timestamptz not null
);
create unique index workspace_folders_name on workspace_folders (account_id, name_key);
create index workspace_folders_order on workspace_folders (account_id, position);

create table workspace_boards (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  folder_id uuid not null references workspace_folders (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 100),
  name_key text not null,
  position integer not null,
  is_default boolean not null default false,
  created_at timestamptz not null
);
create unique index workspace_boards_name on workspace_boards (folder_id, name_key);
create unique index workspace_boards_default on workspace_boards (account_id) where is_default;
create index workspace_boards_order on workspace_boards (folder_id, position);
create index workspace_boards_account on workspace_boards (account_id);

create table workspace_board_brands (
  board_id uuid not null references workspace_boards (id) on delete cascade,
  brand_id text not null,
  name text not null,
  domain text,
  added_at timestamptz not null,
  seq bigint generated always as identity,
  primary key (board_id, brand_id)
);
create index workspace_board_brands_recent on workspace_board_brands (board_id, added_at desc, seq desc);

create table saved_ads (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  library text not null,
  ad_id text not null,
  snapshot jsonb not null,
  first_seen timestamptz not null,
  days_running integer not null,
  note text check (char_length(note) <= 2000),
  tags text[] not null default '{}' check (cardinality(tags) <= 20),
  saved_at timestamptz not null,
  seq bigint generated always as identity,
  unique (account_id, library, ad_id)
);
create index saved_ads_recent on saved_ads (account_id, saved_at desc, seq desc);

create table workspace_board_ads (
  board_id uuid not null references workspace_boards (id) on delete cascade,
  saved_ad_id uuid not null references saved_ads (id) on delete cascade,
  added_at timestamptz not null,
  seq bigint generated always as identity,
  primary key (board_id, saved_ad_id)
);
create index workspace_board_ads_saved on workspace_board_ads (saved_ad_id);
create index workspace_board_ads_recent on workspace_board_ads (board_id, added_at desc, seq desc);

create table workspace_share_links (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  board_id uuid not null references workspace_boards (id) on delete cascade,
  token_hash text not null unique,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  seq bigint generated always as identity
);
create index workspace_share_links_board on workspace_share_links (board_id, created_at desc);
create index workspace_share_links_account on workspace_share_links (account_id, created_at desc, seq desc);

create table workspace_share_views (
  address text primary key,
  window_start timestamptz not null,
  views integer not null
);
create index workspace_share_views_window on workspace_share_views (window_start);
`))
