-- log_append (migrations/0006_log_append_function.sql, whose header says what it
-- checks and answers) with less work per call at the pace people play, where
-- nearly every batch is one request and its own commit. Same arguments, checks,
-- locks and status codes.
--
-- pg_stat_statements (track = all, track_planning = on) of a run at 300 actions/s
-- showed two costs besides the work itself (docs/benchmarks.md, "PostgreSQL's CPU
-- per action: log_append"):
--   * Planning at every call. PL/pgSQL picks a custom or the generic plan per
--     statement by estimated cost; a custom plan sees the arrays' real length (one
--     element) where the generic plan guesses, so the lock query, the UPDATE of
--     games and the answer query were planned again at every call (plans =
--     calls). force_generic_plan plans each statement once per session; with hash
--     and merge joins off, the generic plans are nested loops over the arrays with
--     index lookups, which is right for every batch (0006 says why).
--   * One executor start and end per statement. One request alone is now one
--     statement when it is accepted: an UPDATE of its game that checks the lease,
--     the end and the index (taking the row lock), with the INSERT of its entries
--     in the same statement; a game end adds the two statements that write it. A
--     refused request takes the general path, which locks the game and says why.
-- The general path (several requests, or a refused one) is 0006's loop, reading
-- the games with one query and skipping the writes when nothing was accepted.
-- The group-commit writer sends a lone request that does not end its game as that
-- one statement itself (services/storage/log_writer.cc, kAppendOne), without the
-- function call; the function's own one-request path serves game ends and callers
-- that always call it.
CREATE OR REPLACE FUNCTION log_append(
    p_owner text,
    r_game text[], r_first bigint[], r_count integer[], r_deadline timestamptz[],
    r_result text[], r_outbox text[], r_totals integer[], r_places integer[],
    e_request integer[], e_idx bigint[], e_seat smallint[], e_request_id text[],
    e_payload bytea[], e_response bytea[], e_time timestamptz[])
RETURNS TABLE (append_status smallint, game_length bigint)
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  n integer := coalesce(array_length(r_game, 1), 0);
  length_before bigint;
BEGIN
  IF n = 1 THEN
    -- Every entry is request 1's: the writer sends only a request's own entries.
    WITH game AS (
      UPDATE games AS g
      SET deadline = r_deadline[1],
          log_length = g.log_length + r_count[1],
          finished = CASE WHEN r_result[1] IS NULL THEN NULL ELSE now() END,
          result = r_result[1]::jsonb
      -- One CASE, so that the game is found by its key only: as plain conditions,
      -- lease_owner = p_owner AND finished IS NULL match the partial index
      -- games_lease_owner, and a generic plan made while games had no statistics
      -- read every running game of the instance through it.
      WHERE g.id = r_game[1]
        AND CASE WHEN g.lease_owner = p_owner AND g.lease_until > now()
                   AND g.finished IS NULL
                   AND (r_count[1] = 0 OR r_first[1] = g.log_length)
                 THEN true ELSE false END
      RETURNING g.log_length - r_count[1] AS length),
    logged AS (
      INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time)
      SELECT r_game[1], e.idx, e.seat, e.request_id, e.payload, e.response, e.time
      FROM unnest(e_idx, e_seat, e_request_id, e_payload, e_response, e_time)
           AS e (idx, seat, request_id, payload, response, time)
      WHERE EXISTS (SELECT FROM game))
    SELECT length INTO length_before FROM game;
    IF FOUND THEN
      IF r_result[1] IS NOT NULL THEN
        UPDATE game_seats AS s
        SET total = r_totals[s.seat + 1], place = r_places[s.seat + 1]
        WHERE s.game_id = r_game[1];
        INSERT INTO game_results (game_id, payload) VALUES (r_game[1], r_outbox[1]::jsonb);
      END IF;
      append_status := 0;
      game_length := length_before;
      RETURN NEXT;
      RETURN;
    END IF;
  END IF;

  -- The general path: 0006's checks, in queue order, against each game as the
  -- earlier requests of the batch left it.
  DECLARE
    g_id text[];
    g_ours boolean[];
    g_ended boolean[];
    g_length bigint[];
    m integer;
    g_deadline timestamptz[];
    g_result text[];
    g_touched boolean[];
    st smallint[] := array_fill(0::smallint, ARRAY[n]);
    len bigint[] := array_fill(0::bigint, ARRAY[n]);
    accepted boolean[] := array_fill(false, ARRAY[n]);
    ends integer[] := '{}';
    i integer;
    k integer;
  BEGIN
    SELECT array_agg(l.id), array_agg(l.ours), array_agg(l.ended), array_agg(l.log_length)
    INTO g_id, g_ours, g_ended, g_length
    FROM (SELECT g.id, g.lease_owner = p_owner AND g.lease_until > now() AS ours,
                 g.finished IS NOT NULL AS ended, g.log_length
          FROM (SELECT DISTINCT u.id FROM unnest(r_game) AS u (id)) AS u
          JOIN games AS g ON g.id = u.id
          ORDER BY g.id FOR NO KEY UPDATE OF g) AS l;
    m := coalesce(array_length(g_id, 1), 0);
    g_deadline := array_fill(NULL::timestamptz, ARRAY[m]);
    g_result := array_fill(NULL::text, ARRAY[m]);
    g_touched := array_fill(false, ARRAY[m]);

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

    IF m > 0 AND true = ANY (accepted) THEN
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
    END IF;

    IF array_length(ends, 1) > 0 THEN
      UPDATE game_seats AS s
      SET total = r_totals[(e.r - 1) * 4 + s.seat + 1],
          place = r_places[(e.r - 1) * 4 + s.seat + 1]
      FROM unnest(ends) AS e (r)
      WHERE s.game_id = r_game[e.r];

      INSERT INTO game_results (game_id, payload)
      SELECT r_game[e.r], r_outbox[e.r]::jsonb FROM unnest(ends) AS e (r);
    END IF;

    RETURN QUERY SELECT * FROM unnest(st, len);
  END;
END
$$;
