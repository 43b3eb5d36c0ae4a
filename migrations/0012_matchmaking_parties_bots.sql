-- Matchmaking: parties of two, and bot accounts.

CREATE TABLE mm_parties (
  party_id  text PRIMARY KEY,
  code      text NOT NULL UNIQUE,          -- what the second member joins with
  members   text[] NOT NULL,               -- player ids, the creator first
  created   timestamptz NOT NULL DEFAULT now(),
  expires   timestamptz NOT NULL
);

-- A bot's key is shown once, when registered or rotated; only its SHA-256 is kept.
CREATE TABLE mm_bots (
  bot_id    text PRIMARY KEY,              -- also its player id at tables and in ratings
  name      text NOT NULL UNIQUE,
  owner     text NOT NULL DEFAULT '',
  modes     text[] NOT NULL,               -- mode names it plays
  key_hash  text NOT NULL UNIQUE,
  revoked   boolean NOT NULL DEFAULT false,
  created   timestamptz NOT NULL DEFAULT now()
);
