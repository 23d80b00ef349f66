import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * OAuth 2.1 for MCP clients (spec: INTERPRETATIONS M3, M4; issue 21): registered public clients,
 * authorization codes, and grants (one connection of a client to an account) holding the current
 * access and refresh tokens. Codes and tokens are stored as SHA-256 digests only. A grant is
 * bound to the account's API key of the moment: when that key is revoked (regenerated), or the
 * account's plan loses API access, the triggers below delete the account's grants and codes, so
 * every token dies at once whoever changed the key or the plan (routes, admin API, CLI).
 * Revoking a grant deletes it: a token of a deleted grant is unknown, which is what a client of
 * a revoked grant must hear. Instants are parameters (the service's Clock), never `now()`.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table oauth_clients (
  id text primary key,
  name text not null,
  redirect_uris text[] not null,
  registered_at timestamptz not null,
  -- first authorized; a client never authorized is forgotten a day after its registration
  authorized_at timestamptz
);
create index oauth_clients_pending on oauth_clients (registered_at) where authorized_at is null;

create table oauth_grants (
  id uuid primary key default gen_random_uuid(),
  -- the order grants were made in (many share an instant)
  seq bigint generated always as identity,
  client_id text not null references oauth_clients (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  key_id uuid not null references api_keys (id) on delete cascade,
  -- RFC 8707: the resource the tokens are for (<base>/mcp)
  resource text not null,
  scope text,
  created_at timestamptz not null,
  refreshed_at timestamptz not null,
  access_hash bytea not null unique,
  access_expires_at timestamptz not null,
  refresh_hash bytea not null unique,
  refresh_expires_at timestamptz not null
);
create index oauth_grants_account on oauth_grants (account_id, seq);
create index oauth_grants_key on oauth_grants (key_id);

-- Refresh tokens already exchanged: presenting one again revokes (deletes) the grant.
create table oauth_used_refresh_tokens (
  token_hash bytea primary key,
  seq bigint generated always as identity,
  grant_id uuid not null references oauth_grants (id) on delete cascade,
  used_at timestamptz not null
);
create index oauth_used_refresh_tokens_grant on oauth_used_refresh_tokens (grant_id, seq);

create table oauth_codes (
  code_hash bytea primary key,
  client_id text not null references oauth_clients (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  key_id uuid not null references api_keys (id) on delete cascade,
  redirect_uri text not null,
  code_challenge text not null,
  resource text not null,
  scope text,
  expires_at timestamptz not null,
  used_at timestamptz,
  -- the grant the code was exchanged for: revoked if the code is presented again (RFC 6749 4.1.2)
  grant_id uuid references oauth_grants (id) on delete set null
);
create index oauth_codes_expires on oauth_codes (expires_at);
create index oauth_codes_key on oauth_codes (key_id);
create index oauth_codes_account on oauth_codes (account_id);

-- A regenerated key ends every grant and code bound to the old one.
create function oauth_end_with_key() returns trigger language plpgsql as $fn$
begin
  delete from oauth_grants where key_id = new.id;
  delete from oauth_codes where key_id = new.id;
  return null;
end
$fn$;
create trigger oauth_end_with_key after update of revoked_at on api_keys
  for each row when (old.revoked_at is null and new.revoked_at is not null)
  execute function oauth_end_with_key();

-- A plan without API access (below Basic) ends every grant and code of the account.
create function oauth_end_with_plan() returns trigger language plpgsql as $fn$
begin
  if not (select api_access from plans where name = new.plan) then
    delete from oauth_grants where account_id = new.id;
    delete from oauth_codes where account_id = new.id;
  end if;
  return null;
end
$fn$;
create trigger oauth_end_with_plan after update of plan on accounts
  for each row when (old.plan is distinct from new.plan)
  execute function oauth_end_with_plan();
`))
