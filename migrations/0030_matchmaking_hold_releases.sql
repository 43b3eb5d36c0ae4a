-- Matchmaking's stake holds to be given back, and the tables it made that nobody
-- is to play. Each row is retried, by any replica, until done
-- (services/matchmaking/hold_releases.h, table_voids.h): a release that fails
-- (the ratings service is away) is not lost with the process that tried it.

-- A hold to release. Written in the same transaction as the change that ends its
-- use: a ticket cancelled or superseded (the trigger below), a game over, voided
-- or gone (matchmaking's reconciliation); or, before a stake is held for a
-- ticket, the hold about to be made ('admission': named by its HoldStake request
-- id, due a minute later, and deleted once the ticket carrying it is queued), so
-- that a hold whose ticket is never queued (the process died, the answer was
-- lost) is released too.
CREATE TABLE mm_hold_releases (
  hold_id   text PRIMARY KEY,                    -- an admission's: its request id
  -- The table an attached hold is attached to (its game voided or gone): the
  -- ratings service releases an attached hold only when named with its table.
  -- '' for a held one.
  table_id  text NOT NULL DEFAULT '',
  reason    text NOT NULL,
  player_id text NOT NULL DEFAULT '',            -- an admission's HoldStake arguments
  amount    bigint NOT NULL DEFAULT 0,
  created   timestamptz NOT NULL DEFAULT now(),
  due       timestamptz NOT NULL DEFAULT now(),  -- tried (again) from then on
  tries     integer NOT NULL DEFAULT 0,
  done      timestamptz                          -- released, or nothing to release
);
CREATE INDEX mm_hold_releases_due ON mm_hold_releases (due) WHERE done IS NULL;
-- Which ticket carries a hold (few tickets are staked).
CREATE INDEX mm_tickets_hold ON mm_tickets (hold_id) WHERE hold_id IS NOT NULL;

CREATE FUNCTION mm_ticket_hold_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO mm_hold_releases (hold_id, reason)
    VALUES (NEW.hold_id, 'ticket ' || NEW.status)
    ON CONFLICT (hold_id) DO UPDATE SET reason = EXCLUDED.reason, due = now()
    WHERE mm_hold_releases.done IS NULL;
  RETURN NULL;
END $$;

-- A ticket that ends unplayed gives its hold back.
CREATE TRIGGER mm_tickets_hold_ended AFTER UPDATE OF status ON mm_tickets
  FOR EACH ROW WHEN (NEW.hold_id IS NOT NULL
                     AND NEW.status IN ('cancelled', 'superseded')
                     AND OLD.status IN ('waiting', 'placing'))
  EXECUTE FUNCTION mm_ticket_hold_ended();

-- A table to void: a placement given up after its CreateTable went unanswered
-- (Matcher::give_up_placing), written in the statement that gives it up. The
-- request is asked again (any instance answers it with the table it made, or
-- makes it) until the table is known, and then voided.
CREATE TABLE mm_table_voids (
  request_id  text PRIMARY KEY,              -- the placement's CreateTable request_id
  request     bytea NOT NULL,                -- trix.v1.CreateTableRequest, serialized
  table_id    text NOT NULL DEFAULT '',      -- once known
  address     text NOT NULL DEFAULT '',
  reason      text NOT NULL,
  created     timestamptz NOT NULL DEFAULT now(),
  due         timestamptz NOT NULL DEFAULT now(),
  tries       integer NOT NULL DEFAULT 0,
  done        timestamptz
);
CREATE INDEX mm_table_voids_due ON mm_table_voids (due) WHERE done IS NULL;

-- The holds of tickets that ended before this migration and may not have been
-- given back (a failed release was only logged).
INSERT INTO mm_hold_releases (hold_id, reason)
  SELECT hold_id, 'ticket ' || status FROM mm_tickets
  WHERE hold_id IS NOT NULL AND status IN ('cancelled', 'superseded')
  ON CONFLICT (hold_id) DO NOTHING;
