-- Crush 0.83 (July 2026): the schema with read_files (20260127), a command the user ran with
-- "!" (bang mode, a shell_command part), an image, a write's diff, a failed view, a provider
-- error, and what the reader must warn about: an unknown part type, an unknown role, parts
-- that are not JSON, a message of a session not in the database. Figures: tests/test_crush.py.
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL, is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
INSERT INTO goose_db_version (version_id, is_applied) VALUES (0, 1), (20250424200609, 1), (20250515105448, 1), (20250624000000, 1), (20250627000000, 1), (20250810000000, 1), (20250812000000, 1), (20260127000000, 1);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
    cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0),
    updated_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    UNIQUE(path, session_id, version)
);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL default '[]',
    model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
ALTER TABLE sessions ADD COLUMN summary_message_id TEXT;
ALTER TABLE messages ADD COLUMN provider TEXT;
ALTER TABLE messages ADD COLUMN is_summary_message INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE sessions ADD COLUMN todos TEXT;
CREATE TABLE IF NOT EXISTS read_files (
    session_id TEXT NOT NULL CHECK (session_id != ''),
    path TEXT NOT NULL CHECK (path != ''),
    read_at INTEGER NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    PRIMARY KEY (path, session_id)
);

INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost, updated_at, created_at) VALUES
 ('0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', NULL, 'Untitled Session', 9, 9000, 150, 0.004, 1783420260, 1783420000);

INSERT INTO messages (id, session_id, role, parts, model, provider, is_summary_message, created_at, updated_at, finished_at) VALUES
 ('n-01', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'user',
  '[{"type":"shell_command","data":{"command":"ls","output":"main.go\nREADME.old","exit_code":0}}]', NULL, NULL, 0, 1783420000, 1783420000, NULL),
 ('n-02', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'user',
  '[{"type":"text","data":{"text":"Write a README for this app"}},{"type":"binary","data":{"Path":"/tmp/shot.png","MIMEType":"image/png","Data":"iVBORw0KGgo="}}]', NULL, NULL, 0, 1783420010, 1783420010, NULL),
 ('n-03', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'assistant',
  '[{"type":"text","data":{"text":"Writing it."}},{"type":"tool_call","data":{"id":"call_w1","name":"write","input":"{\"file_path\":\"/srv/app/README.md\",\"content\":\"# App\\n\\nRun it.\\n\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1783420020}}]',
  'gpt-5.1', 'openai', 0, 1783420020, 1783420020, 1783420020),
 ('n-04', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"call_w1","name":"write","content":"<result>\nFile successfully written: /srv/app/README.md\n</result>","data":"","mime_type":"","metadata":"{\"diff\":\"--- /dev/null\\n+++ /srv/app/README.md\\n@@ -0,0 +1,3 @@\\n+# App\\n+\\n+Run it.\\n\",\"additions\":3,\"removals\":0}","is_error":false}}]',
  NULL, NULL, 0, 1783420021, 1783420021, NULL),
 ('n-05', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'assistant',
  '[{"type":"tool_call","data":{"id":"call_v1","name":"view","input":"{\"file_path\":\"/srv/app/missing.go\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1783420030}}]',
  'gpt-5.1', 'openai', 0, 1783420030, 1783420030, 1783420030),
 ('n-06', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"call_v1","name":"view","content":"file not found: /srv/app/missing.go","data":"","mime_type":"","metadata":"","is_error":true}}]',
  NULL, NULL, 0, 1783420031, 1783420031, NULL),
 ('n-07', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'assistant',
  '[{"type":"hologram","data":{"shape":"a part Crush never wrote"}},{"type":"text","data":{"text":"Done."}},{"type":"finish","data":{"reason":"error","time":1783420040,"message":"Provider error","details":"rate limited"}}]',
  'gpt-5.1', 'openai', 0, 1783420040, 1783420040, 1783420040),
 ('n-08', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'narrator',
  '[{"type":"text","data":{"text":"and then"}}]', NULL, NULL, 0, 1783420050, 1783420050, NULL),
 ('n-09', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', 'assistant', 'not json', 'gpt-5.1', 'openai', 0, 1783420060, 1783420060, NULL),
 ('n-99', 'a-session-deleted-since', 'user', '[{"type":"text","data":{"text":"orphan"}}]', NULL, NULL, 0, 1783420070, 1783420070, NULL);

INSERT INTO files (id, session_id, path, content, version, created_at, updated_at) VALUES
 ('file-9', '0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', '/srv/app/README.md', '# App

Run it.
', 0, 1783420021, 1783420021);
INSERT INTO read_files (session_id, path, read_at) VALUES ('0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a', '/srv/app/main.go', 1783420015);
