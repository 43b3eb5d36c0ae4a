-- A placement's seats move into the placement's own row, as two arrays of the
-- same order: seats[i] is a seat the placement assigns, seat_tickets[i] the ticket
-- seated there (NULL for a bot account's seat; a seat the table's autopilot plays
-- is not listed). A placement lives for milliseconds (written by the claim,
-- deleted by the commit), yet as child rows in mm_placement_seats each of its
-- seats cost an insert, a foreign-key check on that insert and a cascaded delete:
-- under load about 40,000 trigger queries in 20 s, on the PostgreSQL that is the
-- matchmaking's bottleneck. Nothing reads one seat alone: the seats are written
-- with their placement and read back with it (by the pool's next matcher, after a
-- replica died mid-placement).
--
-- A deployment may hold placements left by a replica that died (or is still
-- placing) during the upgrade: their seats are copied over before the child table
-- goes, so the pool's next matcher still finishes them. The defaults serve that
-- copy only: every placement written from now on names its seats.
ALTER TABLE mm_placements
  ADD COLUMN seats integer[] NOT NULL DEFAULT '{}',
  ADD COLUMN seat_tickets text[] NOT NULL DEFAULT '{}';

UPDATE mm_placements AS p
SET seats = s.seats, seat_tickets = s.seat_tickets
FROM (SELECT request_id, array_agg(seat ORDER BY seat) AS seats,
             array_agg(ticket_id ORDER BY seat) AS seat_tickets
      FROM mm_placement_seats GROUP BY request_id) AS s
WHERE p.request_id = s.request_id;

ALTER TABLE mm_placements
  ALTER COLUMN seats DROP DEFAULT,
  ALTER COLUMN seat_tickets DROP DEFAULT,
  ADD CONSTRAINT mm_placements_seats_valid
    CHECK (cardinality(seats) = cardinality(seat_tickets) AND seats <@ '{0,1,2,3}');

DROP TABLE mm_placement_seats;
