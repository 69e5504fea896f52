-- Crush 0.33 (January 2026), on schema-2025.sql (before read_files, 20260127): one session
-- with an agent-tool subagent. Figures: tests/test_crush.py.

INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost, updated_at, created_at, todos) VALUES
 ('f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', NULL, 'Fix the failing date test', 6, 18450, 210, 0.0612, 1768560300, 1768560000,
  '[{"content":"Fix layout","status":"completed","active_form":"Fixing layout"},{"content":"Run tests","status":"in_progress","active_form":"Running tests"}]'),
 ('8d1c0b2a-0002-4000-8000-000000000002$$call_agent_1', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', 'New Agent Session', 4, 4200, 60, 0.011, 1768560012, 1768560006, NULL);

INSERT INTO messages (id, session_id, role, parts, model, provider, is_summary_message, created_at, updated_at, finished_at) VALUES
 ('8d1c0b2a-0001-4000-8000-000000000001', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', 'user',
  '[{"type":"text","data":{"text":"The date test fails: fix it"}}]', NULL, NULL, 0, 1768560000, 1768560000, NULL),
 ('8d1c0b2a-0002-4000-8000-000000000002', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', 'assistant',
  '[{"type":"reasoning","data":{"thinking":"Find the test first.","signature":"sig","thought_signature":"","tool_id":"","responses_data":null}},{"type":"text","data":{"text":"Let me find the test."}},{"type":"tool_call","data":{"id":"call_agent_1","name":"agent","input":"{\"prompt\":\"Find the test that checks dates\"}","provider_executed":false,"finished":true}},{"type":"tool_call","data":{"id":"call_bash_1","name":"bash","input":"{\"command\":\"go test ./...\",\"description\":\"run tests\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1768560005}}]',
  'claude-sonnet-4-5-20250929', 'anthropic', 0, 1768560005, 1768560005, 1768560005),
 ('8d1c0b2a-0003-4000-8000-000000000003', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"call_agent_1","name":"agent","content":"dates_test.go: TestParseDate","data":"","mime_type":"","metadata":"","is_error":false}},{"type":"tool_result","data":{"tool_call_id":"call_bash_1","name":"bash","content":"--- FAIL: TestParseDate\nFAIL\nExit code 1","data":"","mime_type":"","metadata":"{\"start_time\":1768560020,\"end_time\":1768560029,\"output\":\"--- FAIL: TestParseDate\\nFAIL\",\"description\":\"run tests\",\"working_directory\":\"/home/dev/dates\"}","is_error":false}}]',
  NULL, NULL, 0, 1768560030, 1768560030, NULL),
 ('8d1c0b2a-0004-4000-8000-000000000004', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', 'assistant',
  '[{"type":"text","data":{"text":"I''ll fix the layout string."}},{"type":"tool_call","data":{"id":"call_edit_1","name":"edit","input":"{\"file_path\":\"/home/dev/dates/dates.go\",\"old_string\":\"2006-01-02 15:04\",\"new_string\":\"2006-01-02\"}","provider_executed":false,"finished":true}},{"type":"tool_call","data":{"id":"call_todos_1","name":"todos","input":"{\"todos\":[{\"content\":\"Fix layout\",\"status\":\"completed\",\"active_form\":\"Fixing layout\"},{\"content\":\"Run tests\",\"status\":\"in_progress\",\"active_form\":\"Running tests\"}]}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1768560040}}]',
  'claude-sonnet-4-5-20250929', 'anthropic', 0, 1768560040, 1768560040, 1768560040),
 ('8d1c0b2a-0005-4000-8000-000000000005', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"call_edit_1","name":"edit","content":"<result>\nContent replaced in file: /home/dev/dates/dates.go\n</result>","data":"","mime_type":"","metadata":"{\"additions\":1,\"removals\":1,\"old_content\":\"package dates\\n\\nconst layout = \\\"2006-01-02 15:04\\\"\\n\",\"new_content\":\"package dates\\n\\nconst layout = \\\"2006-01-02\\\"\\n\"}","is_error":false}},{"type":"tool_result","data":{"tool_call_id":"call_todos_1","name":"todos","content":"Todo list updated","data":"","mime_type":"","metadata":"{\"is_new\":true,\"todos\":[],\"completed\":1,\"total\":2}","is_error":false}}]',
  NULL, NULL, 0, 1768560045, 1768560045, NULL),
 ('8d1c0b2a-0006-4000-8000-000000000006', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', 'assistant',
  '[{"type":"tool_call","data":{"id":"call_bash_2","name":"bash","input":"{\"command\":\"go test ./...\",\"description\":\"run tests\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"canceled","time":1768560052}}]',
  'claude-sonnet-4-5-20250929', 'anthropic', 0, 1768560050, 1768560052, 1768560052),
 ('c1000000-0001-4000-8000-000000000001', '8d1c0b2a-0002-4000-8000-000000000002$$call_agent_1', 'user',
  '[{"type":"text","data":{"text":"Find the test that checks dates"}}]', NULL, NULL, 0, 1768560006, 1768560006, NULL),
 ('c1000000-0002-4000-8000-000000000002', '8d1c0b2a-0002-4000-8000-000000000002$$call_agent_1', 'assistant',
  '[{"type":"tool_call","data":{"id":"call_grep_1","name":"grep","input":"{\"pattern\":\"ParseDate\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1768560008}}]',
  'claude-haiku-4-5-20251001', 'anthropic', 0, 1768560008, 1768560008, 1768560008),
 ('c1000000-0003-4000-8000-000000000003', '8d1c0b2a-0002-4000-8000-000000000002$$call_agent_1', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"call_grep_1","name":"grep","content":"dates_test.go","data":"","mime_type":"","metadata":"","is_error":false}}]',
  NULL, NULL, 0, 1768560009, 1768560009, NULL),
 ('c1000000-0004-4000-8000-000000000004', '8d1c0b2a-0002-4000-8000-000000000002$$call_agent_1', 'assistant',
  '[{"type":"text","data":{"text":"dates_test.go: TestParseDate"}},{"type":"finish","data":{"reason":"end_turn","time":1768560012}}]',
  'claude-haiku-4-5-20251001', 'anthropic', 0, 1768560012, 1768560012, 1768560012);

INSERT INTO files (id, session_id, path, content, version, created_at, updated_at) VALUES
 ('file-1', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', '/home/dev/dates/dates.go', 'package dates

const layout = "2006-01-02 15:04"
', 0, 1768560041, 1768560041),
 ('file-2', 'f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f', '/home/dev/dates/dates.go', 'package dates

const layout = "2006-01-02"
', 1, 1768560045, 1768560045);
