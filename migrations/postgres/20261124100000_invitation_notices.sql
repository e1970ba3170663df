-- Whether a player hears an 'invited' notice when someone names them in a new game.
ALTER TABLE players ADD COLUMN invitation_notices BOOLEAN NOT NULL DEFAULT TRUE;
-- The server changes this setting (PATCH /v1/players/me) and nothing else of a player.
GRANT UPDATE (invitation_notices) ON players TO worp_server;
