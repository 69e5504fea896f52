"""Redaction measured on a built site: recall over a labelled set of fake secrets, false
positives over secret-shaped values that are not secrets (tests/secret_set.py).

Each secret is placed in a realistic spot of a Claude Code log (tool output, command
argument, prose, a link's query, the title, a diff line, JSON inside a string, split by ANSI
colour codes, escaped in a JSON string). It counts as caught only when no output byte of the
site holds it: raw, HTML-escaped, JSON-escaped or URL-encoded. A non-secret counts as a false
positive when it is not shown on the site.
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from claude_transcript import ClaudeTranscript
from secret_set import NON_SECRETS, SECRETS

from replay_site.pipeline import stages as site

SESSION = "9f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f"
RED, RESET = "\x1b[31m", "\x1b[0m"


def _where(kind: str, secret: str) -> tuple[str, str]:
    """(field, text) for one labelled secret: where a real log would carry it."""
    placements = {
        "aws-secret-access-key": ("output", f"AWS_SECRET_ACCESS_KEY={secret}"),
        "postgres-url-password": ("argument", f"psql postgres://app:{secret}@db.internal:5432/prod"),
        "authorization-basic": ("argument", f"curl -H 'Authorization: Basic {secret}' https://api.acme.dev"),
        "db-password-env": ("output", f"DB_HOST=db\nDB_PASSWORD={secret}\nDB_PORT=5432"),
        "app-secret-env": ("diff", f'APP_SECRET="{secret}"'),
        "query-access-token": ("prose", f"Fetched https://api.acme.dev/v1/items?access_token={secret}&page=2 fine."),
        "mysql-password-flag": ("argument", f"mysql -u root -p{secret} prod < dump.sql"),
        "cli-password-flag": ("argument", f"./deploy --password {secret} --host prod"),
        "azure-storage-key": ("output", "DefaultEndpointsProtocol=https;AccountName=acme;"
                                        f"AccountKey={secret};EndpointSuffix=core.windows.net"),
        "datadog-api-key-env": ("output", f"DD_API_KEY={secret}"),
        "heroku-api-key-env": ("output", f"HEROKU_API_KEY={secret}"),
        "json-password": ("output-json", json.dumps({"user": "ci", "password": secret})),
        "bearer-token": ("argument", f'curl -H "Authorization: Bearer {secret}" https://api.acme.dev'),
        "url-token-in-link": ("link", f"See [the report](https://ci.acme.dev/r?token={secret})."),
        "telegram-bot": ("output", f"POST https://api.telegram.org/bot{secret}/sendMessage 200"),
        "mailgun": ("argument", f"curl -s --user 'api:{secret}' https://api.mailgun.net/v3/acme/messages"),
        "discord-bot": ("output", f"DISCORD_BOT_TOKEN={secret}"),
        "pem-in-json": ("output-json", json.dumps({"type": "service_account", "private_key": secret})),
        "private-key": ("output", f"$ cat id_rsa\n{secret}\n"),
        "github-pat": ("ansi", secret),
        "openai": ("ansi", secret),
        "gitlab-pat": ("title", f"Rotate {secret}"),
        "npm": ("diff", f"//registry.npmjs.org/:_authToken={secret}"),
        "huggingface": ("prose", f"I will log in with {secret} as you asked."),
        "sendgrid": ("thinking", f"The mailer uses {secret}; do not print it."),
        "stripe-live": ("argument-json", json.dumps({"env": {"STRIPE_KEY": secret}})),
        "kubernetes-secret-base64": ("output", f"apiVersion: v1\nkind: Secret\ndata:\n  token: {secret}\n"),
    }
    return placements.get(kind, ("output", f"$ env | grep -i key\nFOUND {secret}"))


def _claude_log(items: list[tuple[str, str]], title: str) -> str:
    """A Claude Code transcript: one user message, then per item an assistant turn placing it."""
    log = ClaudeTranscript(SESSION, title)
    add = log.add

    number = 1
    add("user", "Check the deployment and tell me what you find.", number)
    for index, (field, text) in enumerate(items):
        number += 2
        call = f"toolu_{index:04d}"
        if field in ("prose", "link", "thinking"):
            log.say(text, number, thinking=field == "thinking")
            continue
        if field == "diff":
            add("assistant", [{"type": "tool_use", "id": call, "name": "Edit",
                               "input": {"file_path": "/home/dev/app/.env", "old_string": "X=1", "new_string": text}}], number)
        elif field == "argument-json":
            add("assistant", [{"type": "tool_use", "id": call, "name": "mcp__deploy", "input": json.loads(text)}], number)
        else:
            command = text if field == "argument" else "cat config"
            add("assistant", [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}], number)
        output = {"output": text, "output-json": text, "ansi": f"token: {text[:6]}{RED}{text[6:]}{RESET}"}.get(field, "ok")
        add("user", [{"type": "tool_result", "tool_use_id": call, "content": output}], number + 1)
    return log.text()


def _spellings(value: str) -> set[str]:
    return {value, html.escape(value), html.escape(value, quote=False), json.dumps(value)[1:-1],
            quote(value, safe=""), quote(value)}


@pytest.fixture(scope="module")
def labelled_site(tmp_path_factory) -> Path:
    items = [_where(kind, secret) for kind, secret in SECRETS.items() if _where(kind, secret)[0] != "title"]
    items += [("output", f"{name}: {value}") for name, value in NON_SECRETS.items()]
    title = next(text for kind, secret in SECRETS.items() for field, text in [_where(kind, secret)] if field == "title")
    root = tmp_path_factory.mktemp("labelled")
    log = root / "logs" / "-home-dev-app" / f"{SESSION}.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(_claude_log(items, title))
    out = root / "site"
    result = site.build([root / "logs"], out, site.BuildOptions(format="claude"))
    assert [s.steps for s in result.summaries] and result.summaries[0].steps > len(items)
    return out


def _every_byte(folder: Path) -> bytes:
    return b"\n".join(path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file())


def _leaked(output: bytes, value: str) -> bool:
    text = output.decode("utf-8", "replace")
    return any(spelling in text for spelling in _spellings(value))


def measure(output: bytes) -> tuple[float, float, list[str], list[str]]:
    missed = [kind for kind, secret in SECRETS.items() if _leaked(output, secret)]
    hidden = [name for name, value in NON_SECRETS.items() if not _leaked(output, value)]
    return 1 - len(missed) / len(SECRETS), len(hidden) / len(NON_SECRETS), missed, hidden


def test_the_labelled_set_is_big_and_varied_enough():
    assert len(SECRETS) >= 40 and len(NON_SECRETS) >= 30
    assert len({kind.split("-")[0] for kind in SECRETS}) >= 25
    fields = {_where(kind, secret)[0] for kind, secret in SECRETS.items()}
    assert {"output", "argument", "prose", "link", "title", "diff", "ansi", "output-json", "thinking"} <= fields


def test_redaction_meets_its_recall_and_false_positive_goals(labelled_site):
    output = _every_byte(labelled_site)
    recall, false_positives, missed, hidden = measure(output)
    print(f"recall {recall:.3f} ({len(SECRETS) - len(missed)}/{len(SECRETS)}), "
          f"false positives {false_positives:.3f} ({len(hidden)}/{len(NON_SECRETS)})")
    assert recall >= 0.97, f"missed: {missed}"
    assert false_positives <= 0.04, f"hidden: {hidden}"
    assert "[REDACTED:github-pat·32-63chars]".encode() in output and "[REDACTED:private-key·512-1023chars]".encode() in output


def test_sessions_json_counts_redactions_per_kind(labelled_site):
    (entry,) = json.loads((labelled_site / "sessions.json").read_text())["sessions"]
    counts = entry["redactions"]
    # The GitLab token is in the title (shown once in the log) and the PEM block is one key.
    assert counts["gitlab-pat"] >= 1 and counts["private-key"] >= 2
    assert sum(counts.values()) >= len(SECRETS)


def test_the_redaction_page_states_the_scanner_version_and_the_measured_figures(labelled_site):
    from replay_site.redact import scanner_version

    readme = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "redaction.md").read_text()
    recall, false_positives, missed, hidden = measure(_every_byte(labelled_site))
    assert f"kingfisher-secret-scanner](https://pypi.org/project/kingfisher-secret-scanner/)\n  {scanner_version()}" in readme
    assert f"**recall {recall:.3f}** ({len(SECRETS) - len(missed)} of {len(SECRETS)}" in readme
    assert f"**false positives {false_positives:.3f}** ({len(hidden)} of {len(NON_SECRETS)}" in readme
