"""No false positives on ordinary code and config (issue 33): an assignment whose value is a plain
word, an identifier, a placeholder, an environment lookup or a file path is left alone, and so
is one whose name says it holds something about a credential (its name, type, file, length)
rather than the credential. The same syntax holding a random value under a credential's name
is redacted, so the set cannot pass by redacting nothing.
"""
from __future__ import annotations

import json
import random
import string

import pytest

from replay_site.model import Session, Step, ToolCall
from replay_site.redact import redact_session

# Config, code and shell lines a session shows every day; none holds a credential.
LOOKALIKES = [
    "session_cookie_name = 'sessionid'", "SESSION_COOKIE_NAME = 'sessionid'", "CSRF_COOKIE_NAME = 'csrftoken'",
    '{"session_cookie_name": "sessionid", "csrf_cookie_name": "csrftoken"}',
    "currentKeyboardLayout = 'com.apple.keylayout.Thai'", "keyboard_layout_key = com.apple.keylayout.Thai",
    "layout_key = 'com.apple.keylayout.ABC-QWERTZ'", "input_source_key: com.apple.keylayout.USExtended",
    "KeyboardLayoutId = 'xkb:us:altgr-intl:eng-US'", "layout_key: 00000409-00000409-0000409",
    "api_key_header = 'X-Api-Key'", "token_header: Authorization", "secret_key_name = 'django_secret'",
    "password_field = 'password1'", "token_type = 'bearer'", "TOKEN_TYPE=Bearer", "auth_token_name = 'sessionid'",
    "api_key = os.environ['API_KEY']", "API_KEY=${API_KEY:-}", "SECRET_KEY = env('DJANGO_SECRET_KEY')",
    "secret_key = settings.SECRET_KEY", "password = getpass.getpass()", "token = request.headers.get('X-Token')",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}", "NPM_TOKEN=$NPM_TOKEN", "DB_PASSWORD=%DB_PASSWORD%",
    "private_key_path = /etc/ssl/private/server.key", "PRIVATE_KEY_FILE=/Users/Dev/Certs/Server2024.pem",
    "ssh_key: ~/.ssh/id_ed25519", "api_key_file = ./secrets/api_key.txt", "token_path: C:\\Users\\dev\\token.txt",
    "secret_name: prod/db/credentials", "SECRETS_DIR=/run/secrets", "password_command = pass show mail/work",
    "password_min_length = 12", "token_expiry_seconds = 3600", "max_tokens = 4096", "tokens: 128000 input",
    "TOKEN_TTL=15m", "key: value", "key = 'primary'", "sort_key = 'created_at'", "partition_key: tenantId",
    "primary_key = 'id'", "foreign_key: user_id", "cache_key = f'user:{uid}'", "key_prefix: myapp_cache_",
    "keymap = 'vim'", "hotkey: ctrl+shift+p", "monkey = 'patched'", "keyboard: us-intl",
    "apiKeyName: 'x-functions-key'", "secretRef: my-secret-object", "secretName: tls-cert-prod",
    "tokenizer = 'cl100k_base'", "TOKENIZER_PATH=/models/tokenizer.json", "password: required",
    "password: str = Field(min_length=8)", "def check_password(password: str) -> bool:",
    "token = None", "password = ''", 'api_key: ""', "secret: false", "token: true", "api_key: null",
    "key_length = 2048", "KEY_SIZE=4096", "key_algorithm: RS256", "signing_key_id: 1a2b3c",
    "AWS_ACCESS_KEY_ID=$(aws configure get aws_access_key_id)", "aws_secret_access_key = <redacted>",
    "password = 'changeme'", "password: hunter2", "password = 'password123'", "token = 'your-token-here'",
    "api_key = 'sk-xxxxxxxxxxxxxxxxxxxx'", "secret = 'dev-secret'", "SECRET_KEY = 'django-insecure-key'",
    "APP_KEY=base64:", "key_vault_name = 'kv-prod-westeu'", "KEY_VAULT_URL=https://kv-prod.vault.azure.net/",
    "token_url = 'https://oauth2.googleapis.com/token'", "TOKEN_ENDPOINT=https://login.acme.dev/oauth/token",
    "credentials_file: ~/.config/gcloud/application_default_credentials.json",
    "GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/service-account.json",
    "public_key = 'ssh-ed25519'", "key_id = 'ABCDEF0123456789'", "secret_version: latest",
    "token_usage: {input: 1200, output: 300}", "passwordless = True", "secretary: Jane Smith",
    "pat_expiry: 2026-12-31", "TWILIO_ACCOUNT_SID_NAME=account", "sid: 42", "user_sid = 'S-1-5-21-1004'",
    "encryption_key_rotation = '90d'", "KEY_ROTATION_DAYS=90", "access_key_policy: ReadOnlyAccess",
    "token_scope: repo,read:org", "api_key_location: header", "SECRET_BACKEND=vault",
    "registry_key: HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft", "key_format = 'PEM'", "token_format: JWT",
    "DEFAULT_KEYBOARD_LAYOUT=com.apple.keylayout.US", "appleKeyboardLayout: com.apple.keylayout.ABC",
    "password_hash_algorithm = 'argon2id'", "secret_length: 32", "api_version = '2024-06-01'",
    "token_budget = 200_000", "refresh_token_rotation: enabled", "PASSED tests/test_token.py::test_refresh",
    "session_key = request.session.session_key", "cache_key_prefix = 'v2:'", "lookup_key = 'email'",
    "keyboard_layout_id: 'com.apple.keylayout.ABC'", "KeyboardLayout ID: 0x00000409",
    "secret_sauce = 'tomatoes'", "token_symbol = 'ETH'", "password_reset_url: /accounts/password/reset/",
    # From the shared corpus: a TypeScript object whose value is an expression.
    "litellmApiKey: isLiteLLM ? env.CODEMIE_API_KEY : undefined,", "apiKey: parseJSONString(raw),",
]

_random = random.Random(3333)
# Names that conventionally hold a credential, in the cases and joins configs write them.
CREDENTIAL_NAMES = ["DB_PASSWORD", "db_password", "dbPassword", "DBPASSWORD", "MAIL_PASS", "smtp_pwd", "GPG_PASSPHRASE",
                    "client_secret", "ClientSecret", "APP_SECRET", "GITHUB_TOKEN", "github_token", "authToken", "AUTHTOKEN",
                    "API_KEY", "api_key", "apiKey", "X-Api-Key", "STRIPE_SECRET_KEY", "secret_key_base", "SIGNING_KEY_PROD",
                    "AZURE_DEVOPS_EXT_PAT", "gitlab_pat", "TWILIO_ACCOUNT_SID", "twilio_api_sid", "CREDENTIALS"]


def _value() -> str:
    return "".join(_random.choice(string.ascii_letters + string.digits) for _ in range(24))


def _redacted(text: str) -> str:
    session = Session("s", "test", steps=[Step("user", text=text, tool_calls=[ToolCall("bash", output=text)])])
    redact_session(session)
    return session.steps[0].text


def test_the_lookalikes_are_many_and_distinct():
    assert len(LOOKALIKES) >= 100 and len(set(LOOKALIKES)) == len(LOOKALIKES)


def test_no_lookalike_is_altered():
    altered = [text for text in LOOKALIKES if _redacted(text) != text]
    assert altered == []


def test_the_lookalikes_together_as_one_file_are_not_altered():
    """Joined as one settings file, a tool output: views across lines (wrapped lines joined)
    find nothing either."""
    text = "\n".join(LOOKALIKES)
    assert _redacted(text) == text
    assert _redacted(json.dumps({"content": text})) == json.dumps({"content": text})


@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
def test_a_random_value_under_a_credentials_name_is_redacted_in_every_syntax(name):
    value = _value()
    for text in (f"{name}={value}", f"{name}: {value}", f'{name} = "{value}"', f"export {name}='{value}'",
                 json.dumps({name: value}), f"I set `{name}={value}` in CI."):
        shown = _redacted(text)
        assert value not in shown and "[REDACTED:" in shown, text
