"""Redaction's shortcuts never skip a secret: the words a rule needs (found by `words_in`) and
its shape (rules.SHAPES), the narrowing of a session's texts to the suspects, the names the
assignment rule tries, and the views made from a line break or a separator instead of by
scanning every position.

Each rule family gets a text holding one of its secrets (from tests/fake_secrets.py and
tests/secret_set.py where they have one, else written here from the rule's own examples); a
shortcut that dropped the rule, or the text, makes the test name the family.
"""
from __future__ import annotations

import base64
import binascii
import random
import re
import string
import zlib

import pytest
from fake_secrets import FAKES
from secret_set import SECRETS

from replay_site.model import Session, Step, ToolCall
from replay_site.redact import redact_session
from replay_site.redact.detect import Detector, _rule_hits, _rules_that_may_match, lowered, words_in
from replay_site.redact.rules import CONTEXT_RULES, NAMED_RULES, NEEDS, PROVIDER_RULES, names_a_secret, wordy
from replay_site.redact.views import base64_decoded, name_parts, views, wrapped


def _with_checksum(prefix: str, random_part: str) -> str:
    """A token of GitHub's scheme: the CRC32 of its 30 random characters in 6 base62 digits."""
    alphabet, value, digits = string.digits + string.ascii_uppercase + string.ascii_lowercase, zlib.crc32(random_part.encode()), ""
    while value:
        value, digit = divmod(value, 62)
        digits = alphabet[digit] + digits
    return prefix + random_part + digits.rjust(6, "0")


# For the families no fake secret of the two sets stands in (they are known by context, or
# by a checksum the fakes do not compute).
WRITTEN = {
    "github-token": "see " + _with_checksum("gh" + "p_", "Zx9vQ2mK7pL4Hx7Kq2Lm9Zp4Ab3Cd5"),
    "npm-token": "//registry.npmjs.org/:_authToken=" + _with_checksum("np" + "m_", "Hx7Kq2Lm9Zp4Zx9vQ2mK7pL4Ef6Gh8"),
    "twilio-sid": "Twilio account AC" + "0123456789abcdef" * 2,
    "assignment-secret": "DB_PASSWORD=c0rrect-horse-Battery9",
    "url-password": "postgres://deploy:Zx9vQ2mK7pL4@db.internal:5432/app",
    "authorization": "Authorization: Basic ZGVwbG95OnMzY3JldHBhc3N3b3Jk",
    "bearer-token": "curl -H 'X-Auth: Bearer Qm9yZWFsaXM6c2VjcmV0X3Rva2VuXzEyMw' https://api.x.dev",
    "netrc-password": "machine api.internal login bob password Hx7Kq2Lm9Zp4",
    "connection-string-key": "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + "Qk3mZ8pL2vX9nR4tY7wE1aS6dF0gH5jK" + "==",
    "query-secret": "curl 'https://api.x.dev/v1?api_key=q8w7e6r5t4y3&x=1'",
    "password-flag": "mysql -u root -pTr0ub4dor3x prod",
    "fly-token": "FLY_API_TOKEN: FlyV1 fm2_" + "lJPECAAAAAAAAMXKxBBQ" * 3,
    "square-access-token": "square: " + "sq0" + "atp-" + "Zx9vQ2mK7pL4Hx7Kq2Lm9Z",
}
# Every spelling of a name the assignment rule takes (names_a_secret's words, any case).
SECRET_NAMES = ["DB_PASSWORD", "dbPassword", "db_passwd", "GPG_PASSPHRASE", "aws_secret_access_key", "GITHUB_TOKEN",
                "api-key", "X_API_KEY", "ALGOLIA_ADMIN_KEY", "privateKey", "private_key", "AZURE_DEVOPS_EXT_PAT",
                "gitlab-pat", "CREDENTIALS", "apikey", "accessKey"]
ORDINARY = ["PASSED tests/test_path.py::test_pattern", "the keyboard's patch path", "def tokenize(text): ...",
            "ls -la /home/dev/project/src", "Reading file_path: /tmp/notes.md"]


def _sample(kind: str, pattern: re.Pattern[str]) -> str:
    if kind in WRITTEN:
        return WRITTEN[kind]
    values = [fake.value for fake in FAKES] + list(SECRETS.values())
    return next(value for value in values if pattern.search(value))


def _matches_as_written(kind: str, pattern: re.Pattern[str], text: str) -> bool:
    """Whether the rule's regex matches `text` at some position (a named rule's name holding
    a secret's word), without any of the shortcuts."""
    starts = range(len(text)) if kind in NAMED_RULES else [None]
    for start in starts:
        match = pattern.match(text, start) if start is not None else pattern.search(text)
        if match and (kind not in NAMED_RULES or names_a_secret(match["name"])):
            return True
    return False


def _suspects(texts: list[str]) -> tuple[Detector, list[str]]:
    return Detector().narrowed({text: views(text) for text in texts})


@pytest.mark.parametrize("kind", [kind for kind, _pattern in CONTEXT_RULES])
def test_every_rule_family_keeps_a_text_holding_its_secret(kind):
    pattern = dict(CONTEXT_RULES)[kind]
    text = f"Output of the last step:\n{_sample(kind, pattern)}\nDone."
    assert _matches_as_written(kind, pattern, text), "the sample must hold a secret of this family"
    assert kind in [rule for rule, _pattern in _rules_that_may_match(text, lowered(text))]
    narrow, suspects = _suspects([*ORDINARY, text])
    assert kind in [rule for rule, _pattern in narrow.rules]
    assert text in suspects
    assert any(hit.kind == kind for hit in _rule_hits(text, narrow.rules))


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_every_name_of_a_secret_is_tried_by_the_assignment_rule(name):
    for text in (f"{name}=Hx7Kq2Lm9Zp4", f'{{"{name}": "Hx7Kq2Lm9Zp4"}}', f"  {name}: Hx7Kq2Lm9Zp4"):
        assert [hit.kind for hit in _rule_hits(text, CONTEXT_RULES)] == ["assignment-secret"], text
        narrow, suspects = _suspects([*ORDINARY, text])
        assert suspects == [text]
    session = Session("s", "test", steps=[Step("assistant", text=f"export {name}=Hx7Kq2Lm9Zp4")])
    redact_session(session)
    assert "Hx7Kq2Lm9Zp4" not in session.steps[0].text and session.redactions == {"assignment-secret": 1}


def test_names_holding_pass_or_pat_without_a_secret_word_are_not_taken():
    for text in ("PASSED_COUNT=Hx7Kq2Lm9Zp4", "file_path=Hx7Kq2Lm9Zp4", "patch_id=Hx7Kq2Lm9Zp4", "compass=Hx7Kq2Lm9Zp4"):
        assert _rule_hits(text, CONTEXT_RULES) == [], text


def test_words_in_finds_exactly_the_words_a_text_holds():
    words = frozenset(word for needs in NEEDS.values() for word in needs) | {"ab", "abc", "abcd", "b", "bcd"}
    alphabet = [*words, *"abcdAB_-.:/= "]
    generator = random.Random(20)
    for _ in range(3000):
        text = "".join(generator.choice(alphabet)[:generator.randint(1, 6)] for _ in range(generator.randint(0, 20)))
        assert words_in(text, words) == {word for word in words if word in text}, text


# The views as first written: a regex over every position (the specification the faster
# versions in redact/views.py must match).
# A wrapped token: runs of six token characters or more, each but the first filling its line, and
# a last run of any length.
_WRAPPED = re.compile(r"(?<![A-Za-z0-9_\-+/=.:])[A-Za-z0-9_\-+/=.:]{6,}(?:\r?\n[A-Za-z0-9_\-+/=.:]{6,})*\r?\n[A-Za-z0-9_\-+/=.:]+")
_NAME_RUN = re.compile(r"[A-Za-z0-9_\-+=.]{16,}")
_FILE_EXTENSION = re.compile(r"\.(?:txt|json|jsonl|key|pem|env|log|ya?ml|cfg|conf|ini|toml|md|csv|sh|bak)$")


def _wrapped_as_specified(shown: str) -> list[str]:
    """Each regex match's runs, cut before a run that reads as words (it starts a line of its
    own); a group of three runs or more is given again from its second run."""
    pieces = []

    def add(group: list[str]) -> None:
        pieces.extend(["".join(group)] if len(group) > 1 else [])
        pieces.extend(["".join(group[1:])] if len(group) > 2 else [])

    for joined in _WRAPPED.findall(shown):
        group: list[str] = []
        for run in re.split(r"\r?\n", joined):
            if group and wordy(run):
                add(group)
                group = []
            group.append(run)
        add(group)
    return pieces


def _name_parts_as_specified(shown: str) -> list[str]:
    parts = []
    for run in _NAME_RUN.finditer(shown):
        start, end = run.span()
        if shown[start - 1:start] in ("/", "\\") or shown[end:end + 1] in ("/", "\\") or _FILE_EXTENSION.search(run.group(0)):
            parts.append(re.sub(r"\.[A-Za-z]{1,5}$", "", run.group(0)))
    return parts


def test_wrapped_lines_and_name_parts_are_the_ones_a_scan_of_every_position_finds():
    pieces = ["/", "\\", ".", "\n", "\r\n", "\r", " ", ":", "txt", "json", "jsonl", "yml", ".md", "__", "é",
              "sk_live_", "AbCdEf", "0123456789", "-", "+", "="]
    generator = random.Random(21)
    texts = ["keys/sk_live_0123456789abcdefXYZ.txt and C:\\keys\\0123456789abcdefXYZ\\x",
             "ghp_0123456789\nabcdefABCDEF0123\nanother_wrapped_line\r\nend_of_it_here", "a" * 20 + "/" + "b" * 20 + ".json"]
    for _ in range(20000):
        texts.append("".join(generator.choice(pieces) if generator.random() < 0.4 else generator.choice("aB3x_") * generator.randint(1, 18)
                             for _ in range(generator.randint(1, 24))))
    for text in texts:
        backwards = text[::-1]
        assert wrapped(text, backwards) == _wrapped_as_specified(text), text
        assert name_parts(text, backwards) == _name_parts_as_specified(text), text


_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}")


def _base64_decoded_as_specified(shown: str) -> dict[str, str]:
    """Every run of 24 base64 characters or more (and its padding) found by a regex tried at
    every position, decoded (either alphabet, not both) to printable text of 16 characters or more."""
    decoded = {}
    for run in _BASE64_RUN.findall(shown):
        body = run.rstrip("=")
        urlsafe = "-" in run or "_" in run
        if len(body) % 4 == 1 or (urlsafe and ("+" in run or "/" in run)):
            continue
        try:
            text = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_" if urlsafe else None, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            continue
        if len(text) >= 16 and all(c.isprintable() or c in "\n\r\t" for c in text):
            decoded.setdefault(text, run)
    return decoded


def test_base64_runs_are_the_ones_a_scan_of_every_position_finds():
    """The check that a text holds no run at all (each base64 character turned into one letter)
    skips no run: runs of 23, 24 and 25 characters, beside padding, non-ASCII characters (one
    byte once encoded for the check, several in UTF-8) and a lone surrogate."""
    generator = random.Random(22)
    encoded = [base64.b64encode(f"token={generator.random():.20f}!"[:size].encode()).decode() for size in range(14, 24)]
    encoded += [base64.urlsafe_b64encode(b"user:Zx9vQ2mK7pL4Hx7K?>" + bytes([size])).decode() for size in range(48, 58)]
    pieces = [" ", "=", "==", "\n", ".", "é", "\u2603", "\U0001f600", "\ud800", "a", "Z9", "+/", "-_"]
    texts = ["".join(generator.choice(encoded)[:generator.randint(22, 40)] if generator.random() < 0.3
                     else generator.choice(pieces) for _ in range(generator.randint(1, 12))) for _ in range(20000)]
    found = 0
    for text in texts:
        expected = _base64_decoded_as_specified(text)
        assert base64_decoded(text) == expected, text
        found += bool(expected)
    assert found > 1000  # the texts hold runs to find


def test_provider_rules_match_what_their_documented_pattern_matches():
    """Each provider rule is its documented pattern at a token's start and end; the compiled
    form moves the start check after the first character (for speed) and must find the same."""
    compiled = dict(CONTEXT_RULES)
    generator = random.Random(22)
    for kind, _prefix, pattern in PROVIDER_RULES:
        plain = re.compile(rf"(?<![A-Za-z0-9]){pattern}(?![A-Za-z0-9])")
        sample = _sample(kind, compiled[kind])
        for _ in range(200):
            cut = generator.randint(0, len(sample))
            text = generator.choice(["", "x", " ", "_", "9", "."]) + sample[:cut] + generator.choice(["", "A", " ", "-"]) + sample[cut:]
            assert [m.span() for m in compiled[kind].finditer(text)] == [m.span() for m in plain.finditer(text)], (kind, text)


def test_a_session_of_every_family_is_redacted_whole():
    texts = [f"step {index}: {_sample(kind, pattern)}" for index, (kind, pattern) in enumerate(CONTEXT_RULES)]
    calls = [ToolCall("bash", id=f"c{index}", arguments={"command": "cat notes"}, output=text) for index, text in enumerate(texts)]
    session = Session("s", "test", steps=[Step("assistant", text=line, tool_calls=[call]) for line, call in zip(ORDINARY, calls)])
    session.steps.append(Step("assistant", tool_calls=calls[len(ORDINARY):]))
    redact_session(session)
    for call, text in zip(calls, texts):
        assert call.output != text, text
