"""Redaction measured on secrets nobody tuned for (tests/fake_secrets.py): each fake is placed
in one field a log has — prose, thinking, arguments, outputs, diffs, titles, paths, a log's file
name, a session id, terminal escapes (an OSC 8 link target, a window title), JSON-, HTML- and
URL-encoded, split across lines, glued to a word, lower-case assignments in ini, YAML, TOML,
Python and shell — in logs of three formats, and a site is built from them.

A fake counts as caught only when no output file and no output file name holds it, or either
half of it, raw, HTML-, JSON- or URL-encoded (a half left behind is a leak too). A non-secret
counts as a false positive when no output file shows it.
"""
from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from claude_transcript import ClaudeTranscript
from fake_secrets import FAKES, NON_SECRETS, PROVIDERS, Fake

from replay_site.pipeline import stages as site

CLAUDE_ID = "c1a0de00-0000-4000-8000-000000000001"
RED, RESET = "\x1b[31m", "\x1b[0m"
# Fields a fake with a shape of its own is rotated through.
FIELDS = ("prose", "thinking", "argument", "argument-json", "output", "output-json", "diff", "title", "path",
          "osc8", "osc-title", "ansi-split", "html", "url-encoded", "json-escaped", "split-lines", "glued",
          "gptme-prose", "gptme-output", "codex-argument", "codex-output", "yaml", "dotenv", "shell-history",
          "terminal-wrap", "base64", "file-name")
# Fields whose text holds the fake base64-encoded: what must not reach the site is that encoding.
ENCODED = {"base64"}
# Names: one fake each, fixed so the test can say where it is.
NAMED = {("github", "classic-pat"): "claude-session-id", ("huggingface", "user-token"): "gptme-folder",
         ("stripe", "restricted-key"): "codex-file-name"}


def _context_text(fake: Fake) -> tuple[str, str]:
    """(field, text) for a fake found only by where it stands: as a real file or command holds it."""
    value, name = fake.value, fake.context
    forms = {
        "aws_secret_access_key": ("output", (f"$ cat ~/.aws/credentials\n[default]\nregion = eu-west-1\n"
                                             f"aws_secret_access_key = {value}\n")),
        "postgres-url": ("argument", f"psql postgresql://app:{value}@db.internal:5432/prod -c 'select 1'"),
        "mongodb-url": ("prose", f"Connected with mongodb+srv://svc:{value}@cluster0.ab1cd.mongodb.net/app fine."),
        "redis-url": ("output", f"REDIS_URL=redis://:{value}@cache:6379/0"),
        "basic": ("argument", f"curl -H 'Authorization: Basic {value}' https://api.acme.dev/v1/ping"),
        "bearer": ("output-json", json.dumps({"headers": {"Authorization": f"Bearer {value}"}})),
        "ini-password": ("output", f"$ cat ~/.my.cnf\n[client]\nuser = app\npassword = {value}\n"),
        "yaml-password": ("diff", f"database:\n  user: app\n  password: {value}\n"),
        "toml-api-key": ("argument-json", json.dumps({"path": "config.toml", "content": f'[service]\napi_key = "{value}"\n'})),
        "python-password": ("thinking", f"settings.py has\n    password = '{value}'\nso the login works."),
        "shell-token": ("argument", f"export db_token='{value}' && ./sync.sh"),
        "netrc": ("output", f"machine api.heroku.com\n  login dev@acme.dev\n  password {value}\n"),
        "azure-connection-string": ("prose", "The connection string is `DefaultEndpointsProtocol=https;AccountName=acmeprod;"
                                             f"AccountKey={value};EndpointSuffix=core.windows.net`."),
        "azure-sas": ("argument", "curl -T build.zip 'https://acme.blob.core.windows.net/drop/build.zip?sv=2022-11-02&ss=b"
                                  f"&srt=co&sp=rwdlac&se=2026-12-31T00:00:00Z&sig={quote(value, safe='')}'"),
        "docker-config": ("output", "$ cat ~/.docker/config.json\n"
                                    + json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": value}}}, indent=2)),
        "wireguard": ("output", f"$ sudo cat /etc/wireguard/wg0.conf\n[Interface]\nPrivateKey = {value}\nAddress = 10.0.0.2/24\n"),
        "amqp-url": ("output", f"CELERY_BROKER_URL=amqp://worker:{value}@mq.internal:5672/prod"),
        "git-credentials": ("output", f"$ cat ~/.git-credentials\nhttps://dev:{value}@git.acme.dev\n"),
    }
    if name in forms:
        return forms[name]
    # An environment-style name: written the ways configs write it, in turn.
    shapes = [("output", f"{name}={value}"), ("argument", f'export {name}="{value}"'),
              ("diff", f"{name}: {value}"), ("argument-json", json.dumps({"env": {name: value}})),
              ("output", f"{name.lower()} = {value}"), ("prose", f"I set `{name}='{value}'` in the CI settings.")]
    return shapes[sum(map(ord, name)) % len(shapes)]


def _base64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def _terminal_wrapped(line: str, length: int) -> str:
    """`line` as a terminal of some width shows it: cut into rows, the token crossing a row's end
    a little after its half (so its first half stands in one piece in the log, for the leak check)."""
    width = len("2026-03-02T10:00:01Z deploy[4242]: using ") + length // 2 + 3
    return "$ tail -1 deploy.log\n" + "\n".join(line[at:at + width] for at in range(0, len(line), width))


def hidden_form(fake: Fake, field: str) -> str:
    """What of `fake` must not reach the site when it is placed in `field`."""
    return _base64(fake.value) if field in ENCODED else fake.value


def _shaped_text(field: str, value: str) -> str:
    half = len(value) // 2
    texts = {
        "prose": f"I found {value} in the old config; rotate it.",
        "thinking": f"The deploy script uses {value}; I must not print it again.",
        "argument": f"deploy --key {value} --env prod",
        "argument-json": json.dumps({"server": "acme", "credentials": {"value": value}}),
        "output": f"$ grep -r key .\nconfig/app.cfg:KEY {value}",
        "output-json": json.dumps({"ok": True, "issued": value}),
        "diff": f"-key: old\n+key: {value}",
        "title": f"Rotate {value} now",
        "path": f"/home/dev/keys/{value}.txt",
        "osc8": f"see \x1b]8;;https://console.acme.dev/keys?show={value}\x1b\\the key\x1b]8;;\x1b\\ for details",
        "osc-title": f"\x1b]0;deploy {value}\x07deploying...",
        "ansi-split": f"token: {value[:6]}{RED}{value[6:]}{RESET}",
        "html": html.escape(f"<pre data-key=\"{value}\">&</pre>"),
        "url-encoded": "GET /callback?state=ok&next=" + quote(f"https://x.dev/?k={value}", safe="").replace("_", "%5F"),
        "json-escaped": json.dumps(json.dumps({"nested": {"token": value}})),
        "split-lines": f"key:\n{value[:half]}\n{value[half:]}\n(wrapped by the terminal)",
        "glued": f"tool mcp__{value} was called",
        # The same token where a name tells nothing (`_ID`, a list item): only its own shape finds it.
        "yaml": f"services:\n  worker:\n    image: acme/worker:2.1\n    command: [\"run\", \"--upstream\", \"{value}\"]\n",
        "dotenv": f"$ cat .env\nAPP_ENV=production\nUPSTREAM_ID={value}\nLOG_LEVEL=info\n",
        "shell-history": f"$ history | tail -3\n  501  cd ~/app\n  502  ./cli login {value}\n  503  git status",
        "terminal-wrap": _terminal_wrapped(f"2026-03-02T10:00:01Z deploy[4242]: using {value} (ok)", len(value)),
        "base64": f"$ kubectl get secret upstream -o yaml\ndata:\n  upstream: {_base64(value)}\nkind: Secret",
        "file-name": f"$ ls -1 ~/.config/acme\nnotes.md\n{value}.json\nREADME",
    }
    return texts[field.split("-", 1)[1] if field.startswith(("gptme-", "codex-")) else field]


def placements() -> list[tuple[Fake, str, str]]:
    """(fake, field, text): where each fake is written."""
    # A fresh set (FAKE_SECRETS_SEED, fake_secrets.py) is also placed in other fields.
    placed, rotation = [], int(os.environ.get("FAKE_SECRETS_SEED", "0")) % len(FIELDS)
    for fake in FAKES:
        if (fake.provider, fake.kind) in NAMED:
            placed.append((fake, NAMED[fake.provider, fake.kind], fake.value))
        elif fake.context:
            placed.append((fake, *_context_text(fake)))
        elif "\n" in fake.value:  # key blocks: where they are found in practice
            field = ("output", "output-json", "argument-json")[rotation % 3]
            rotation += 1
            placed.append((fake, field, fake.value if field == "output" else json.dumps({"private_key": fake.value})))
        else:
            field = FIELDS[rotation % len(FIELDS)]
            rotation += 1
            placed.append((fake, field, _shaped_text(field, fake.value)))
    return placed


def _claude_log(items: list[tuple[str, str]], title: str) -> str:
    log = ClaudeTranscript(_name("claude-session-id"), title)
    add = log.add

    add("user", "Check the deployment and tell me what you find.", 1)
    for index, (field, text) in enumerate(items):
        number, call = 2 + 2 * index, f"toolu_{index:04d}"
        if field in ("prose", "html", "url-encoded", "glued", "nonsecret", "thinking"):
            log.say(text, number, thinking=field == "thinking")
            continue
        if field == "diff":
            tool = {"name": "Edit", "input": {"file_path": "/home/dev/app/config.yml", "old_string": "x: 1", "new_string": text}}
        elif field == "path":
            tool = {"name": "Read", "input": {"file_path": text}}
        elif field == "argument-json":
            tool = {"name": "mcp__deploy__apply", "input": json.loads(text)}
        else:
            tool = {"name": "Bash", "input": {"command": text if field == "argument" else "./run.sh"}}
        add("assistant", [{"type": "tool_use", "id": call, **tool}], number)
        output = text if field in ("output", "output-json", "osc8", "osc-title", "ansi-split", "json-escaped",
                                   "split-lines", "nonsecret-output", *FIELDS[FIELDS.index("yaml"):]) else "ok"
        add("user", [{"type": "tool_result", "tool_use_id": call, "content": output}], number + 1)
    return log.text()


def _gptme_log(items: list[tuple[str, str]]) -> str:
    lines = [{"role": "system", "content": "You are gptme.", "timestamp": "2026-03-02T10:00:00.000100", "hide": True},
             {"role": "user", "content": "Look at the server config.", "timestamp": "2026-03-02T10:00:01"}]
    for index, (field, text) in enumerate(items):
        role = "assistant" if field == "gptme-prose" else "system"
        lines.append({"role": role, "content": text, "timestamp": f"2026-03-02T10:01:{index:02d}"})
    return "".join(json.dumps(line) + "\n" for line in lines)


def _codex_log(items: list[tuple[str, str]]) -> str:
    def line(second: int, kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": f"2026-01-02T10:00:{second:02d}.000Z", "type": kind, "payload": payload}) + "\n"
    out = [line(0, "session_meta", {"id": "0190a000-0000-7000-8000-0000000000aa", "timestamp": "2026-01-02T10:00:00.000Z",
                                    "cwd": "/home/dev/calc", "originator": "codex_cli_rs", "cli_version": "0.50.0"}),
           line(1, "turn_context", {"cwd": "/home/dev/calc", "model": "gpt-5-codex"}),
           line(2, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Deploy it."}]})]
    for index, (field, text) in enumerate(items):
        call = f"call_{index}"
        command = text if field == "codex-argument" else "./deploy.sh"
        out.append(line(3 + 2 * index, "response_item", {"type": "function_call", "name": "exec_command", "call_id": call,
                                                         "arguments": json.dumps({"cmd": command})}))
        output = text if field == "codex-output" else "done"
        out.append(line(4 + 2 * index, "response_item", {"type": "function_call_output", "call_id": call,
                                                         "output": f"Process exited with code 0\nOutput:\n{output}\n"}))
    return "".join(out)


def _name(field: str) -> str:
    return next(fake.value for fake in FAKES if NAMED.get((fake.provider, fake.kind)) == field)


def write_logs(root: Path) -> Path:
    """The three logs under root/logs, carrying every fake and every non-secret."""
    placed = placements()
    by_format: dict[str, list[tuple[str, str]]] = {"claude": [], "gptme": [], "codex": []}
    titles = []
    for _fake, field, text in placed:
        if field == "title":
            titles.append(text)
        elif field.startswith(("gptme-", "codex-")):
            by_format[field.split("-")[0]].append((field, text))
        elif field not in NAMED.values():
            by_format["claude"].append((field, text))
    for number, (name, value) in enumerate(NON_SECRETS.items()):
        by_format["claude"].append(("nonsecret" if number % 2 else "nonsecret-output", f"Seen ({number}) {value}"))
    # Titles after the first become user prompts of their own session's steps.
    by_format["claude"] += [("prose", text) for text in titles[1:]]
    logs = root / "logs"
    claude = logs / "claude" / "-home-dev-app" / f"{_name('claude-session-id')}.jsonl"
    gptme = logs / "gptme" / f"2026-03-02-{_name('gptme-folder')}" / "conversation.jsonl"
    codex = logs / "codex" / f"rollout-2026-01-02T10-00-00-{_name('codex-file-name')}.jsonl"
    for path, text in ((claude, _claude_log(by_format["claude"], titles[0])), (gptme, _gptme_log(by_format["gptme"])),
                       (codex, _codex_log(by_format["codex"]))):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return logs


def spellings(value: str) -> set[str]:
    in_json = json.dumps(value)[1:-1]
    return {value, html.escape(value), html.escape(value, quote=False), in_json, in_json.replace("/", "\\/"),
            json.dumps(in_json)[1:-1], quote(value, safe=""), quote(value)}


def leaked(output: str, value: str) -> bool:
    """Whether `output` (or `output` URL-decoded) holds `value` or either half of it, in any spelling."""
    parts = [value] + ([value[:len(value) // 2], value[len(value) // 2:]] if len(value) >= 16 else [])
    views = (output, unquote(output)) if "%" in output else (output,)
    return any(spelling in view for view in views for part in parts for spelling in spellings(part))


def site_text(folder: Path) -> str:
    """Every output byte, and every output file's name."""
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    names = "\n".join(str(path.relative_to(folder)) for path in sorted(folder.rglob("*")))
    return names + "\n" + "\n".join(path.read_bytes().decode("utf-8", "replace") for path in files)


def measure(output: str) -> tuple[list[Fake], list[str]]:
    """(fakes leaked, non-secrets hidden)."""
    return ([fake for fake, field, _text in placements() if leaked(output, hidden_form(fake, field))],
            [name for name, value in NON_SECRETS.items() if not any(spelling in output for spelling in spellings(value))])


@pytest.fixture(scope="module")
def independent_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("independent")
    out = root / "site"
    result = site.build([write_logs(root)], out, site.BuildOptions())
    assert sorted(s.format for s in result.summaries) == ["claude", "codex", "gptme"]
    return out


def test_the_set_is_big_varied_and_documented():
    assert len(FAKES) >= 100 and len(PROVIDERS) >= 60 and len(NON_SECRETS) >= 60
    assert all(fake.doc for fake in FAKES) and len({fake.value for fake in FAKES}) == len(FAKES)
    fields = {field for _fake, field, _text in placements()}
    assert set(FIELDS) | set(NAMED.values()) <= fields


def test_every_fake_is_where_the_placement_says(tmp_path):
    """A fake missing from the logs would count as caught: each is in the raw bytes or names
    of the logs (split ones as their halves)."""
    logs = write_logs(tmp_path)
    raw = "\n".join(str(path) for path in logs.rglob("*")) + "".join(p.read_text() for p in logs.rglob("*.jsonl"))
    assert [fake.kind for fake, field, _text in placements() if not leaked(raw, hidden_form(fake, field))] == []


def test_independent_recall_and_false_positives(independent_site):
    missed, hidden = measure(site_text(independent_site))
    recall = 1 - len(missed) / len(FAKES)
    print(f"recall {recall:.3f} ({len(FAKES) - len(missed)}/{len(FAKES)}), false positives {len(hidden)}/{len(NON_SECRETS)}")
    where = {fake.value: field for fake, field, _text in placements()}
    assert recall >= 0.97, [(fake.provider, fake.kind, where[fake.value]) for fake in missed]
    assert hidden == []


def test_the_redaction_page_states_the_independent_figures(independent_site):
    missed, hidden = measure(site_text(independent_site))
    readme = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "redaction.md").read_text()
    recall = 1 - len(missed) / len(FAKES)
    stated = f"**recall {recall:.3f}** ({len(FAKES) - len(missed)} of {len(FAKES)} fake secrets of {len(PROVIDERS)} providers)"
    assert stated in " ".join(readme.split())
    assert f"**{len(hidden)} false positives** of {len(NON_SECRETS)}" in " ".join(readme.split())
