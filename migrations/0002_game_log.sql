-- Each game's append-only action log: every accepted action, written before it
-- is acknowledged. Replaying a game's entries in idx order rebuilds its table.

CREATE TABLE game_log (
  game_id    text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  idx        bigint NOT NULL CHECK (idx >= 0),  -- dense, from 0: the n-th entry
  seat       smallint NOT NULL CHECK (seat BETWEEN -1 AND 3),  -- -1: the server
  request_id text NOT NULL DEFAULT '',  -- the client's idempotency key; '' for server entries
  payload    bytea NOT NULL,            -- opaque: what happened
  response   bytea NOT NULL,            -- opaque: the answer given, repeated for a retry
  time       timestamptz NOT NULL,
  PRIMARY KEY (game_id, idx)
);

-- A client retry (same seat, same request id) must not be applied twice. The table
-- service answers retries from memory; this is the database's guarantee behind it.
CREATE UNIQUE INDEX game_log_request
  ON game_log (game_id, seat, request_id) WHERE request_id <> '';
