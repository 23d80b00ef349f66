import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Session calls (legacy dashboard paths, the key page's JSON routes) take a slot of the account's
 * rate window as keyed calls do (issue 28): the same sliding window (`account_meters.rate_hits`)
 * and the same limit, no credit. One meter row, locked and changed alone (lock order, rule 4 of
 * migration 0017).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function gateway_rate_slot(p_account uuid, p_now timestamptz, p_rate_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_ms bigint)
language plpgsql as $fn$
declare
  hits timestamptz[];
  n integer;
begin
  select array(select h from unnest(m.rate_hits) as h where h > p_now - p_window order by h)
    into hits
    from account_meters m where m.account_id = p_account for update;
  if not found then
    hits := '{}';
  end if;
  n := cardinality(hits);
  if n >= p_rate_limit then
    return query select false, 0, ceil(extract(epoch from (hits[n - p_rate_limit + 1] + p_window - p_now)) * 1000)::bigint;
    return;
  end if;
  hits := hits || p_now;
  update account_meters set rate_hits = hits where account_id = p_account;
  return query select true, p_rate_limit - n - 1, ceil(extract(epoch from (hits[1] + p_window - p_now)) * 1000)::bigint;
end
$fn$;
`))
