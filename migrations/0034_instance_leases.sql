-- One lease per table-service instance instead of one renewal per table.
--
-- Until now every running game's row carried its own lease (games.lease_owner,
-- games.lease_until), and an instance renewed the lease of each game it hosted
-- every lease_ttl / 3: at 10,000 hosted tables, 10,000 row updates per round
-- (docs/benchmarks.md, "One lease per instance"). Now a game belongs to its
-- instance's lease:
--
--   * table_instances.lease_until is the instance's lease. The instance renews it
--     with one upsert of its own row per round (GameStore::RenewHosted), whatever
--     the number of its tables.
--   * games.lease_owner stays the fencing token: every append updates the game's
--     own row and checks lease_owner = p_owner there, and every claim updates that
--     row too, so an append and a claim of the same game serialize on it (READ
--     COMMITTED re-checks the new row version): the claim comes either before the
--     append, which then fails "lease lost", or after it, and the claimer loads the
--     log with the entry in it. Nothing acknowledged is lost.
--   * games.lease_until is now the game's own lease, taken when the game is created
--     or claimed and never renewed: it holds the game until its instance's lease
--     does (a game made or claimed before the instance's first renewal, or while its
--     lease had lapsed, is not claimable at once). '-infinity' means released:
--     claimable at once whatever the owner's lease (ReleaseLease, a quarantine).
--     Appends never write it, so they stay HOT updates (0018); claims and releases,
--     one per game move, are not.
--   * A game is claimable when its own lease has passed and it was released or its
--     owner's instance lease lapsed (or the owner has no row): game_lease_lapsed,
--     the rule's one statement, used by claims and by Locate.
--   * An append needs lease_owner = p_owner and a lease not released. It does not
--     read the instance's lease: an instance frozen past its lease (SIGSTOP, a VM
--     pause) whose tables nobody claimed may go on, since nobody else has them, and
--     one whose tables were claimed fails on lease_owner. The instance tells a
--     lapse at its next renewal (the lease it renews had passed, or had less than a
--     quarter of the ttl left: a claimer whose statement began before the renewal
--     committed still reads the old lease) and then reads the owner of each game it
--     hosts under a share lock, which waits for a claim in flight, and drops the
--     ones claimed, as the renewal of each game did.
--   * A table the instance owns but no longer hosts does not lapse by itself any
--     more, since the instance's lease keeps it: every place that stops hosting a
--     table it may still own releases it (services/table: eviction, a claim whose
--     load failed, quarantine), and maintenance repeats a release the database
--     refused.

ALTER TABLE table_instances
  ADD COLUMN lease_until timestamptz NOT NULL DEFAULT '-infinity';

-- Whether p_owner holds an unexpired instance lease.
CREATE FUNCTION instance_lease_live(p_owner text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT FROM table_instances
                 WHERE instance_id = p_owner AND lease_until > now())
$$;

-- Whether a game whose lease is (p_owner, p_until) may be claimed by anyone.
CREATE FUNCTION game_lease_lapsed(p_owner text, p_until timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p_until < now() AND (p_until = '-infinity' OR NOT instance_lease_live(p_owner))
$$;

-- The released running games, which ClaimOrphans takes first whoever owns them;
-- the lapsed instances' games it finds through games_lease_owner.
CREATE INDEX games_released ON games (id)
  WHERE finished IS NULL AND lease_until = '-infinity';

-- log_append (0025) with the lease check above: lease_owner = p_owner and not
-- released, in place of lease_until > now(). Nothing else changes.
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
        AND CASE WHEN g.lease_owner = p_owner AND g.lease_until > '-infinity'
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
    FROM (SELECT g.id, g.lease_owner = p_owner AND g.lease_until > '-infinity' AS ours,
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
