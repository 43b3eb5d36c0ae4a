-- The outbox of finished games for the ratings service. A row is inserted in the
-- same transaction as the game's last log entries and its result, so a finished
-- game is never missed and never announced twice (one row per game). The ratings
-- service reads rows in id order where consumed_at IS NULL, applies them
-- idempotently by game_id, and sets consumed_at.

CREATE TABLE game_results (
  id          bigserial PRIMARY KEY,
  game_id     text NOT NULL UNIQUE REFERENCES games (id),
  payload     jsonb NOT NULL,           -- what the ratings service consumes
  created     timestamptz NOT NULL DEFAULT now(),
  consumed_at timestamptz
);

CREATE INDEX game_results_pending ON game_results (id) WHERE consumed_at IS NULL;
