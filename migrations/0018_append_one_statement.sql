-- What PostgreSQL spends per action at the pace people play (1,000 tables, 300
-- actions/s: every action is its own commit), measured with pg_stat_statements and
-- pidstat during tests/load/run_load.sh (docs/benchmarks.md, "Table service at the
-- pace people play"):
--   * log_append ran four or five statements per call (a lock query, the INSERT,
--     the UPDATE, the answer, and the result statements when a game ends), each
--     with its own executor start, plus PL/pgSQL's array bookkeeping: more than
--     half of its time was outside the statements themselves.
--   * Every lease renewal (each instance's hosted tables, every lease_ttl / 3) was
--     a non-HOT update of every hosted game, because lease_until is indexed: a new
--     row version and an entry in each of the four indexes of games per table, more
--     than a third of all WAL at 300 actions/s. Worse, the renewal held the row
--     locks of all those games until its commit, and the one group-commit writer,
--     which locks the games of a batch, waited for it: every append of the instance
--     stalled for the whole renewal (tens of ms, hundreds under load).
--
-- 1. log_append does a batch in one SQL statement (data-modifying CTEs): one
--    executor start per batch, and two more statements only for a batch that ends
--    a game. Same signature, same answers, same order of locks, so a writer of an
--    older build keeps working against it.
-- 2. games_lease_until is dropped: no per-action or per-renewal update touches an
--    indexed column any more, so both are HOT (no index entries, little WAL). The
--    only user of that index, ClaimOrphans, now reads the running games through
--    games_lease_owner (a partial index on running games); it runs once per
--    maintenance period, and reads cost much less than the renewals' writes did.
-- 3. fillfactor 80 on games leaves room on each page for the new row versions of
--    HOT updates (applies to pages written from now on).

DROP INDEX games_lease_until;
ALTER TABLE games SET (fillfactor = 80);

-- Arguments and answers: as in 0006. It
--   1. locks the batch's games FOR NO KEY UPDATE in id order (so two writers or a
--      lease renewal never deadlock) and reads each one's lease, end and length;
--   2. walks each game's requests in queue order (a recursive CTE, one step per
--      request of the same game in the batch, usually one): the game exists,
--      p_owner holds its unexpired lease, it has not ended, and the request's first
--      entry continues its log as the earlier requests of the batch left it;
--   3. inserts the entries of the accepted requests, sets each touched game's
--      deadline (the last accepted request's), log length and, when it ended, its
--      result;
--   4. for the games that ended, sets their seats' totals and places and inserts
--      the outbox rows.
-- Every table is reached by its key (= ANY of the batch's ids), so no plan can scan
-- games or game_seats whatever the join methods chosen between the batch's rows.
CREATE OR REPLACE FUNCTION log_append(
    p_owner text,
    r_game text[], r_first bigint[], r_count integer[], r_deadline timestamptz[],
    r_result text[], r_outbox text[], r_totals integer[], r_places integer[],
    e_request integer[], e_idx bigint[], e_seat smallint[], e_request_id text[],
    e_payload bytea[], e_response bytea[], e_time timestamptz[])
RETURNS TABLE (append_status smallint, game_length bigint)
LANGUAGE plpgsql
-- One generic plan, made once per connection. A custom plan (PL/pgSQL's choice
-- here, as the arrays' sizes are known only per call) plans this statement anew at
-- every call, which cost more than the five statements it replaces. The generic
-- plan reaches games and game_seats only through their keys (= ANY above), and
-- joins the batch's own rows with hashes: 0006's SET enable_hashjoin = off and
-- enable_mergejoin = off are gone (CREATE OR REPLACE drops them), so that a batch
-- of 512 requests does not cost 512 x 512 comparisons per step of the walk.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  n integer := coalesce(array_length(r_game, 1), 0);
  st smallint[];
  len bigint[];
  ends integer[];      -- the accepted requests that end their game
  end_games text[];    -- their games
BEGIN
  WITH RECURSIVE
  req AS (
    SELECT r.i::integer AS i, r.game, r.first, r.count, r.deadline, r.result,
           row_number() OVER (PARTITION BY r.game ORDER BY r.i)::integer AS rn
    FROM unnest(r_game, r_first, r_count, r_deadline, r_result)
         WITH ORDINALITY AS r (game, first, count, deadline, result, i)),
  locked AS (
    SELECT g.id, g.lease_owner = p_owner AND g.lease_until > now() AS ours,
           g.finished IS NOT NULL AS ended, g.log_length
    FROM games AS g
    WHERE g.id = ANY (r_game)
    ORDER BY g.id
    FOR NO KEY UPDATE),
  -- One row per request: its verdict st, the game's length before (len) and after
  -- it, and whether the game has ended after it.
  walk (i, game, rn, found, ours, st, len, after, ended) AS (
    SELECT q.i, q.game, q.rn, s.found, s.ours, v.st, s.len,
           s.len + CASE WHEN v.st = 0 THEN q.count ELSE 0 END,
           s.ended OR (v.st = 0 AND q.result IS NOT NULL)
    FROM req AS q
    LEFT JOIN locked AS l ON l.id = q.game
    CROSS JOIN LATERAL (
      SELECT l.id IS NOT NULL AS found, coalesce(l.ours, false) AS ours,
             coalesce(l.ended, false) AS ended, coalesce(l.log_length, 0) AS len) AS s
    CROSS JOIN LATERAL (
      SELECT CASE WHEN NOT s.found THEN 1
                  WHEN NOT s.ours THEN 2
                  WHEN s.ended THEN 3
                  WHEN q.count > 0 AND q.first < s.len THEN 4
                  WHEN q.count > 0 AND q.first > s.len THEN 5
                  ELSE 0 END AS st) AS v
    WHERE q.rn = 1
    UNION ALL
    SELECT q.i, q.game, q.rn, w.found, w.ours, v.st, w.after,
           w.after + CASE WHEN v.st = 0 THEN q.count ELSE 0 END,
           w.ended OR (v.st = 0 AND q.result IS NOT NULL)
    FROM walk AS w
    JOIN req AS q ON q.game = w.game AND q.rn = w.rn + 1
    CROSS JOIN LATERAL (
      SELECT CASE WHEN NOT w.found THEN 1
                  WHEN NOT w.ours THEN 2
                  WHEN w.ended THEN 3
                  WHEN q.count > 0 AND q.first < w.after THEN 4
                  WHEN q.count > 0 AND q.first > w.after THEN 5
                  ELSE 0 END AS st) AS v),
  accepted AS (
    SELECT w.i, w.game, w.rn, w.after, q.deadline, q.result
    FROM walk AS w JOIN req AS q ON q.i = w.i
    WHERE w.st = 0),
  -- Per touched game: the last accepted request, and the one that ended it.
  last AS (
    SELECT DISTINCT ON (a.game) a.game, a.after, a.deadline
    FROM accepted AS a
    ORDER BY a.game, a.rn DESC),
  ending AS (
    SELECT a.game, a.result FROM accepted AS a WHERE a.result IS NOT NULL),
  logged AS (
    INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time)
    SELECT r_game[e.r], e.idx, e.seat, e.request_id, e.payload, e.response, e.time
    FROM unnest(e_request, e_idx, e_seat, e_request_id, e_payload, e_response, e_time)
         AS e (r, idx, seat, request_id, payload, response, time)
    WHERE e.r IN (SELECT a.i FROM accepted AS a)),
  moved AS (
    UPDATE games AS g
    SET deadline = t.deadline,
        log_length = t.after,
        finished = CASE WHEN d.result IS NULL THEN g.finished ELSE now() END,
        result = coalesce(d.result::jsonb, g.result)
    FROM last AS t LEFT JOIN ending AS d ON d.game = t.game
    WHERE g.id = ANY (r_game) AND g.id = t.game)
  SELECT array_agg(w.st::smallint ORDER BY w.i), array_agg(w.len ORDER BY w.i),
         array_agg(w.i ORDER BY w.i) FILTER (WHERE w.st = 0 AND r_result[w.i] IS NOT NULL),
         array_agg(w.game ORDER BY w.i) FILTER (WHERE w.st = 0 AND r_result[w.i] IS NOT NULL)
  INTO st, len, ends, end_games
  FROM walk AS w;

  -- Rare (once per game): separate statements, so that the outbox's statement
  -- trigger (0007) fires only for a batch that ends a game.
  IF ends IS NOT NULL THEN
    UPDATE game_seats AS s
    SET total = r_totals[(e.r - 1) * 4 + s.seat + 1],
        place = r_places[(e.r - 1) * 4 + s.seat + 1]
    FROM unnest(ends, end_games) AS e (r, game)
    WHERE s.game_id = ANY (end_games) AND s.game_id = e.game;

    INSERT INTO game_results (game_id, payload)
    SELECT e.game, r_outbox[e.r]::jsonb FROM unnest(ends, end_games) AS e (r, game);
  END IF;

  RETURN QUERY SELECT st[j], len[j] FROM generate_series(1, n) AS j ORDER BY j;
END
$$;
