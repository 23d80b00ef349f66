import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Issue 16, the metered path on several replicas.
 *
 * Charges know who holds them: each service process registers a row in `gateway_replicas` and
 * beats its heartbeat; each charge records its replica. The sweeper refunds the open charges of
 * replicas that stopped beating (or stopped cleanly), never a call that is still running; a
 * charge open for `LEDGER_SWEEP_AFTER` is refunded whatever its replica does.
 *
 * One lock order for everything that locks an account's rows (admission batches and the sweeper
 * deadlocked when they locked the same accounts in different orders):
 *
 * 1. An account's lock is its `account_meters` row. A transaction that changes more than one row
 *    of an account (meters, `accounts`, `api_keys`, `request_ledger`) takes that row first, FOR
 *    UPDATE, then the others. Nothing takes FOR UPDATE on `accounts` or `api_keys` rows.
 * 2. A transaction locks one account, except an admission batch, which takes its accounts in
 *    ascending account id (the keys are resolved once, up front, so each account has one place).
 * 3. Several `request_ledger` rows are locked in ascending id. The sweeper refunds one account per
 *    transaction and takes its ledger rows SKIP LOCKED: a row being completed or refunded right
 *    now is not abandoned, and the sweeper never waits for it.
 * 4. A statement that changes one meter row and nothing else (a daily search, an add-on purchase)
 *    holds one lock and waits for nothing while holding it: it needs no order.
 * 5. A transcript generation holds its record's advisory lock, then takes the meter row
 *    (`takeScriptGeneration`) last, just before its commit.
 *
 * `gateway_admit` (0001) is replaced by `gateway_admit_key`, which takes the key already resolved;
 * `gateway_refund` keeps its signature and takes the meter row before the ledger row.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- The service processes on this database. A replica beats beat_at while it runs and sets
-- stopped_at when it stops cleanly; the sweeper forgets it once its open charges are refunded.
create table gateway_replicas (
  id uuid primary key,
  started_at timestamptz not null,
  beat_at timestamptz not null,
  stopped_at timestamptz
);

-- Null for charges of earlier versions: only LEDGER_SWEEP_AFTER refunds those. Not indexed, so
-- completions and refunds stay HOT updates; the sweeper reads a dead replica's charges through
-- request_ledger_charged, from a bounded instant.
alter table request_ledger add column replica_id uuid;

drop function gateway_admit(bytea, timestamptz, text, text, integer, interval);

-- The metered gate (G1 steps 2-4) for one call whose key gateway_admit_many resolved (null: no
-- live key). The rules are 0001's gateway_admit; the key is re-read by id, so a key revoked since
-- is refused.
create function gateway_admit_key(
  p_key_id uuid,
  p_now timestamptz,
  p_method text,
  p_route text,
  p_rate_limit integer,
  p_window interval,
  p_replica uuid
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
   where ak.id = p_key_id and ak.revoked_at is null;
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
    insert into request_ledger (account_id, key_id, method, route, pool, charged_at, replica_id)
    values (k.account_id, k.key_id, p_method, p_route, v.pool, p_now, p_replica)
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

-- Several admissions in one statement (one transaction, one commit), charged to p_replica. The
-- keys are resolved in one read; the calls then run one after the other exactly as single calls
-- would, in ascending account id (rule 2), so batches of every replica lock meter rows in one order.
create function gateway_admit_many(
  p_key_hashes bytea[],
  p_nows timestamptz[],
  p_methods text[],
  p_routes text[],
  p_rate_limit integer,
  p_window interval,
  p_replica uuid
) returns table (ord integer, verdict gateway_verdict)
language plpgsql as $fn$
declare
  c record;
begin
  for c in
    select item.ord as i, ak.id as key_id
      from unnest(p_key_hashes) with ordinality as item(key_hash, ord)
      left join api_keys ak on ak.key_hash = item.key_hash and ak.revoked_at is null
     order by ak.account_id, item.ord
  loop
    ord := c.i;
    verdict := gateway_admit_key(c.key_id, p_nows[c.i], p_methods[c.i], p_routes[c.i], p_rate_limit, p_window, p_replica);
    return next;
  end loop;
end
$fn$;

-- 0001's signature, for replicas of the previous version during a rolling upgrade: their charges
-- have no replica, so only LEDGER_SWEEP_AFTER refunds them.
create or replace function gateway_admit_many(
  p_key_hashes bytea[],
  p_nows timestamptz[],
  p_methods text[],
  p_routes text[],
  p_rate_limit integer,
  p_window interval
) returns table (ord integer, verdict gateway_verdict)
language sql as $fn$
  select * from gateway_admit_many(p_key_hashes, p_nows, p_methods, p_routes, p_rate_limit, p_window, null::uuid)
$fn$;

-- Refunds charges of one account (G3, G4): each returns its credit to the pool it came from, a
-- monthly credit only while its period is the current one. The meter row is locked first
-- (rule 1). With p_open_only (the sweeper), only charges still open are refunded, and one that
-- another transaction holds is skipped (rule 3). A charge is refunded at most once. Returns the
-- ids refunded.
create function gateway_refund_charges(p_account uuid, p_charges bigint[], p_now timestamptz, p_open_only boolean)
returns setof bigint
language plpgsql as $fn$
declare
  ids bigint[] := p_charges;
begin
  perform 1 from account_meters where account_id = p_account for update;
  if p_open_only then
    ids := array(select id from request_ledger
                  where id = any(p_charges) and account_id = p_account and completed_at is null and refunded_at is null
                  order by id for update skip locked);
  end if;
  return query
    with refunded as (
      update request_ledger
         set refunded_at = p_now, completed_at = coalesce(completed_at, p_now)
       where id = any(ids) and account_id = p_account and refunded_at is null
      returning id, pool, charged_at
    ), credited as (
      update account_meters m
         set addon_remaining = m.addon_remaining + (select count(*) from refunded r where r.pool = 'addon'),
             used = greatest(m.used - (select count(*) from refunded r where r.pool = 'monthly' and r.charged_at >= m.period_start), 0)
       where m.account_id = p_account and exists (select from refunded)
    )
    select id from refunded;
end
$fn$;

-- One charge, whoever asks (the handler's exit, a 5xx completion, an interrupted admission).
create or replace function gateway_refund(p_charge bigint, p_now timestamptz) returns boolean
language plpgsql as $fn$
declare
  charged_account uuid;
begin
  select account_id into charged_account from request_ledger where id = p_charge;
  if not found then
    return false;
  end if;
  return exists (select from gateway_refund_charges(charged_account, array[p_charge], p_now, false));
end
$fn$;
`))
