-- Whether a player hears an 'invited' notice when someone names them in a new game.
ALTER TABLE players ADD COLUMN invitation_notices BOOLEAN NOT NULL DEFAULT 1;
