-- The external side of credits and debits spread over sixteen world accounts
-- (world:0 .. world:15; a player's always the same one), so that concurrent
-- credits and debits of different players do not queue on one balance row. The
-- old 'world' account keeps what moved through it; the world accounts together
-- are minus the money players hold.
INSERT INTO ratings.accounts (account_id, kind)
SELECT 'world:' || n, 'world' FROM generate_series(0, 15) AS n
ON CONFLICT DO NOTHING;

-- The hold sweep's search: open holds by the time their TTL runs from (placed for
-- a held hold, attached for an attached one: both are "updated").
CREATE INDEX holds_open ON ratings.holds (updated) WHERE state IN (1, 2);

-- applied_games.settlement may also be 'unheld' (some staked seats had no hold and
-- settled nothing; note names them) and 'voided' (a voided table; note is its
-- reason). entries.request is no longer written: a replayed credit or debit is
-- compared field by field with the entry it made.
COMMENT ON COLUMN ratings.entries.request IS 'unused since migration 0028';
