-- The messages of a game are read on their own (the web client's chat panel reads them
-- again after every move): an index of just those events, so that reading them costs in
-- proportion to the messages, not to the game's whole log.
CREATE INDEX events_messages ON events (game_id, seq) WHERE kind = 'message_posted';
