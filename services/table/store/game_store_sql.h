// The SQL of GameStore's pooled calls, kept together so the queries can be read
// against the schema in migrations/ in one place. (The group-commit writer's
// statements live in log_writer.cc.)
//
// Times cross the wire as bigint microseconds since the Unix epoch, converted in
// SQL, so no result depends on the session's TimeZone or DateStyle and none loses
// precision.
#ifndef TRIX_SERVICES_TABLE_STORE_GAME_STORE_SQL_H_
#define TRIX_SERVICES_TABLE_STORE_GAME_STORE_SQL_H_

namespace trix::table::sql {

// Games, their seats and their logs' first entries, one statement (its own
// transaction) for a batch of creations: $1 owner, $2 lease µs, then one array
// per game column ($3 ids, $4 request ids, '' for none, $5 modes, $6 configs, $7
// deadlines, $8 first entries' count), one per seat column ($9 the seat's game
// id, $10 seat, ...), four seats per game, and one per log column ($16 the
// entry's game id, $17 index, ...). DO NOTHING on any conflict, and then none of
// that game's seats or entries is written; the ids returned are the games
// written, and the caller tells a request-id replay from a game-id clash for the
// others.
inline constexpr const char* kInsertGames = R"sql(
WITH game AS (
  INSERT INTO games (id, request_id, mode, config, deadline, log_length, lease_owner,
                     lease_until)
  SELECT u.id, NULLIF(u.request_id, ''), u.mode, u.config, u.deadline, u.log_length, $1,
         now() + $2::bigint * interval '1 microsecond'
  FROM unnest($3::text[], $4::text[], $5::text[], $6::bytea[], $7::timestamptz[],
              $8::int8[])
       AS u(id, request_id, mode, config, deadline, log_length)
  ON CONFLICT DO NOTHING
  RETURNING id),
seats AS (
  INSERT INTO game_seats (game_id, seat, player_id, display_name, bot, stake, token_hash)
  SELECT s.* FROM unnest($9::text[], $10::int2[], $11::text[], $12::text[], $13::bool[],
                         $14::int8[], $15::text[])
       AS s(game_id, seat, player_id, display_name, bot, stake, token_hash)
  JOIN game ON game.id = s.game_id),
logged AS (
  INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time)
  SELECT e.* FROM unnest($16::text[], $17::int8[], $18::int2[], $19::text[], $20::bytea[],
                         $21::bytea[], $22::timestamptz[])
       AS e(game_id, idx, seat, request_id, payload, response, time)
  JOIN game ON game.id = e.game_id)
SELECT id FROM game)sql";

// LoadGames: games, seats and log entries of the ids in $1 (text[]), in one
// snapshot; a game's seats and entries come in order.
inline constexpr const char* kSelectGames = R"sql(
SELECT id, request_id, mode, config,
       (extract(epoch FROM created) * 1000000)::bigint,
       (extract(epoch FROM deadline) * 1000000)::bigint,
       result::text
FROM games WHERE id = ANY($1::text[]))sql";

inline constexpr const char* kSelectSeats = R"sql(
SELECT game_id, seat, player_id, display_name, bot, stake, token_hash
FROM game_seats WHERE game_id = ANY($1::text[]) ORDER BY game_id, seat)sql";

inline constexpr const char* kSelectLog = R"sql(
SELECT game_id, idx, seat, request_id, payload, response,
       (extract(epoch FROM time) * 1000000)::bigint
FROM game_log WHERE game_id = ANY($1::text[]) ORDER BY game_id, idx)sql";

// $1 owner, $2 ttl µs: renews this instance's lease (migrations/0034), one row
// whatever the number of its tables, and answers whether it was held throughout:
// unexpired, with a quarter of the ttl to spare, since a claimer whose statement
// began before this one committed still reads the old lease. An instance that has
// not registered yet gets a row that is not live for placement (no address,
// draining, no heartbeat) until InstanceRegistry::Heartbeat fills it in.
inline constexpr const char* kRenewInstanceLease = R"sql(
WITH old AS (
  SELECT lease_until FROM table_instances WHERE instance_id = $1),
renewed AS (
  INSERT INTO table_instances (instance_id, address, capacity, draining, heartbeat,
                               lease_until)
  VALUES ($1, '', 0, true, '-infinity', now() + $2::bigint * interval '1 microsecond')
  ON CONFLICT (instance_id) DO UPDATE SET lease_until = EXCLUDED.lease_until)
SELECT coalesce((SELECT lease_until > now() + $2::bigint / 4 * interval '1 microsecond'
                 FROM old), false))sql";

// $1 owner, $2 the ids it hosts (a chunk of them): those still its own, running
// and not released, after a lapse of its lease. FOR SHARE waits for a claim in
// flight (which holds the row) and then reads the row it wrote, so a game claimed
// meanwhile is not answered as ours.
inline constexpr const char* kStillOurs = R"sql(
SELECT id FROM games
WHERE id = ANY($2::text[]) AND lease_owner = $1 AND finished IS NULL
  AND lease_until > '-infinity'
ORDER BY id FOR SHARE)sql";

// $1 game ids.
inline constexpr const char* kLogLengths = R"sql(
SELECT id, log_length FROM games WHERE id = ANY($1::text[]))sql";

// $1 owner, $2 ttl µs, $3 limit: takes running sound games whose lease lapsed
// (game_lease_lapsed of migrations/0034, spelled out here so that the owners' leases
// are read once per owner, not once per game), released ones first, then the
// oldest lapses. The candidates are read through two indexes: games_released, and
// games_lease_owner for the owners without a live instance lease, found by a walk
// over the distinct owners of running games (one index probe per owner, not a read
// of every running game). SKIP LOCKED: two instances claiming at once take disjoint
// games, and a game whose owner is writing to it right now (the writer holds its
// row lock) is not taken from under it. The row lock is held until commit, and a
// concurrent claimer that waited re-checks the new row version, so a game is never
// claimed twice.
inline constexpr const char* kClaimOrphans = R"sql(
WITH RECURSIVE owners (owner) AS (
  (SELECT lease_owner FROM games WHERE finished IS NULL ORDER BY lease_owner LIMIT 1)
  UNION ALL
  SELECT (SELECT g.lease_owner FROM games AS g
          WHERE g.finished IS NULL AND g.lease_owner > o.owner
          ORDER BY g.lease_owner LIMIT 1)
  FROM owners AS o WHERE o.owner IS NOT NULL),
gone AS (
  SELECT coalesce(array_agg(owner), '{}') AS owners FROM owners
  WHERE owner IS NOT NULL AND NOT instance_lease_live(owner)),
lapsed AS (
  SELECT g.id FROM games AS g, gone
  WHERE g.finished IS NULL AND g.broken IS NULL AND g.lease_until < now()
    AND (g.lease_until = '-infinity' OR g.lease_owner = ANY(gone.owners))
  ORDER BY g.lease_until LIMIT $3
  FOR NO KEY UPDATE OF g SKIP LOCKED)
UPDATE games AS g
SET lease_owner = $1, lease_until = now() + $2::bigint * interval '1 microsecond'
FROM lapsed WHERE g.id = lapsed.id
RETURNING g.id)sql";

// $1 game, $2 owner. -infinity: claimable at once by anyone.
inline constexpr const char* kReleaseLease = R"sql(
UPDATE games SET lease_until = '-infinity'
WHERE id = $1 AND lease_owner = $2
RETURNING id)sql";

// $1 owner, $2 the ids (a chunk of them, locked in id order as the writer locks
// them): every one of them still ours and running becomes claimable at once by
// anyone; a finished one is left as it is (no write).
inline constexpr const char* kReleaseLeases = R"sql(
WITH mine AS (
  SELECT id FROM games
  WHERE id = ANY($2::text[]) AND lease_owner = $1 AND finished IS NULL
  ORDER BY id FOR NO KEY UPDATE)
UPDATE games AS g SET lease_until = '-infinity'
FROM mine WHERE g.id = mine.id)sql";

// $1 game, $2 owner, $3 ttl µs: takes one table whose lease lapsed (or is already
// ours), unless it is finished or quarantined. SKIP LOCKED: a table its owner is
// writing to right now is not taken from under it.
inline constexpr const char* kClaimTable = R"sql(
WITH lapsed AS (
  SELECT id FROM games
  WHERE id = $1 AND finished IS NULL AND broken IS NULL
    AND (lease_owner = $2 OR game_lease_lapsed(lease_owner, lease_until))
  FOR NO KEY UPDATE SKIP LOCKED)
UPDATE games AS g
SET lease_owner = $2, lease_until = now() + $3::bigint * interval '1 microsecond'
FROM lapsed WHERE g.id = lapsed.id
RETURNING g.id)sql";

// $1 owner, $2 ttl µs, $3 the instance name: the tables a previous run of this
// instance (owner "<name>#<boot id>") still holds. That run is gone (one process
// per instance name), so they are taken at once, not after their lease lapses.
inline constexpr const char* kClaimPreviousRuns = R"sql(
WITH previous AS (
  SELECT id FROM games
  WHERE finished IS NULL AND broken IS NULL AND lease_owner <> $1
    AND left(lease_owner, length($3) + 1) = $3 || '#'
  ORDER BY id FOR NO KEY UPDATE SKIP LOCKED)
UPDATE games AS g
SET lease_owner = $1, lease_until = now() + $2::bigint * interval '1 microsecond'
FROM previous WHERE g.id = previous.id
RETURNING g.id)sql";

// $1 game, $2 reason. The lease is released (an operator who clears the game lets
// the next instance claim it at once); no instance claims a broken game.
inline constexpr const char* kMarkBroken = R"sql(
UPDATE games SET broken = $2, lease_until = '-infinity'
WHERE id = $1
RETURNING id)sql";

// $1 game, $2 the void entry's index (the log's length), $3 its payload, $4 its
// time µs, $5 the result, $6 the outbox payload: a quarantined game, which no
// instance holds, ends voided with its last entry and its outbox row in one
// statement. No row back: not quarantined, already ended, or the log moved on.
inline constexpr const char* kVoidQuarantined = R"sql(
WITH game AS (
  UPDATE games
  SET finished = now(), result = $5::jsonb, deadline = NULL, log_length = log_length + 1
  WHERE id = $1 AND broken IS NOT NULL AND finished IS NULL AND log_length = $2
  RETURNING id),
logged AS (
  INSERT INTO game_log (game_id, idx, seat, request_id, payload, response, time)
  SELECT id, $2, -1, '', $3, '', timestamptz 'epoch' + $4::bigint * interval '1 microsecond'
  FROM game),
outbox AS (
  INSERT INTO game_results (game_id, payload) SELECT id, $6::jsonb FROM game)
SELECT id FROM game)sql";

inline constexpr const char* kListActive = R"sql(
SELECT g.id, g.mode, s.seat, (extract(epoch FROM g.created) * 1000000)::bigint
FROM game_seats AS s JOIN games AS g ON g.id = s.game_id
WHERE s.player_id = $1 AND g.finished IS NULL
ORDER BY g.created DESC, g.id, s.seat)sql";

// $1 player, $2..$4 the cursor (finished µs, game id, seat; NULLs for the first
// page), $5 limit. Keyset pagination: newest first, and a seat is the last key
// because one bot account may sit at several seats of one game.
inline constexpr const char* kListFinished = R"sql(
SELECT g.id, g.mode, s.seat, coalesce(s.total, 0), coalesce(s.place, 0), g.result::text,
       (extract(epoch FROM g.created) * 1000000)::bigint,
       (extract(epoch FROM g.finished) * 1000000)::bigint
FROM game_seats AS s JOIN games AS g ON g.id = s.game_id
WHERE s.player_id = $1 AND g.finished IS NOT NULL
  AND ($2::bigint IS NULL OR
       (g.finished, g.id, s.seat) <
       (timestamptz 'epoch' + $2::bigint * interval '1 microsecond', $3::text, $4::int2))
ORDER BY g.finished DESC, g.id DESC, s.seat DESC
LIMIT $5)sql";

}  // namespace trix::table::sql

#endif  // TRIX_SERVICES_TABLE_STORE_GAME_STORE_SQL_H_
