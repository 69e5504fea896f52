"""Redaction replaces a secret's own characters and nothing else (issue 33): the text before and
after each secret is the log's, byte for byte, wherever the string is shown.

The fixed cases are what a user met (a `.pypirc` whose next line vanished) and the ways a match
used to run on past a secret's end; the property test at the end generates the rest.
"""
from __future__ import annotations

import random
import string

from replay_site.model import Session, Step, ToolCall
from replay_site.redact import redact_session

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"


def _p(*fragments: str) -> str:
    """Prefixes joined from fragments, so the source never spells a whole token prefix."""
    return "".join(fragments)


def _redacted(text: str) -> tuple[str, dict[str, int]]:
    session = Session("s", "test", steps=[Step("user", tool_calls=[ToolCall("bash", output=text)])])
    redact_session(session)
    return session.steps[0].tool_calls[0].output, session.redactions


def test_the_line_after_a_pypi_token_in_a_pypirc_is_kept():
    """The reported case: `password = pypi-…` then `repository = …`. The view with wrapped
    lines joined read `pypi-…repository` as one token (the format has no fixed length), and
    the whole of it, the next line's first word included, was replaced."""
    generator = random.Random(33)
    pypi = _p("pypi-AgEI", "cHlwaS5vcmc") + "".join(generator.choice(URLSAFE) for _ in range(120))
    npm = _p("np", "m_") + "".join(generator.choice(ALNUM) for _ in range(36))
    text = (f"$ cat ~/.npmrc ~/.pypirc\n//registry.npmjs.org/:_authToken={npm}\n[distutils]\nindex-servers = pypi\n"
            f"[pypi]\nusername = __token__\npassword = {pypi}\nrepository = https://upload.pypi.org/legacy/\n"
            "Remember to rotate both.\n")
    shown, counts = _redacted(text)
    assert pypi not in shown and npm not in shown
    marker = next(f"[REDACTED:{kind}]" for kind in counts if "pypi" in kind)
    assert shown.split("\n")[6:] == [f"password = {marker}", "repository = https://upload.pypi.org/legacy/",
                                     "Remember to rotate both.", ""]
    assert sum(counts.values()) == 2  # one token each, counted once


def test_a_token_wrapped_over_three_lines_is_gone_and_each_line_keeps_its_break():
    generator = random.Random(34)
    token = _p("gh", "p_") + "".join(generator.choice(ALNUM) for _ in range(36))
    text = f"$ echo $TOKEN\n{token[:14]}\n{token[14:28]}\n{token[28:]}\nDone, it worked."
    shown, counts = _redacted(text)
    assert all(part not in shown for part in (token[:14], token[14:28], token[28:]))
    assert shown == "$ echo $TOKEN\n[REDACTED:github-pat]\n\n\nDone, it worked."
    assert counts == {"github-pat": 1}


def test_colour_codes_inside_a_secret_stay_and_the_text_around_is_the_logs():
    generator = random.Random(35)
    token = _p("gh", "p_") + "".join(generator.choice(ALNUM) for _ in range(36))
    text = f"token: {token[:6]}\x1b[31m{token[6:]}\x1b[0m and the rest"
    shown, _counts = _redacted(text)
    assert shown == "token: [REDACTED:github-pat]\x1b[31m\x1b[0m and the rest"


def test_a_private_key_cut_short_ends_where_its_body_does():
    """`head -3 id_rsa`: no END line. The rule ran to the text's end, taking what followed."""
    generator = random.Random(36)
    body = ["".join(generator.choice(ALNUM + "+/") for _ in range(64)) for _ in range(2)]
    armour = _p("-----BEGIN RSA PRI", "VATE KEY-----")
    shown, counts = _redacted("$ head -3 id_rsa\n" + "\n".join([armour, *body]) + "\nThat is only the start of it.")
    assert shown == "$ head -3 id_rsa\n[REDACTED:private-key]\nThat is only the start of it."
    assert counts == {"private-key": 1}


def test_a_value_keeps_the_punctuation_and_brackets_that_follow_it():
    value = "q8Zr3Lx0Vn7Tb2Wk9Ym4"
    shown, _counts = _redacted(f"Set password: {value}. See [the run](https://ci.acme.dev/r?token={value}).")
    assert shown == "Set password: [REDACTED:assignment-secret]. See [the run](https://ci.acme.dev/r?token=[REDACTED:assignment-secret])."
