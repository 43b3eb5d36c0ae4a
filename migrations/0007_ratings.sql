-- The ratings service's own store (schema "ratings"): per-mode ratings and their
-- history, the games it has applied (its idempotency record), and the double-entry
-- ledger of staked play. It reads the table service's outbox (game_results) and
-- sets consumed_at there; everything else it writes lives in this schema.

CREATE SCHEMA ratings;

-- Every game the service has applied, once (the primary key is what makes replays
-- and restarts harmless). settlement: 'unstaked', 'settled', or 'unsettled' (the
-- money could not be moved as the result says; note says why, nothing moved).
CREATE TABLE ratings.applied_games (
  game_id     text PRIMARY KEY,
  outbox_id   bigint NOT NULL,
  mode        text NOT NULL,
  finished    timestamptz NOT NULL,
  rated       boolean NOT NULL,        -- false: the payload could not be rated
  settlement  text NOT NULL,
  note        text NOT NULL DEFAULT '',
  applied_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX applied_games_outbox ON ratings.applied_games (outbox_id);
CREATE INDEX applied_games_unsettled ON ratings.applied_games (game_id)
  WHERE settlement = 'unsettled';

CREATE TABLE ratings.player_ratings (
  mode       text NOT NULL,
  player_id  text NOT NULL,
  bot        boolean NOT NULL,
  mu         float8 NOT NULL,
  sigma      float8 NOT NULL,
  display    integer NOT NULL,
  games      integer NOT NULL,
  PRIMARY KEY (mode, player_id)
) WITH (fillfactor = 50);  -- room for HOT updates: a rating changes every game
-- No index beyond the key: every game changes mu, sigma and display, and with no
-- index on them the updates stay HOT (no index writes). Ladders sort a mode's
-- players when asked.

CREATE TABLE ratings.rating_history (
  player_id      text NOT NULL,
  mode           text NOT NULL,
  outbox_id      bigint NOT NULL,
  game_id        text NOT NULL,
  finished       timestamptz NOT NULL,
  seat           smallint NOT NULL,
  place          smallint NOT NULL,
  mu_before      float8 NOT NULL,
  sigma_before   float8 NOT NULL,
  mu_after       float8 NOT NULL,
  sigma_after    float8 NOT NULL,
  display_before integer NOT NULL,
  display_after  integer NOT NULL,
  PRIMARY KEY (player_id, mode, outbox_id)
);

-- Ledger. account_id: 'player:<player id>', 'world' (money from and to outside;
-- its balance is minus everything credited net), 'pot:<game id>' (a staked game's
-- pot: filled by stakes, emptied by payouts). balance is the sum of the account's
-- lines (kept in step with every line written); held is the sum of its open holds.
CREATE TABLE ratings.accounts (
  account_id text PRIMARY KEY,
  kind       text NOT NULL CHECK (kind IN ('player', 'world', 'pot')),
  balance    bigint NOT NULL DEFAULT 0,
  held       bigint NOT NULL DEFAULT 0,
  CHECK (kind = 'world' OR balance >= 0),
  CHECK (held >= 0 AND (kind <> 'player' OR held <= balance))
);
INSERT INTO ratings.accounts (account_id, kind) VALUES ('world', 'world');

-- kind: the EntryKind numbers of ratings.proto (1 credit, 2 debit, 3 stake,
-- 4 payout). request_id: the caller's idempotency key (credits and debits), with
-- request the arguments it came with, to tell a replay from a clash.
CREATE TABLE ratings.entries (
  entry_id   bigserial PRIMARY KEY,
  kind       smallint NOT NULL,
  request_id text UNIQUE,
  request    text,
  game_id    text,
  reason     text NOT NULL DEFAULT '',
  created    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ratings.lines (
  entry_id      bigint NOT NULL REFERENCES ratings.entries,
  account_id    text NOT NULL REFERENCES ratings.accounts,
  amount        bigint NOT NULL,
  balance_after bigint NOT NULL,
  PRIMARY KEY (account_id, entry_id)
);
CREATE INDEX lines_entry ON ratings.lines (entry_id);

-- Every entry's lines sum to zero, checked at commit.
CREATE FUNCTION ratings.check_entry_balanced() RETURNS trigger AS $$
BEGIN
  IF (SELECT COALESCE(sum(amount), 0) FROM ratings.lines WHERE entry_id = NEW.entry_id) <> 0
  THEN
    RAISE EXCEPTION 'journal entry % does not sum to zero', NEW.entry_id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE CONSTRAINT TRIGGER lines_balanced AFTER INSERT ON ratings.lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ratings.check_entry_balanced();

-- state: the HoldState numbers of ratings.proto (1 held, 2 attached, 3 released,
-- 4 settled).
CREATE TABLE ratings.holds (
  hold_id    text PRIMARY KEY,
  request_id text NOT NULL UNIQUE,
  player_id  text NOT NULL,
  amount     bigint NOT NULL CHECK (amount > 0),
  state      smallint NOT NULL,
  table_id   text,
  seat       smallint,
  entry_id   bigint,                   -- the stake entry that settled it
  created    timestamptz NOT NULL DEFAULT now(),
  updated    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX holds_player ON ratings.holds (player_id);
-- One live hold per table seat: the game's result settles exactly that one.
CREATE UNIQUE INDEX holds_seat ON ratings.holds (table_id, seat) WHERE state = 2;

-- The outbox wakes consumers: a notification per inserting statement (LISTEN is a
-- wake-up only; consumers also poll). The table service's code is unchanged.
CREATE FUNCTION ratings.announce_game_results() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('trix_game_results', '');
  RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER game_results_announce AFTER INSERT ON game_results
  FOR EACH STATEMENT EXECUTE FUNCTION ratings.announce_game_results();
