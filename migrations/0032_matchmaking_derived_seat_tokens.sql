-- Seat tokens are derived, not stored (services/matchmaking/seat_tokens.h): a seat's
-- token is an HMAC, under a key only matchmaking holds, of its placement's id and
-- the seat number. An assignment keeps the placement id instead of the token, so
-- that a leaked database lets nobody act for a seat.
--
-- Rolling update: rows the previous release wrote keep their token (and no
-- placement id) and are resent as they are until the sweep deletes them (a day
-- after they were made at the latest); the tokens of finished games, which nothing
-- needs any more, go now. A row of this release has an empty seat_token, which a
-- replica of the previous release would resend as it is: replace every replica in
-- the same rollout (docs/operations.md, "Deploying").
ALTER TABLE mm_assignments
  ADD COLUMN placement_id text,
  ADD CONSTRAINT mm_assignments_token_or_placement
    CHECK (placement_id IS NULL OR seat_token = '');

UPDATE mm_assignments SET seat_token = '' WHERE finished AND seat_token <> '';
