-- Matchmaking: the queue's tickets and the seats they were given, shared by every
-- matchmaking replica. A ticket is one player's request to play (a party's two
-- members have one ticket each, grouped together by party_id). Its status moves
-- waiting -> placing (claimed by the replica that grouped it, while the table is
-- created) -> matched, or waiting -> cancelled / superseded; the pool's matcher
-- (whoever holds the pool's advisory lock) is the only writer of placing and matched.

CREATE TABLE mm_tickets (
  ticket_id    text PRIMARY KEY,
  request_id   text NOT NULL,
  player_id    text NOT NULL,
  display_name text NOT NULL DEFAULT '',
  pool         text NOT NULL,              -- "<mode>/<stake>", e.g. "complex-partner/0"
  team         integer NOT NULL,           -- trix.v1.Team
  format       integer NOT NULL,           -- trix.v1.Format
  stake        bigint NOT NULL DEFAULT 0 CHECK (stake >= 0),
  rating       integer NOT NULL,           -- displayed rating when queued
  provisional  boolean NOT NULL DEFAULT false,
  party_id     text,
  hold_id      text,                       -- the ratings service's stake hold
  status       text NOT NULL DEFAULT 'waiting'
               CHECK (status IN ('waiting', 'placing', 'matched', 'cancelled', 'superseded')),
  group_id     text,                       -- set when claimed
  queued       timestamptz NOT NULL DEFAULT now(),
  seq          bigserial NOT NULL,         -- arrival order
  changed      timestamptz NOT NULL DEFAULT now()
);
-- At most one live ticket per player.
CREATE UNIQUE INDEX mm_tickets_one_live ON mm_tickets (player_id)
  WHERE status IN ('waiting', 'placing');
CREATE INDEX mm_tickets_waiting ON mm_tickets (pool, seq)
  WHERE status IN ('waiting', 'placing');

-- A seat given to a player or a bot account: written before it is sent, and sent
-- again until the game is over (finished).
CREATE TABLE mm_assignments (
  table_id     text NOT NULL,
  seat         integer NOT NULL CHECK (seat BETWEEN 0 AND 3),
  player_id    text NOT NULL,
  ticket_id    text,                       -- NULL for a bot's seat
  bot          boolean NOT NULL DEFAULT false,
  address      text NOT NULL,
  seat_token   text NOT NULL,
  team         integer NOT NULL,
  format       integer NOT NULL,
  stake        bigint NOT NULL DEFAULT 0,
  possible     timestamptz NOT NULL,       -- when the group first became possible
  matched      timestamptz NOT NULL DEFAULT now(),
  finished     boolean NOT NULL DEFAULT false,
  PRIMARY KEY (table_id, seat)
);
CREATE INDEX mm_assignments_live ON mm_assignments (player_id) WHERE NOT finished;
