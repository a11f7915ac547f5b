-- A history journal as acecode wrote it at schema version 1 (before the named
-- migrations): three learn cycles on a playbook.json. Loaded by test_journal_migrations.py.
PRAGMA user_version = 1;
BEGIN TRANSACTION;
CREATE TABLE changes (
    seq INTEGER NOT NULL REFERENCES cycles(seq),
    name TEXT NOT NULL,
    before_section TEXT,
    before_position INTEGER,
    before_entry TEXT,
    after_section TEXT,
    after_position INTEGER,
    after_entry TEXT,
    cause TEXT,
    reason TEXT
);
INSERT INTO "changes" VALUES(1,'mis-001',NULL,NULL,NULL,'MISTAKES TO AVOID',0,'{"name": "mis-001", "text": "Never commit .env files.", "helpful": 0, "harmful": 0}',NULL,NULL);
INSERT INTO "changes" VALUES(2,'pat-001','PATTERNS & APPROACHES',0,'{"name": "pat-001", "text": "Run pytest -x first.", "helpful": 1, "harmful": 0}','PATTERNS & APPROACHES',0,'{"name": "pat-001", "text": "Run pytest -x -q first.", "helpful": 2, "harmful": 0}',NULL,NULL);
INSERT INTO "changes" VALUES(3,'mis-001','MISTAKES TO AVOID',0,'{"name": "mis-001", "text": "Never commit .env files.", "helpful": 0, "harmful": 0}',NULL,NULL,NULL,'delete','stale');
CREATE TABLE cycles (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    cycle_id TEXT NOT NULL UNIQUE,
    playbook TEXT NOT NULL,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    source TEXT,
    undoes TEXT,
    counts TEXT NOT NULL,
    operations TEXT NOT NULL,
    meta TEXT NOT NULL
);
INSERT INTO "cycles" VALUES(1,'20260101-100000-aaaaaa','playbook.json','2026-11-23T16:04:24+00:00','learn','s1.jsonl',NULL,'{"added": 1, "updated": 0, "rated": 0, "merged": 0, "deleted": 0, "pruned": 0, "removed": 0}','[]','{}');
INSERT INTO "cycles" VALUES(2,'20260102-100000-bbbbbb','playbook.json','2026-11-23T16:04:25+00:00','learn','s2.jsonl',NULL,'{"added": 0, "updated": 1, "rated": 0, "merged": 0, "deleted": 0, "pruned": 0, "removed": 0}','[]','{}');
INSERT INTO "cycles" VALUES(3,'20260103-100000-cccccc','playbook.json','2026-11-23T16:04:25+00:00','learn','s3.jsonl',NULL,'{"added": 0, "updated": 0, "rated": 0, "merged": 0, "deleted": 1, "pruned": 0, "removed": 1}','[]','{}');
CREATE INDEX changes_by_name ON changes(name);
CREATE INDEX changes_by_seq ON changes(seq);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('cycles',3);
COMMIT;
