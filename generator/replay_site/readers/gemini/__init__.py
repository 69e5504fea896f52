"""The Gemini CLI reader: `reader` holds READER; `conversation` builds a session from its records; `parts` reads the Gemini API content Qwen Code shares."""
