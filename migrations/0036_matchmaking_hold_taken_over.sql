-- A player's newer staked ticket of the same stake carries the hold of the
-- waiting ticket it supersedes (services/matchmaking/lobby.h): the older ticket's
-- release finds the hold carried and is done without releasing it. When the newer
-- ticket in turn ends unplayed, its release opens again, so that the hold it took
-- over is given back (a release already done is asked again: releasing a released
-- hold is a no-op). A release still pending keeps the table it names.
CREATE OR REPLACE FUNCTION mm_ticket_hold_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO mm_hold_releases (hold_id, reason)
    VALUES (NEW.hold_id, 'ticket ' || NEW.status)
    ON CONFLICT (hold_id) DO UPDATE SET
      reason = EXCLUDED.reason,
      due = now(),
      table_id = CASE WHEN mm_hold_releases.done IS NULL
                      THEN mm_hold_releases.table_id ELSE '' END,
      tries = CASE WHEN mm_hold_releases.done IS NULL THEN mm_hold_releases.tries ELSE 0 END,
      done = NULL;
  RETURN NULL;
END $$;
