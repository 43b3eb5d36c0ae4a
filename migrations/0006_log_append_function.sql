-- One round trip per group commit: the group-commit writer (services/storage/
-- log_writer.cc) calls log_append once per batch, as a single statement outside
-- any explicit transaction, so the statement's own transaction commits it. Before,
-- each batch was BEGIN, a lock query, an INSERT, one to three UPDATEs/INSERTs and
-- COMMIT: five to seven round trips and as many parse/bind/execute cycles, which at
-- the pace people play (batches of one or two appends) was most of PostgreSQL's
-- CPU per action.
--
-- It does what the writer did, in the same order:
--   1. locks the batch's games FOR NO KEY UPDATE in id order (so two writers or a
--      lease renewal never deadlock) and reads each one's lease, end and length;
--   2. checks each request in queue order against its game as the earlier
--      requests of the batch left it: the game exists, p_owner holds its unexpired
--      lease, it has not ended, and the request's first entry continues its log;
--   3. inserts the entries of the accepted requests, sets each touched game's
--      deadline (the last accepted request's), log length and, when it ended, its
--      result, its seats' totals and places, and the outbox row.
-- The checks that need no database (consecutive indexes, seats in -1..3) stay in
-- the writer. An error the checks do not cover (bad JSON, a duplicate request id)
-- aborts the statement and writes nothing; the writer then retries each request
-- alone.
--
-- Arguments: one element per request (r_*), in queue order; r_totals and r_places
-- four per request (seat 0..3; NULL for a request that does not end its game);
-- one element per entry (e_*), e_request naming its request by 1-based position.
-- Returns one row per request, in order: append_status 0 written, 1 no such game,
-- 2 lease lost, 3 game ended, 4 first entry already written, 5 it would leave a
-- gap; game_length the game's log length when the request was checked.
--
-- Measured with tests/load/run_load.sh (docs/benchmarks.md, "Table service").
CREATE FUNCTION log_append(
    p_owner text,
    r_game text[], r_first bigint[], r_count integer[], r_deadline timestamptz[],
    r_result text[], r_outbox text[], r_totals integer[], r_places integer[],
    e_request integer[], e_idx bigint[], e_seat smallint[], e_request_id text[],
    e_payload bytea[], e_response bytea[], e_time timestamptz[])
RETURNS TABLE (append_status smallint, game_length bigint)
LANGUAGE plpgsql
-- PL/pgSQL runs its statements with generic plans after the first few calls, which
-- see an array argument as 100 rows of unknown values and then hash-join them with
-- a full scan of games or game_seats: a cost that grows with every game ever
-- played. A batch is at most a few hundred rows, each found by its primary key, so
-- nested loops over the arrays with index lookups are right for every batch.
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
DECLARE
  n integer := coalesce(array_length(r_game, 1), 0);
  g_id text[] := '{}';
  g_ours boolean[] := '{}';
  g_ended boolean[] := '{}';
  g_length bigint[] := '{}';
  g_deadline timestamptz[] := '{}';
  g_result text[] := '{}';
  g_touched boolean[] := '{}';
  st smallint[] := array_fill(0::smallint, ARRAY[n]);
  len bigint[] := array_fill(0::bigint, ARRAY[n]);
  accepted boolean[] := array_fill(false, ARRAY[n]);
  ends integer[] := '{}';
  game record;
  i integer;
  k integer;
BEGIN
  FOR game IN
    SELECT g.id, g.lease_owner = p_owner AND g.lease_until > now() AS ours,
           g.finished IS NOT NULL AS ended, g.log_length
    FROM (SELECT DISTINCT u.id FROM unnest(r_game) AS u (id)) AS u
    JOIN games AS g ON g.id = u.id
    ORDER BY g.id FOR NO KEY UPDATE OF g
  LOOP
    g_id := g_id || game.id;
    g_ours := g_ours || game.ours;
    g_ended := g_ended || game.ended;
    g_length := g_length || game.log_length;
    g_deadline := g_deadline || NULL::timestamptz;
    g_result := g_result || NULL::text;
    g_touched := g_touched || false;
  END LOOP;

  FOR i IN 1 .. n LOOP
    k := array_position(g_id, r_game[i]);
    IF k IS NULL THEN
      st[i] := 1;
      CONTINUE;
    END IF;
    len[i] := g_length[k];
    IF NOT g_ours[k] THEN
      st[i] := 2;
    ELSIF g_ended[k] THEN
      st[i] := 3;
    ELSIF r_count[i] > 0 AND r_first[i] < g_length[k] THEN
      st[i] := 4;
    ELSIF r_count[i] > 0 AND r_first[i] > g_length[k] THEN
      st[i] := 5;
    ELSE
      accepted[i] := true;
      g_length[k] := g_length[k] + r_count[i];
      g_deadline[k] := r_deadline[i];
      g_touched[k] := true;
      IF r_result[i] IS NOT NULL THEN
        g_ended[k] := true;
        g_result[k] := r_result[i];
        ends := ends || i;
      END IF;
    END IF;
  END LOOP;

  INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time)
  SELECT r_game[e.r], e.idx, e.seat, e.request_id, e.payload, e.response, e.time
  FROM unnest(e_request, e_idx, e_seat, e_request_id, e_payload, e_response, e_time)
       AS e (r, idx, seat, request_id, payload, response, time)
  WHERE accepted[e.r];

  UPDATE games AS g
  SET deadline = u.deadline,
      log_length = u.length,
      finished = CASE WHEN u.result IS NULL THEN g.finished ELSE now() END,
      result = coalesce(u.result::jsonb, g.result)
  FROM unnest(g_id, g_deadline, g_length, g_result, g_touched)
       AS u (id, deadline, length, result, touched)
  WHERE g.id = u.id AND u.touched;

  IF array_length(ends, 1) > 0 THEN
    UPDATE game_seats AS s
    SET total = r_totals[(e.r - 1) * 4 + s.seat + 1],
        place = r_places[(e.r - 1) * 4 + s.seat + 1]
    FROM unnest(ends) AS e (r)
    WHERE s.game_id = r_game[e.r];

    INSERT INTO game_results (game_id, payload)
    SELECT r_game[e.r], r_outbox[e.r]::jsonb FROM unnest(ends) AS e (r);
  END IF;

  RETURN QUERY SELECT st[j], len[j] FROM generate_series(1, n) AS j ORDER BY j;
END
$$;
