"""Secrets of formats that need no keyword beside them (issue 33), in every field a built site
shows: an Okta API token as a file name (the files ledger, files.html, the search index), a
Twilio account SID in prose beside TWILIO_ACCOUNT_SID, GitHub's and npm's tokens glued to a
word, a name ending in `_SID` or `_SECRET` in lower case. Each counts as gone only when no
output file and no output file name holds it.
"""
from __future__ import annotations

import random
import string
import zlib
from pathlib import Path

import pytest
from claude_transcript import ClaudeTranscript

from replay_site.pipeline import stages as site

SESSION = "c1a0de00-0000-4000-8000-000000000033"
_random = random.Random(3303)
ALNUM = string.ascii_letters + string.digits


def _pick(alphabet: str, length: int) -> str:
    return "".join(_random.choice(alphabet) for _ in range(length))


def _checksummed(prefix: str) -> str:
    """GitHub's token scheme (npm's too): 30 random base62 characters and their CRC32 in 6."""
    random_part, alphabet = _pick(ALNUM, 30), string.digits + string.ascii_uppercase + string.ascii_lowercase
    value, digits = zlib.crc32(random_part.encode()), ""
    while value:
        value, digit = divmod(value, 62)
        digits = alphabet[digit] + digits
    return prefix + random_part + digits.rjust(6, "0")


OKTA = "00" + _pick(ALNUM + "-_", 38) + "Zq"  # 42 characters, mixed classes as issued
TWILIO_SID = "AC" + _pick("0123456789abcdef", 32)
GITHUB = _checksummed("gh" + "p_")
NPM = _checksummed("np" + "m_")
LOWER_SECRET = _pick(ALNUM, 28)
SECRETS = [OKTA, TWILIO_SID, GITHUB, NPM, LOWER_SECRET]


def _log() -> str:
    log = ClaudeTranscript(SESSION, "Rotate the keys")
    log.add("user", "Find the keys and rotate them.", 1)
    log.add("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": f"/home/dev/app/keys/{OKTA}.txt"}}], 2)
    log.add("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1\tok"}], 3)
    log.add("assistant", [{"type": "tool_use", "id": "toolu_2", "name": "Write",
                           "input": {"file_path": f"/home/dev/app/keys/{OKTA}.json", "content": "{}"}}], 4)
    log.add("user", [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "File created"}], 5)
    log.say(f"I set TWILIO_ACCOUNT_SID to {TWILIO_SID} in the CI settings.", 6)
    log.say(f"The old tokens were key{GITHUB} and auth{NPM}; stripe_webhook_secret: {LOWER_SECRET}", 7)
    return log.text()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("keywordless")
    log = root / "logs" / "-home-dev-app" / f"{SESSION}.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(_log())
    site.build([root / "logs"], root / "site", site.BuildOptions(format="claude"))
    return root / "site"


def test_keywordless_secrets_are_gone_from_every_page_file_and_name(built):
    files = sorted(path for path in built.rglob("*") if path.is_file())
    everything = "\n".join(str(path.relative_to(built)) for path in files) + "".join(
        path.read_bytes().decode("utf-8", "replace") for path in files)
    assert [secret for secret in SECRETS if secret in everything] == []
    # The file names keep their folder and extension: only the token is replaced.
    assert "keys/[REDACTED:okta-api-token·32-63chars].txt" in everything and "keys/[REDACTED:okta-api-token·32-63chars].json" in everything
    assert "I set TWILIO_ACCOUNT_SID to [REDACTED:" in everything


def test_the_search_index_and_the_files_page_are_built(built):
    """The places the first test reads must exist, or it would pass on a site without them."""
    names = {path.name for path in built.rglob("*")}
    assert "files.html" in names and any("search" in name for name in names)
