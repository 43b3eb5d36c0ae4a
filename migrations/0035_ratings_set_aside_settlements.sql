-- Staked games whose settlement the database refused (a constraint, a failed
-- statement): the consumer rolls the settlement back to a savepoint, records the
-- game here and in applied_games with settlement 'set_aside', and goes on with the
-- games after it; their ratings are applied as usual. The consumer tries each
-- open one again every --set_aside_retry until it settles (then resolved is set
-- and applied_games gets the settlement's outcome). Their tables' holds stay
-- attached while they wait: the TTL sweep passes them by.
CREATE TABLE ratings.set_aside_settlements (
  game_id     text PRIMARY KEY,
  outbox_id   bigint NOT NULL,
  error       text NOT NULL,           -- the database's word at the last try
  attempts    integer NOT NULL DEFAULT 1,
  set_aside   timestamptz NOT NULL DEFAULT now(),
  last_tried  timestamptz NOT NULL DEFAULT now(),
  resolved    timestamptz              -- NULL while it waits
);
CREATE INDEX set_aside_settlements_open ON ratings.set_aside_settlements (last_tried)
  WHERE resolved IS NULL;
