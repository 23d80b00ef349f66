import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Notifications (issue 19; INTERPRETATIONS W5, W6).
 *
 * - `notifications`: the inbox. `dedupe_key` is what makes every source idempotent: a digest of
 *   one brand for one slot, a credit threshold of one period, one key regeneration; a second
 *   delivery of the same key (another replica, a retried pass) writes nothing. `seq` orders
 *   items created at the same instant.
 * - `digest_prefs`: an account's digest preferences; no row means the defaults.
 * - `notification_digests`: one row per account and digest slot, inserted by the replica that
 *   takes the digest (the primary key is the claim, so no digest is taken twice), with how its
 *   e-mail went (`pending` -> `sending` -> `sent`/`failed`: sent at most once).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table notifications (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  account_id uuid not null references accounts (id) on delete cascade,
  type text not null check (type in ('brand_new_ads', 'credits_used', 'api_key_regenerated')),
  title text not null,
  body text not null,
  data jsonb not null default '{}' check (jsonb_typeof(data) = 'object'),
  created_at timestamptz not null,
  read_at timestamptz,
  dedupe_key text not null,
  unique (account_id, dedupe_key)
);
create index notifications_newest on notifications (account_id, created_at desc, seq desc);
create index notifications_unread on notifications (account_id, created_at desc, seq desc) where read_at is null;

create table digest_prefs (
  account_id uuid primary key references accounts (id) on delete cascade,
  frequency text not null check (frequency in ('off', 'daily', 'weekly')),
  email boolean not null,
  hour_utc smallint not null check (hour_utc between 0 and 23),
  updated_at timestamptz not null
);

create table notification_digests (
  account_id uuid not null references accounts (id) on delete cascade,
  slot timestamptz not null,
  taken_at timestamptz not null,
  brands integer not null default 0 check (brands >= 0),
  ads integer not null default 0 check (ads >= 0),
  email_status text not null default 'none' check (email_status in ('none', 'pending', 'sending', 'sent', 'failed')),
  primary key (account_id, slot)
);
`))
