-- The bot streams (ServeBot) open on every matchmaking replica, so that a pool's
-- matcher fills empty seats from the whole bot pool, not only from the bots that
-- happen to be connected to its own replica.
--
-- Each replica writes its own streams: a row when a stream opens, deleted when it
-- closes, and every second the stream's room (capacity less the tables it plays
-- and the seats reserved for it) with a fresh heartbeat. A matcher whose own
-- streams have no room takes a seat from another replica's stream with room,
-- lowering that room in the same statement; the stream's replica finds the
-- committed assignment (mm_assignments, player_id = the bot account) within a
-- second and sends it down the stream the seat was taken from (the assignment's
-- bot_stream). Rows whose heartbeat stopped (their replica died) are ignored, and
-- deleted after a minute.
CREATE TABLE mm_bot_streams (
  stream_id  text PRIMARY KEY,
  replica    text NOT NULL,
  bot_id     text NOT NULL REFERENCES mm_bots (bot_id) ON DELETE CASCADE,
  modes      text[] NOT NULL,              -- mode names the stream plays
  room       integer NOT NULL,             -- tables it can take now
  heartbeat  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mm_bot_streams_replica ON mm_bot_streams (replica);

-- The bot stream a bot's seat was given to (NULL for people, and for seats given
-- before this column or finished after a crash): where its replica sends it.
ALTER TABLE mm_assignments ADD COLUMN bot_stream text;
CREATE INDEX mm_assignments_bot_stream ON mm_assignments (bot_stream)
  WHERE bot_stream IS NOT NULL AND NOT finished;
