-- Private rooms (proto/trix/v1/rooms.proto, services/matchmaking/rooms/): one row
-- per room, the room itself as its service keeps it (`room`, JSON: members, seats,
-- ready flags, owner, current game, series) under a version that every change
-- raises, so that two changes made from the same version never both apply (one
-- StartGame makes the table, the other sees it). The other columns are what the
-- replicas look rooms up by: the invite code (unique, expiring), the rooms with a
-- game on (whose tables are watched for their end), and the empty rooms past
-- their idle time (deleted). The seats of a room's games are rows of
-- mm_assignments, written with the room, as Quick Play's are.
CREATE TABLE mm_rooms (
  room_id       text PRIMARY KEY,
  code          text NOT NULL UNIQUE,
  code_expires  timestamptz NOT NULL,
  version       bigint NOT NULL,
  room          text NOT NULL,
  members       integer NOT NULL,
  playing       boolean NOT NULL DEFAULT false,
  created       timestamptz NOT NULL DEFAULT now(),
  changed       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mm_rooms_playing ON mm_rooms (room_id) WHERE playing;
CREATE INDEX mm_rooms_idle ON mm_rooms (changed) WHERE members = 0 AND NOT playing;
