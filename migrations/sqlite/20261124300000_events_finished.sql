-- The ratings projection reads every game_finished event in global order, and asks
-- often how many there are: an index of just those events.
CREATE INDEX events_finished ON events (position) WHERE kind = 'game_finished';
