import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Accounts, plans, API keys, the meters and the request ledger, plus the two functions the
 * metered path calls: `gateway_admit` (key, plan, rate window and charge in one round trip,
 * spec: INTERPRETATIONS G1) and `gateway_refund`. Every instant is a parameter: time comes
 * from the service's Clock, never from `now()`.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table plans (
  name text primary key,
  rank smallint not null unique,
  api_access boolean not null,
  monthly_credits integer not null check (monthly_credits >= 0),
  -- null: unlimited (Premium, spec: Limits "Daily search quota")
  daily_search_limit integer check (daily_search_limit >= 0),
  script_generation_limit integer not null check (script_generation_limit >= 0)
);

insert into plans (name, rank, api_access, monthly_credits, daily_search_limit, script_generation_limit) values
  ('free', 0, false, 0, 10, 0),
  ('basic', 1, true, 1000, 50, 10),
  ('pro', 2, true, 5000, 200, 50),
  ('premium', 3, true, 20000, null, 200);

create table accounts (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  password_hash text,
  plan text not null references plans (name),
  -- per-account overrides of the plan's numbers; null means "as the plan says"
  monthly_limit integer check (monthly_limit >= 0),
  daily_search_limit integer check (daily_search_limit >= 0),
  script_generation_limit integer check (script_generation_limit >= 0),
  created_at timestamptz not null
);
create unique index accounts_email_key on accounts (lower(email));

-- The counters the metered path changes on every call, in one narrow row per account.
create table account_meters (
  account_id uuid primary key references accounts (id) on delete cascade,
  -- monthly periods start at period_anchor + n months (spec: INTERPRETATIONS G3)
  period_anchor timestamptz not null,
  period_start timestamptz not null,
  used integer not null default 0 check (used >= 0),
  addon_remaining integer not null default 0 check (addon_remaining >= 0),
  -- accepted requests of the sliding rate window, oldest first (G5)
  rate_hits timestamptz[] not null default '{}',
  -- daily short-video searches, per UTC day (G7)
  search_day date,
  search_used integer not null default 0 check (search_used >= 0),
  -- script generations, per rolling 30-day period (G8)
  script_period_start timestamptz,
  script_used integer not null default 0 check (script_used >= 0)
) with (fillfactor = 50); -- room on the page keeps the per-call update HOT

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  key_hash bytea not null unique,
  key_sealed bytea not null,
  created_at timestamptz not null,
  revoked_at timestamptz
);
create unique index api_keys_one_live_key on api_keys (account_id) where revoked_at is null;

-- One row per charged call (G4): written with the charge, completed after the answer.
create table request_ledger (
  id bigint generated always as identity primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  key_id uuid not null references api_keys (id) on delete cascade,
  method text not null,
  route text not null,
  pool text not null check (pool in ('monthly', 'addon')),
  charged_at timestamptz not null,
  completed_at timestamptz,
  status smallint,
  latency_ms integer,
  refunded_at timestamptz
) with (fillfactor = 90);
-- Completion and refund change no indexed column, so they are HOT updates.
create index request_ledger_account on request_ledger (account_id, charged_at desc);
create index request_ledger_charged on request_ledger (charged_at);

-- Start of the monthly period containing p_now: p_anchor + n calendar months, counted in UTC
-- from the anchor (never from the previous start) so month ends do not drift.
create function meter_period_start(p_anchor timestamptz, p_now timestamptz) returns timestamptz
language plpgsql immutable as $fn$
declare
  a timestamp := p_anchor at time zone 'UTC';
  t timestamp := p_now at time zone 'UTC';
  n integer;
begin
  if t <= a then
    return p_anchor;
  end if;
  n := (extract(year from t)::integer - extract(year from a)::integer) * 12
     + (extract(month from t)::integer - extract(month from a)::integer);
  if a + make_interval(months => n) > t then
    n := n - 1;
  end if;
  return (a + make_interval(months => n)) at time zone 'UTC';
end
$fn$;

-- What the metered gate decides for one call, and the account's meters right after it.
create type gateway_verdict as (
  outcome text,
  account_id uuid,
  key_id uuid,
  plan text,
  charge_id bigint,
  pool text,
  used integer,
  monthly_limit integer,
  addon_remaining integer,
  period_start timestamptz,
  rate_remaining integer,
  rate_reset_ms bigint,
  search_used integer,
  daily_search_limit integer,
  script_used integer,
  script_generation_limit integer,
  script_period_start timestamptz
);

-- The metered gate (G1 steps 1-4) for one call: resolve the key, check the plan, take a slot
-- of the account's sliding rate window, charge one credit (monthly first, then add-on, G3)
-- and write the ledger row. The account's meter row is locked until the transaction ends,
-- so concurrent calls and replicas see exact counts (G6).
create function gateway_admit(
  p_key_hash bytea,
  p_now timestamptz,
  p_method text,
  p_route text,
  p_rate_limit integer,
  p_window interval
) returns gateway_verdict
language plpgsql as $fn$
declare
  v gateway_verdict;
  k record;
  m record;
  hits timestamptz[];
  n integer;
begin
  select ak.id as key_id, a.id as account_id, a.plan, p.api_access,
         coalesce(a.monthly_limit, p.monthly_credits) as monthly_limit,
         coalesce(a.daily_search_limit, p.daily_search_limit) as daily_search_limit,
         coalesce(a.script_generation_limit, p.script_generation_limit) as script_generation_limit
    into k
    from api_keys ak
    join accounts a on a.id = ak.account_id
    join plans p on p.name = a.plan
   where ak.key_hash = p_key_hash and ak.revoked_at is null;
  if not found then
    v.outcome := 'unauthorized';
    return v;
  end if;
  v.account_id := k.account_id;
  v.key_id := k.key_id;
  v.plan := k.plan;
  if not k.api_access then
    v.outcome := 'plan_required';
    return v;
  end if;

  select * into m from account_meters am where am.account_id = k.account_id for update;

  hits := array(select h from unnest(m.rate_hits) as h where h > p_now - p_window order by h);
  n := cardinality(hits);
  if n >= p_rate_limit then
    v.outcome := 'rate_limited';
    v.rate_remaining := 0;
    v.rate_reset_ms := ceil(extract(epoch from (hits[n - p_rate_limit + 1] + p_window - p_now)) * 1000);
    return v;
  end if;
  hits := hits || p_now;
  n := n + 1;
  v.rate_remaining := p_rate_limit - n;
  v.rate_reset_ms := ceil(extract(epoch from (hits[1] + p_window - p_now)) * 1000);

  v.period_start := greatest(m.period_start, meter_period_start(m.period_anchor, p_now));
  v.used := case when v.period_start > m.period_start then 0 else m.used end;
  v.addon_remaining := m.addon_remaining;
  v.monthly_limit := k.monthly_limit;
  if v.used < v.monthly_limit then
    v.used := v.used + 1;
    v.pool := 'monthly';
  elsif v.addon_remaining > 0 then
    v.addon_remaining := v.addon_remaining - 1;
    v.pool := 'addon';
  end if;

  update account_meters
     set rate_hits = hits, period_start = v.period_start, used = v.used, addon_remaining = v.addon_remaining
   where account_id = k.account_id;

  if v.pool is null then
    v.outcome := 'credits_exhausted';
  else
    insert into request_ledger (account_id, key_id, method, route, pool, charged_at)
    values (k.account_id, k.key_id, p_method, p_route, v.pool, p_now)
    returning id into v.charge_id;
    v.outcome := 'admitted';
  end if;

  v.search_used := case when m.search_day = (p_now at time zone 'UTC')::date then m.search_used else 0 end;
  v.daily_search_limit := k.daily_search_limit;
  v.script_generation_limit := k.script_generation_limit;
  if m.script_period_start is not null and p_now < m.script_period_start + interval '30 days' then
    v.script_used := m.script_used;
    v.script_period_start := m.script_period_start;
  else
    v.script_used := 0;
  end if;
  return v;
end
$fn$;

-- Several admissions in one statement, one transaction, one commit: the service sends the
-- calls that arrived while its previous batches were in flight. Items run one after the
-- other exactly as single calls would, in key-hash order so that concurrent batches (of this
-- or another replica) lock meter rows in the same order and never deadlock.
create function gateway_admit_many(
  p_key_hashes bytea[],
  p_nows timestamptz[],
  p_methods text[],
  p_routes text[],
  p_rate_limit integer,
  p_window interval
) returns table (ord integer, verdict gateway_verdict)
language plpgsql as $fn$
declare
  i integer;
begin
  for i in
    select item.ord from unnest(p_key_hashes) with ordinality as item(key_hash, ord) order by item.key_hash, item.ord
  loop
    ord := i;
    verdict := gateway_admit(p_key_hashes[i], p_nows[i], p_methods[i], p_routes[i], p_rate_limit, p_window);
    return next;
  end loop;
end
$fn$;

-- Returns a charge's credit to the pool it came from (G3, G4). Idempotent: a charge is
-- refunded at most once, whoever asks (the handler's exit, the completion, the sweeper). A
-- monthly credit from a period that has since ended is not carried into the new one.
create function gateway_refund(p_charge bigint, p_now timestamptz) returns boolean
language plpgsql as $fn$
declare
  r record;
begin
  update request_ledger
     set refunded_at = p_now, completed_at = coalesce(completed_at, p_now)
   where id = p_charge and refunded_at is null
  returning account_id, pool, charged_at into r;
  if not found then
    return false;
  end if;
  if r.pool = 'addon' then
    update account_meters set addon_remaining = addon_remaining + 1 where account_id = r.account_id;
  else
    update account_meters set used = greatest(used - 1, 0)
     where account_id = r.account_id and period_start <= r.charged_at;
  end if;
  return true;
end
$fn$;
`))
