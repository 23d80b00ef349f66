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
);

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
);
create index request_ledger_account on request_ledger (account_id, charged_at desc);
create index request_ledger_open on request_ledger (charged_at) where completed_at is null and refunded_at is null;

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

-- The metered gate (G1 steps 1-4) in one statement: resolve the key, check the plan, take a
-- slot of the account's sliding rate window, charge one credit (monthly first, then add-on,
-- G3) and write the ledger row. The account's meter row is locked for the duration, so
-- concurrent calls and replicas see exact counts (G6).
create function gateway_admit(
  p_key_hash bytea,
  p_now timestamptz,
  p_method text,
  p_route text,
  p_rate_limit integer,
  p_window interval,
  out outcome text,
  out account_id uuid,
  out key_id uuid,
  out plan text,
  out charge_id bigint,
  out pool text,
  out used integer,
  out monthly_limit integer,
  out addon_remaining integer,
  out period_start timestamptz,
  out rate_remaining integer,
  out rate_reset_ms bigint,
  out search_used integer,
  out daily_search_limit integer,
  out script_used integer,
  out script_generation_limit integer,
  out script_period_start timestamptz
)
language plpgsql as $fn$
#variable_conflict use_column
declare
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
    outcome := 'unauthorized';
    return;
  end if;
  account_id := k.account_id;
  key_id := k.key_id;
  plan := k.plan;
  if not k.api_access then
    outcome := 'plan_required';
    return;
  end if;

  select * into m from account_meters am where am.account_id = k.account_id for update;

  hits := array(select h from unnest(m.rate_hits) as h where h > p_now - p_window order by h);
  n := cardinality(hits);
  if n >= p_rate_limit then
    outcome := 'rate_limited';
    rate_remaining := 0;
    rate_reset_ms := ceil(extract(epoch from (hits[n - p_rate_limit + 1] + p_window - p_now)) * 1000);
    return;
  end if;
  hits := hits || p_now;
  n := n + 1;
  rate_remaining := p_rate_limit - n;
  rate_reset_ms := ceil(extract(epoch from (hits[1] + p_window - p_now)) * 1000);

  period_start := greatest(m.period_start, meter_period_start(m.period_anchor, p_now));
  used := case when period_start > m.period_start then 0 else m.used end;
  addon_remaining := m.addon_remaining;
  monthly_limit := k.monthly_limit;
  if used < monthly_limit then
    used := used + 1;
    pool := 'monthly';
  elsif addon_remaining > 0 then
    addon_remaining := addon_remaining - 1;
    pool := 'addon';
  end if;

  update account_meters am
     set rate_hits = hits, period_start = gateway_admit.period_start,
         used = gateway_admit.used, addon_remaining = gateway_admit.addon_remaining
   where am.account_id = k.account_id;

  if pool is null then
    outcome := 'credits_exhausted';
  else
    insert into request_ledger (account_id, key_id, method, route, pool, charged_at)
    values (k.account_id, k.key_id, p_method, p_route, pool, p_now)
    returning id into charge_id;
    outcome := 'admitted';
  end if;

  search_used := case when m.search_day = (p_now at time zone 'UTC')::date then m.search_used else 0 end;
  daily_search_limit := k.daily_search_limit;
  script_generation_limit := k.script_generation_limit;
  if m.script_period_start is not null and p_now < m.script_period_start + interval '30 days' then
    script_used := m.script_used;
    script_period_start := m.script_period_start;
  else
    script_used := 0;
  end if;
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
