-- Which consumer applied the last outbox batch, and how many batches there have
-- been. A consumer keeps the ratings it wrote in memory while no other replica has
-- applied a batch since its own last one; anything else that changes
-- ratings.player_ratings must also set owner = '' so that every consumer rereads.
CREATE TABLE ratings.consumer_state (
  id     integer PRIMARY KEY CHECK (id = 1),
  owner  text NOT NULL,
  batch  bigint NOT NULL
);
INSERT INTO ratings.consumer_state VALUES (1, '', 0);
