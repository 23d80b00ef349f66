import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Streamed answers (issue 32; INTERPRETATIONS H4): a bulk export or an RPC `ExportSearch` costs
 * one credit per page of 100 it sends. The first page is the call's own admission (G1); each
 * further page is charged here, to the key, account, method and route of that first charge,
 * without a slot of the rate window (a stream is one request). The plan and the key are read
 * again, so a key revoked or a plan lowered mid-stream stops it. The meter row is locked first
 * (migration 0017, rule 1). A page's charge is recorded completed: it is taken right before the
 * page is sent, so the sweeper never takes it for an abandoned call.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function gateway_charge_page(p_first bigint, p_now timestamptz, p_replica uuid)
returns gateway_verdict
language plpgsql as $fn$
declare
  v gateway_verdict;
  first_charge record;
  k record;
  m record;
begin
  select account_id, key_id, method, route into first_charge from request_ledger where id = p_first;
  if not found then
    v.outcome := 'unauthorized';
    return v;
  end if;
  select ak.id as key_id, a.id as account_id, a.plan, p.api_access,
         coalesce(a.monthly_limit, p.monthly_credits) as monthly_limit
    into k
    from api_keys ak
    join accounts a on a.id = ak.account_id
    join plans p on p.name = a.plan
   where ak.id = first_charge.key_id and ak.revoked_at is null;
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
  if v.pool is null then
    v.outcome := 'credits_exhausted';
    return v;
  end if;

  update account_meters
     set period_start = v.period_start, used = v.used, addon_remaining = v.addon_remaining
   where account_id = k.account_id;
  insert into request_ledger (account_id, key_id, method, route, pool, charged_at, replica_id, completed_at, status, latency_ms)
  values (k.account_id, k.key_id, first_charge.method, first_charge.route, v.pool, p_now, p_replica, p_now, 200, 0)
  returning id into v.charge_id;
  v.outcome := 'admitted';
  return v;
end
$fn$;
`))
