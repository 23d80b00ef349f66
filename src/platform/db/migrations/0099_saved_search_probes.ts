import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved searches' anchors (issue 32; H1) keep only the lexemes the import's matching pass joins
 * on. A conjunction (`needed` above 1: every match holds all its lexemes) keeps one, the rarest
 * (new searches: by the planner's statistics of the ads' lexemes; here, the longest, then the
 * first in byte order): the pass joins each batch's lexemes to it alone, and the search's own
 * query then holds each candidate to all the others, instead of joining every lexeme and
 * counting them per search and ad. `alone` marks a search's only anchor: its pairs need no
 * de-duplication; the anchors of an `or` (one of them is enough) may meet an ad more than once.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
delete from saved_search_anchors sa
 where sa.needed > 1
   and sa.lexeme <> (select k.lexeme from saved_search_anchors k where k.saved_search_id = sa.saved_search_id
                      order by length(k.lexeme) desc, k.lexeme collate "C" limit 1);
alter table saved_search_anchors add column alone boolean not null default false;
update saved_search_anchors sa set alone = true
 where not exists (select from saved_search_anchors k where k.saved_search_id = sa.saved_search_id and k.lexeme <> sa.lexeme);
alter table saved_search_anchors drop column needed;
alter table saved_search_anchors alter column alone drop default;
`))
