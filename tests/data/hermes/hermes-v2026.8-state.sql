-- Hermes Agent v2026.8 (August 2026): the schema-30 tables this reader reads (sessions and
-- messages with their later columns, session_model_usage), a session compacted and continued
-- in another (its parent_session_id), a rewound reply, multimodal content behind the
-- "\x01json:" sentinel, an error reply, a role no Hermes writes, a message of a session not in
-- the database. Figures: tests/test_hermes.py.
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (30);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
INSERT INTO system_prompts VALUES ('9f1c', 'You are Hermes Agent.');
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    created_source TEXT,
    user_id TEXT,
    session_key TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    system_prompt_hash TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
    billing_provider TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    title TEXT,
    title_source TEXT,
    last_activity_at REAL,
    api_call_count INTEGER DEFAULT 0,
    profile_name TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    tool_names TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    _compressed_summary INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0,
    api_content TEXT,
    display_kind TEXT,
    display_metadata TEXT,
    display_identity BLOB,
    display_order INTEGER
);
CREATE TABLE session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT,
    first_seen REAL,
    last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);

INSERT INTO sessions (id, source, model, system_prompt_hash, parent_session_id, started_at, ended_at, end_reason, message_count, tool_call_count,
                      input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cwd, git_branch,
                      estimated_cost_usd, actual_cost_usd, title, title_source, api_call_count, tool_names) VALUES
 ('20260812_090000_0f0f0f', 'cli', 'openai/gpt-5.1', '9f1c', NULL, 1786525200.0, 1786527000.0, 'compression', 10, 2,
  5000, 700, 12000, 0, 200, '/srv/cli', 'main', 0.03, 0.021, NULL, NULL, 3, '["write_file", "todo"]'),
 ('20260812_093000_1a1a1a', 'cli', 'openai/gpt-5.1', '9f1c', '20260812_090000_0f0f0f', 1786527000.0, 1786527300.0, NULL, 2, 0,
  1000, 100, 0, 0, 0, '/srv/cli', 'main', 0.002, NULL, 'Port the CLI to click #2', 'derived', 1, NULL);

INSERT INTO session_model_usage (session_id, model, task, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
                                 estimated_cost_usd, actual_cost_usd, cost_status, cost_source, first_seen, last_seen) VALUES
 ('20260812_090000_0f0f0f', 'openai/gpt-5.1', '', 2, 4600, 650, 12000, 0, 200, 0.028, 0.021, 'actual', 'provider', 1786525210.0, 1786526990.0),
 ('20260812_090000_0f0f0f', 'google/gemini-2.5-flash', 'compression', 1, 400, 50, 0, 0, 0, 0.002, 0, 'estimated', 'pricing_table', 1786526900.0, 1786526900.0);

INSERT INTO messages (id, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning_content, _compressed_summary, active, compacted) VALUES
 (20, '20260812_090000_0f0f0f', 'user', 'Port the CLI to click', NULL, NULL, NULL, 1786525200.0, NULL, NULL, 0, 0, 1),
 (21, '20260812_090000_0f0f0f', 'assistant', 'Porting.', NULL,
  '[{"id": "call_t1", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\": \"/srv/cli/main.py\", \"content\": \"import click\\n\"}"}}]',
  NULL, 1786525260.0, 'tool_calls', 'Start with main.py.', 0, 0, 1),
 (22, '20260812_090000_0f0f0f', 'tool', '{"bytes_written": 13, "path": "/srv/cli/main.py"}', 'call_t1', NULL, 'write_file', 1786525261.0, NULL, NULL, 0, 0, 1),
 (23, '20260812_090000_0f0f0f', 'user', char(1) || 'json:[{"type": "text", "text": "Use this layout"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]',
  NULL, NULL, NULL, 1786526000.0, NULL, NULL, 0, 1, 0),
 (24, '20260812_090000_0f0f0f', 'assistant', 'Sure, one moment.', NULL, NULL, NULL, 1786526010.0, 'stop', NULL, 0, 0, 0),
 (25, '20260812_090000_0f0f0f', 'user', '[CONTEXT COMPACTION] Earlier: main.py was ported to click.', NULL, NULL, NULL, 1786526900.0, NULL, NULL, 1, 1, 0),
 (26, '20260812_090000_0f0f0f', 'assistant', '', NULL,
  '[{"id": "call_t2", "type": "function", "function": {"name": "todo", "arguments": "{\"todos\": [{\"id\": \"1\", \"content\": \"Port main\", \"status\": \"completed\"}, {\"id\": \"2\", \"content\": \"Port tests\", \"status\": \"pending\"}]}"}}]',
  NULL, 1786526950.0, 'tool_calls', NULL, 0, 1, 0),
 (27, '20260812_090000_0f0f0f', 'tool', '{"todos": [{"id": "1", "status": "completed"}, {"id": "2", "status": "pending"}], "summary": {"total": 2}}', 'call_t2', NULL, 'todo', 1786526951.0, NULL, NULL, 0, 1, 0),
 (28, '20260812_090000_0f0f0f', 'oracle', 'a role Hermes never wrote', NULL, NULL, NULL, 1786526960.0, NULL, NULL, 0, 1, 0),
 (29, '20260812_090000_0f0f0f', 'assistant', 'API error: overloaded', NULL, NULL, NULL, 1786526990.0, 'error', NULL, 0, 1, 0),
 (30, '20260812_093000_1a1a1a', 'user', 'Continue porting the tests', NULL, NULL, NULL, 1786527000.0, NULL, NULL, 0, 1, 0),
 (31, '20260812_093000_1a1a1a', 'assistant', 'Done: tests use click.testing.', NULL, NULL, NULL, 1786527290.0, 'stop', NULL, 0, 1, 0),
 (32, '20260801_000000_gone00', 'user', 'orphan', NULL, NULL, NULL, 1785542400.0, NULL, NULL, 0, 1, 0);
