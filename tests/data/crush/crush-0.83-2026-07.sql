-- Crush 0.83 (July 2026), on schema-2025.sql and read_files (20260127): a command the user ran with
-- "!" (bang mode, a shell_command part), an image, a write's diff, a failed view, a provider
-- error, and what the reader must warn about: an unknown part type, an unknown role, parts
-- that are not JSON, a message of a session not in the database. Figures: tests/test_crush.py.
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20260127000000, 1);
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
