-- Each player's name key: the name case-folded, without marks or invisible characters,
-- reduced to Unicode's confusable skeleton (UTS #39; api/src/service/names.rs). The
-- primary key is what keeps two players from holding names that look alike, however
-- many register at once. A player registered before this table whose name collides with
-- an earlier one's keeps it and has no key (`worp rebuild` lists them).
CREATE TABLE name_keys (
    key        TEXT PRIMARY KEY,
    player_id  BLOB NOT NULL UNIQUE
);
