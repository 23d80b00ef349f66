import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Browser sessions (spec: Session helpers; INTERPRETATIONS S1): a session id is random and
 * only its SHA-256 hash is stored; it ends after an idle period or at an absolute expiry,
 * whichever comes first. Failed sign-ins are counted per account and per client address, so
 * repeated failures lock further attempts for a while.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table sessions (
  id_hash bytea primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null,
  -- shown once by the next key page (a regenerated key), then cleared
  notice text
);
create index sessions_account on sessions (account_id);
create index sessions_expires on sessions (expires_at);

-- One row per throttled subject: kind 'account' (lower-cased e-mail) or 'address' (client IP).
create table login_failures (
  kind text not null check (kind in ('account', 'address')),
  subject text not null,
  failures integer not null check (failures > 0),
  first_failed_at timestamptz not null,
  locked_until timestamptz,
  primary key (kind, subject)
);
-- Counts whose window has passed are deleted as new failures come in: the table stays as
-- small as the failures of one window.
create index login_failures_first on login_failures (first_failed_at);

-- The usage page and the logs read an account's ledger by route and status too.
create index request_ledger_account_route on request_ledger (account_id, route, charged_at desc);
`))
