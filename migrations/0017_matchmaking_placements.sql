-- A placement: a group of claimed tickets and the CreateTable request that seats
-- them, written in the transaction that claims the tickets (before the table is
-- created) and deleted in the one that commits the group's assignments. The
-- request carries seat tokens the matcher chose, so repeating it gets the same
-- table back from any table-service instance (SeatAssignment.seat_token): a
-- replica that dies between creating a table and committing its assignments, or
-- loses its pool's lease in between, leaves a placement that the pool's next
-- matcher finishes, instead of a table nobody was told about (which the autopilot
-- would play to the end, rated and staked). The claimed tickets name their
-- placement in mm_tickets.group_id.
CREATE TABLE mm_placements (
  request_id  text PRIMARY KEY,             -- the CreateTable request_id; tickets' group_id
  pool        text NOT NULL,
  request     bytea NOT NULL,               -- trix.v1.CreateTableRequest, serialized
  possible    timestamptz NOT NULL,         -- when the group first became possible
  created     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mm_placements_pool ON mm_placements (pool);

-- The seats the placement will assign (people and bot accounts; a seat the
-- table's autopilot plays has none).
CREATE TABLE mm_placement_seats (
  request_id  text NOT NULL REFERENCES mm_placements ON DELETE CASCADE,
  seat        integer NOT NULL CHECK (seat BETWEEN 0 AND 3),
  ticket_id   text,                         -- NULL for a bot account's seat
  PRIMARY KEY (request_id, seat)
);
