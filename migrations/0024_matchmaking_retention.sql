-- What matchmaking keeps, and for how long. A ticket that ended (matched,
-- cancelled, superseded), an assignment whose game is over and a party past its
-- expiry matter for a while only: a client that resubmits the same request, or
-- asks for its assignment again, does so within seconds or minutes. Without a
-- sweep the queue's tables grow by every ticket ever queued (at 2,000 tickets a
-- second, 170 million rows a day), and their partial indexes carry the dead
-- entries of every ticket matched since the last vacuum. Every matchmaking replica
-- sweeps (TicketStore::SweepEnded) rows older than --keep_ended, using these
-- indexes; an assignment still marked live is swept a day after it was made (no
-- game lasts that long: every decision has a clock).
CREATE INDEX mm_tickets_ended ON mm_tickets (changed)
  WHERE status IN ('matched', 'cancelled', 'superseded');
CREATE INDEX mm_assignments_matched ON mm_assignments (matched);
CREATE INDEX mm_parties_expires ON mm_parties (expires);

-- Every ticket is inserted and updated twice within seconds: vacuum and analyze
-- these tables after 2% of their rows changed, not the default 20%, so that the
-- planner's statistics and the indexes follow the queue.
ALTER TABLE mm_tickets SET (autovacuum_vacuum_scale_factor = 0.02,
                            autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE mm_assignments SET (autovacuum_vacuum_scale_factor = 0.02,
                                autovacuum_analyze_scale_factor = 0.02);
