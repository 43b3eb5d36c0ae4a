-- The table-service instances of a deployment, each registered by the instance
-- itself and kept fresh by its heartbeat, so that any instance can say where a table
-- lives (games.lease_owner names a row here) and matchmaking can place new tables on
-- live instances with room.

CREATE TABLE table_instances (
  instance_id text PRIMARY KEY,         -- the value the instance writes in games.lease_owner
  address     text NOT NULL,            -- host:port that clients dial
  capacity    integer NOT NULL CHECK (capacity >= 0),  -- tables it will host at most
  live_tables integer NOT NULL DEFAULT 0 CHECK (live_tables >= 0),
  draining    boolean NOT NULL DEFAULT false,  -- takes no new tables; moving its own away
  started     timestamptz NOT NULL DEFAULT now(),
  heartbeat   timestamptz NOT NULL DEFAULT now()
);

-- A table whose own log cannot be replayed, or whose moves broke an engine
-- invariant, is quarantined: no instance adopts it until an operator clears it.
ALTER TABLE games ADD COLUMN broken text;  -- the reason; NULL for a sound game
