-- Games and their seats: what a table service needs to rebuild a table, and who
-- may act for each seat. Written by services/storage (game_store.cc).

CREATE TABLE games (
  id          text PRIMARY KEY,         -- chosen by the table service, unguessable
  request_id  text UNIQUE,              -- CreateTable idempotency key; NULL when none
  mode        text NOT NULL,            -- "complex-partner", ...
  config      bytea NOT NULL,           -- opaque to the database: rules, clocks, seed
  created     timestamptz NOT NULL DEFAULT now(),
  finished    timestamptz,              -- NULL while the game runs
  result      jsonb,                    -- totals, places, teams, payouts; set with finished
  deadline    timestamptz,              -- when the autopilot acts; NULL when no clock runs
  -- The table-service instance that hosts the game, and until when. Only the owner
  -- of an unexpired lease may append; a lapsed lease is claimed by another
  -- instance, which rebuilds the table from game_log.
  lease_owner text NOT NULL,
  lease_until timestamptz NOT NULL,
  -- Entries in game_log, so an append can check it continues the log without
  -- reading the log: the next entry's idx.
  log_length  bigint NOT NULL DEFAULT 0 CHECK (log_length >= 0),
  CHECK ((finished IS NULL) = (result IS NULL))
);

-- ClaimOrphans scans running games by lease expiry; RenewLeases by owner.
-- Finished games drop out of both indexes.
CREATE INDEX games_lease_until ON games (lease_until) WHERE finished IS NULL;
CREATE INDEX games_lease_owner ON games (lease_owner) WHERE finished IS NULL;

CREATE TABLE game_seats (
  game_id      text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  seat         smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
  player_id    text NOT NULL,           -- a person's or a bot account's id
  display_name text NOT NULL,
  bot          boolean NOT NULL,
  stake        bigint NOT NULL DEFAULT 0,
  token_hash   text NOT NULL,           -- SHA-256 of the seat token, hex; never the token
  total        integer,                 -- the seat's final score; NULL until the end
  place        integer,                 -- 1..4, ties share a place; NULL until the end
  PRIMARY KEY (game_id, seat)
);

-- A player's active games and game history (ListActive, ListFinished).
CREATE INDEX game_seats_player ON game_seats (player_id);
