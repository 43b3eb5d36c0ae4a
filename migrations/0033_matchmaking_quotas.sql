-- Matchmaking's quotas (services/matchmaking/README.md, "Bounds").
--
-- A player is a member of one live party at most (TicketStore::CreateParty and
-- JoinParty look for the one they are in): the parties by member.
CREATE INDEX mm_parties_members ON mm_parties USING gin (members);

-- Bot fill is spread over the accounts: a matcher taking a seat of another
-- replica's stream prefers the account given one least recently (BotStreams).
ALTER TABLE mm_bot_streams ADD COLUMN given timestamptz;
