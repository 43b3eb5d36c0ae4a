-- A bot account's level (proto BotLevel's name without its prefix: 'beginner',
-- 'casual', 'strong', 'expert'; '' for an account registered without one, as every
-- account before this column).
ALTER TABLE mm_bots ADD COLUMN level text NOT NULL DEFAULT ''
  CHECK (level IN ('', 'beginner', 'casual', 'strong', 'expert'));
