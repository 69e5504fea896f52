"""The audit report: the ledger of what a session touched, what went wrong, sessions.csv,
files.html, titles, and exporting part of a session (as HTML or Markdown).

Figures are worked out by hand from tests/data/claude/-home-dev-recover/d5…0a.jsonl, whose
steps are (the reader numbers every user and assistant message; tool results join their call):
  #1 user "show tools"                     #2 assistant text
  #3 user "Make the parser tests pass: …"  #4 Bash `python -m pytest -q`, is_error, "Exit code 1"
  #5 Read parser.py, is_error               #6 Read parse.py, ok
  #7 Edit parse.py, structuredPatch: one "-" line, one "+" line
  #8 Bash `pytest -q tests/test_parse.py`, ok, durationMs 1300
  #9 Write CHANGES.md, type create, content of 3 lines
  #10 Bash `git status --short`, ok        #11 assistant text
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from sitetools import soup, step_numbers
from typer.testing import CliRunner

from replay_site.pipeline import stages as site
from replay_site.cli.app import app
from replay_site.costs import pricing_source
from replay_site.figures.failures import command_key, what_went_wrong
from replay_site.figures.ledger import ledger
from replay_site.figures.parts import parse_steps
from replay_site.figures.site_files import changed_files
from replay_site.load import load_session
from replay_site.model import FileChange, Session, Step, ToolCall
from replay_site.pages.formatting import break_points
from replay_site.pages import views_audit
from replay_site.pages.markdown_export import fenced, plain
from replay_site.pages.render import Renderer
from replay_site.readers.fields import first_request

DATA = Path(__file__).parent / "data"
RECOVER = DATA / "claude/-home-dev-recover/d5000000-0000-4000-8000-00000000000a.jsonl"
CALC = DATA / "claude/-home-dev-calc-demo/5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def audit_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("audit-site")
    site.build([DATA], out, site.BuildOptions())
    return out


def _entry(out: Path, session_id: str) -> dict:
    document = json.loads((out / "sessions.json").read_text())
    return next(s for s in document["sessions"] if s["id"] == session_id)


# -- the ledger, from the model -------------------------------------------------------------------

def test_the_ledger_of_the_recover_fixture():
    found = ledger(load_session(str(RECOVER), []))
    # parse.py: read at #6 (the failed read of parser.py at #5 touched nothing), edited at #7
    # (+1 −1); CHANGES.md created at #9 with 3 lines
    assert [(t.path.rsplit("/", 1)[1], t.action, t.added, t.removed, t.steps) for t in found.files] == [
        ("parse.py", "modified", 1, 1, [6, 7]), ("CHANGES.md", "created", 3, 0, [9])]
    assert [(c.command, c.step, c.exit_code, c.failed, c.duration_s) for c in found.commands] == [
        ("python -m pytest -q", 4, 1, True, None),
        ("pytest -q tests/test_parse.py", 8, None, False, 1.3),
        ("git status --short", 10, None, False, None)]


def test_a_file_touched_several_ways_says_how_the_session_left_it():
    def call(kind: str) -> ToolCall:
        return ToolCall("edit", changes=[FileChange("a.py", kind, "+x\n")])

    session = Session("s", "test", steps=[Step("assistant", tool_calls=[call(kind)]) for kind in ("add", "modify", "delete")])
    session.number_steps()
    [touch] = ledger(session).files
    assert (touch.action, touch.added, touch.steps) == ("deleted", 3, [1, 2, 3])
    session.steps = session.steps[:2]
    assert ledger(session).files[0].action == "created"  # created then edited: still new


def test_sessions_json_has_files_changed_and_commands(audit_site):
    entry = _entry(audit_site, "d5000000-0000-4000-8000-00000000000a")
    assert entry["files_changed"] == [
        {"path": "/home/dev/recover/parse.py", "added": 1, "removed": 1, "steps": [7]},
        {"path": "/home/dev/recover/CHANGES.md", "added": 3, "removed": 0, "steps": [9]},
    ]
    assert entry["commands"] == {"run": 3, "failed": 1}
    # every format's edits: gptme markdown-hello saves hello.py at #5 (+6, a new file of 6 lines)
    # and patches one line of it at #7 (+1 −1); Glue ex1 edits lib/slug.py at #4 (one line)
    gptme = _entry(audit_site, "markdown-hello")
    assert gptme["files_changed"] == [{"path": "hello.py", "added": 7, "removed": 1, "steps": [5, 7]}]
    glue = _entry(audit_site, "1791000000000-4242-ex1")
    assert glue["files_changed"] == [{"path": "lib/slug.py", "added": 1, "removed": 1, "steps": [4]}]


def test_the_ledger_on_the_first_page_links_each_step(audit_site):
    page = soup(audit_site / _entry(audit_site, "d5000000-0000-4000-8000-00000000000a")["page"])
    ledger_block = page.select_one("#ledger")
    # (a path's parts are split by <wbr>, where it may wrap: read whole)
    files = [[td.get_text("" if "path" in td.get("class", []) else " ", strip=True) for td in tr.find_all("td")]
             for tr in ledger_block.select("#ledger-files tbody tr")]
    assert files == [["/home/dev/recover/parse.py", "modified", "+1", "−1", "#6 #7"],
                     ["/home/dev/recover/CHANGES.md", "created", "+3", "−0", "#9"]]
    commands = [[td.get_text(" ", strip=True) for td in tr.find_all("td")] for tr in ledger_block.select("#ledger-commands tbody tr")]
    # each command titled by its Bash `description` (lines 4, 12, 16: "Run the tests", …)
    assert commands == [["Run the tests python -m pytest -q", "1", "—", "#4"], ["Run the parser tests pytest -q tests/test_parse.py", "—", "1.3s", "#8"],
                        ["See what changed git status --short", "—", "—", "#10"]]
    assert [span.get_text() for span in ledger_block.select("#ledger-commands .call-title")] == ["Run the tests", "Run the parser tests", "See what changed"]
    assert [a["href"] for a in ledger_block.select("#ledger-files a")] == ["#step-6", "#step-7", "#step-9"]
    assert "sortable" in ledger_block.select_one("#ledger-files")["class"]  # JS sorts; without it, a plain table
    # before the first step
    assert page.find(id="ledger").find_next(id="step-1") is not None


# -- what went wrong ------------------------------------------------------------------------------

def test_what_went_wrong_names_the_failed_pytest_and_the_recovery():
    wrong = what_went_wrong(load_session(str(RECOVER), []))
    assert (wrong.first.step, wrong.first.tool, wrong.first.kind, wrong.first.action) == (4, "Bash", "exit 1", "python -m pytest -q")
    # the last 6 non-empty lines of the tool_result content
    assert wrong.first.tail[-2:] == ["FAILED tests/test_parse.py::test_empty - ValueError", "1 failed, 3 passed in 0.05s"]
    assert (wrong.next.step, wrong.fixed.step, wrong.passed.step) == (5, 7, 8)
    assert [(g.tool, g.kind, g.count, g.first, g.last) for g in wrong.groups] == [("Bash", "exit 1", 1, 4, 4), ("Read", "error", 1, 5, 5)]


def test_what_went_wrong_without_a_rerun_says_so():
    # calc-demo: pytest fails at #6, Edit at #8, no later pytest; an API error at #14
    wrong = what_went_wrong(load_session(str(CALC), []))
    assert (wrong.first.step, wrong.fixed.step, wrong.passed) == (6, 8, None)
    assert {(g.tool, g.count) for g in wrong.groups} == {("Bash", 1), ("step error", 1)}


def test_command_keys_name_the_program():
    assert command_key("python -m pytest -q") == command_key("pytest tests/x.py") == ("pytest",)
    assert command_key("cd app && FOO=1 uv run pytest") == ("pytest",)
    assert command_key("cargo test --all") == ("cargo", "test") != command_key("cargo build")


def test_the_card_comes_before_the_first_step(audit_site):
    page = soup(audit_site / _entry(audit_site, "d5000000-0000-4000-8000-00000000000a")["page"])
    card = page.find(id="what-went-wrong")
    assert card.find_next(id="step-1") is not None and card.find_previous(id="step-1") is None
    # fixed: the same pytest passed at #8 (the Edit at #7 is the first change after it)
    assert card.select_one(".verdict").get_text(strip=True) == "Failed at #4, fixed at #8."
    assert "python -m pytest -q" in card.get_text()
    assert card.select_one("pre.error-tail").get_text().endswith("1 failed, 3 passed in 0.05s")
    groups = [[td.get_text(strip=True) for td in tr.find_all("td")] for tr in card.select("table.error-groups tbody tr")]
    assert groups == [["Bash exit 1 × 1", "#4", ""], ["Read error × 1", "#5", ""]]
    # a session without failures has no card
    sessions = json.loads((audit_site / "sessions.json").read_text())["sessions"]
    clean = next(s for s in sessions if s["errors"] == 0 and not s["parent"])
    for entry in sessions:  # and every session with a failure has one
        if entry["errors"]:
            assert soup(audit_site / entry["page"]).find(id="what-went-wrong") is not None, entry["id"]
    assert soup(audit_site / clean["page"]).find(id="what-went-wrong") is None


# -- site-wide: files.html and sessions.csv ---------------------------------------------------------

def test_files_page_lists_every_changed_file_with_its_sessions(audit_site):
    index = soup(audit_site / "index.html")
    assert index.find("a", href="files.html") and index.find("a", href="sessions.csv")
    page = soup(audit_site / "files.html")
    rows = {tr.select_one("td.path").get_text(strip=True): tr for tr in page.select("table.files-table tbody tr")}
    document = json.loads((audit_site / "sessions.json").read_text())
    changed = {f["path"] for s in document["sessions"] for f in s["files_changed"]}
    assert set(rows) == changed
    # lib/slug.py: Glue ex1 (+1 −1 at #4) and the fork of it (+1 −1 at #3): net 0
    slug = rows["lib/slug.py"]
    assert [td.get_text(strip=True) for td in slug.find_all("td")[2:5]] == ["+2", "−2", "+0"]
    # the project column: the project of the session that changed it (blank where a log names none, as Glue's)
    recover = _entry(audit_site, "d5000000-0000-4000-8000-00000000000a")["project"]
    assert recover and rows["/home/dev/recover/parse.py"].select_one("td.project").get_text(strip=True) == recover
    assert slug.select_one("td.project").get_text(strip=True) == ""
    assert len(slug.select("ul.file-sessions li")) == 2
    for link in page.select("ul.file-sessions a"):
        target, _, anchor = link["href"].partition("#")
        assert (audit_site / target).is_file()
        if anchor:
            assert soup(audit_site / target).find(id=anchor) is not None


def test_files_page_renders_each_row_when_the_page_reaches_it(tmp_path, monkeypatch):
    """Not every row first and then the page: a long session's files.html held its rows beside it."""
    result = site.build([DATA], tmp_path / "site", site.BuildOptions())
    files = changed_files(result.summaries)
    assert len(files) > 2
    renderer = Renderer("default", "Replay", pricing_source(None))
    made: list[str] = []
    make_row = views_audit.files_page_row
    monkeypatch.setattr(views_audit, "files_page_row", lambda entry: made.append(entry.path) or make_row(entry))
    template = renderer.env.get_template("files.html")
    pieces = template.generate

    def generate(**context):
        assert made == []  # the page begins before its first row is made
        yield from pieces(**context)

    monkeypatch.setattr(template, "generate", generate)
    renderer.files_page(files)
    assert made == [entry.path for entry in files]


def test_sessions_csv_has_one_row_per_session(audit_site):
    document = json.loads((audit_site / "sessions.json").read_text())
    rows = list(csv.DictReader(io.StringIO((audit_site / "sessions.csv").read_text())))
    assert [row["id"] for row in rows] == [s["id"] for s in document["sessions"]]
    recover = next(row for row in rows if row["id"] == "d5000000-0000-4000-8000-00000000000a")
    entry = _entry(audit_site, recover["id"])
    assert float(recover["cost_usd"]) == entry["cost_usd"]
    assert (recover["errors"], recover["files_changed"], recover["lines_added"], recover["lines_removed"],
            recover["commands_run"], recover["commands_failed"]) == ("2", "2", "4", "1", "3", "1")


def test_csv_cells_that_look_like_formulas_are_text():
    from replay_site.figures.site_files import _cell

    assert _cell("=HYPERLINK(\"x\")") == "'=HYPERLINK(\"x\")" and _cell("-1 fix") == "'-1 fix" and _cell(-1.5) == -1.5


# -- titles -----------------------------------------------------------------------------------------

def test_the_title_is_the_first_request_that_states_a_task():
    assert load_session(str(RECOVER), []).title == "Make the parser tests pass: parse('') must return 0, not raise."
    assert first_request(["show tools", "<system-reminder>x</system-reminder>", "Fix the failing test in calc.py"]) == \
        "Fix the failing test in calc.py"
    assert first_request(["/model sonnet", "continue"]) == "/model sonnet"  # nothing states more: the first one
    assert first_request(["<command-name>/clear</command-name>", "Caveat: The messages below were generated", "go on please now"]) == "go on please now"


def test_model_names_break_only_at_separators():
    assert break_points("anthropic/claude-sonnet-4.5") == ["anthropic/", "claude-sonnet-4.5"]
    assert "".join(break_points("gpt-5.1-codex")) == "gpt-5.1-codex"


# -- export a part ------------------------------------------------------------------------------------

def test_export_steps_holds_exactly_those_steps(tmp_path):
    out = tmp_path / "part.html"
    result = runner.invoke(app, ["export", str(RECOVER), "--steps", "2-4", "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = soup(out)
    assert step_numbers(page) == [2, 3, 4]
    assert "steps 2–4 of 11" in page.select_one("p.part").get_text()
    ids = {tag["id"] for tag in page.find_all(id=True)}
    for anchor in page.find_all("a", href=True):
        assert anchor["href"].startswith("#") and anchor["href"][1:] in ids, anchor["href"]


def test_export_around_error_and_mistakes(tmp_path):
    out = tmp_path / "around.html"
    # calc-demo: the first failure that mattered is the pytest at #6: steps 1 (6-5) to 16 (the last)
    assert runner.invoke(app, ["export", str(CALC), "--around-error", "-o", str(out)]).exit_code == 0
    assert step_numbers(soup(out)) == list(range(1, 17))
    bad = runner.invoke(app, ["export", str(RECOVER), "--steps", "9-3", "-o", str(out)])
    assert bad.exit_code == 2 and "--steps" in bad.stderr
    beyond = runner.invoke(app, ["export", str(RECOVER), "--steps", "40-60", "-o", str(out)])
    assert beyond.exit_code == 2 and "none in 40-59" not in beyond.stderr and "none in 40-60" in beyond.stderr
    assert parse_steps("47") == range(47, 48)


def test_export_to_md_writes_markdown(tmp_path):
    out = tmp_path / "x.md"
    result = runner.invoke(app, ["export", str(RECOVER), "--steps", "3-5", "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("# Make the parser tests pass: parse('') must return 0, not raise.\n")
    assert "<" not in text.replace("\\<", "")  # no raw HTML from the page template
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## #3 · user · 2025-11-03 08:00:10 UTC",
        "## #4 · assistant · 2025-11-03 08:00:12 UTC · claude-sonnet-4-5-20250929 · ≈ $0.0009",
        "## #5 · assistant · 2025-11-03 08:00:16 UTC · claude-sonnet-4-5-20250929 · ≈ $0.0009",
    ]
    assert "```bash\npython -m pytest -q\n```" in text


def test_markdown_escaping_keeps_log_text_as_written():
    assert plain("<img src=x onerror=alert(1)> [a](javascript:x) *b*") == r"\<img src=x onerror=alert(1)\> \[a\](javascript:x) \*b\*"
    assert plain("# not a heading\n1. not a list") == "\\# not a heading\n1\\. not a list"
    assert fenced("a ```` b") == "`````\na ```` b\n`````"


def test_summaries_from_the_build_cache_give_the_same_audit_files(tmp_path):
    import shutil

    logs = tmp_path / "logs"
    shutil.copytree(DATA / "claude", logs / "claude")
    shutil.copytree(DATA / "gptme", logs / "gptme")
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    first = {name: (out / name).read_bytes() for name in ("sessions.json", "sessions.csv", "files.html")}
    # another source changes, so the site files are written again from the cached summaries
    shutil.rmtree(logs / "gptme" / "native-notes")
    site.build([logs], out, site.BuildOptions(no_archive=True))  # the archive would keep its session
    again = json.loads((out / "sessions.json").read_text())["sessions"]
    before = json.loads(first["sessions.json"])["sessions"]
    kept = [s for s in before if s["source"] != "gptme/native-notes/conversation.jsonl"]
    assert len(kept) == len(before) - 1 and again == kept
    assert (out / "files.html").read_bytes() != first["files.html"]  # native-notes' count.txt is gone
    assert "count.txt" not in (out / "files.html").read_text()


def test_the_ledger_tables_stop_at_their_row_limit(monkeypatch):
    from replay_site.pages import views_audit

    monkeypatch.setattr(views_audit, "LEDGER_ROWS", 2)
    # the recover fixture: 3 commands, 2 files
    view = views_audit.ledger_view(views_audit.ledger_head(ledger(load_session(str(RECOVER), []))), lambda n: f"#step-{n}")
    assert [row.step.number for row in view.commands] == [4, 8] and view.commands_left == "the first 2 of 3 commands"
    assert len(view.files) == 2 and view.files_left is None


def test_a_file_row_names_its_first_steps_and_its_last():
    from replay_site.pages import views_audit

    # a.py read at each of 24 steps: the row names #1-#20 (ROW_STEPS), "3 more" (#21-#23), #24
    session = Session("s", "test", steps=[Step("assistant", tool_calls=[ToolCall("Read", arguments={"file_path": "a.py"})])
                                          for _ in range(24)])
    session.number_steps()
    head = views_audit.ledger_head(ledger(session))
    # the digest keeps of the row's steps only those it names
    assert head.files[0].steps == [*range(1, 21), 24] and head.touches == [24]
    (row,) = views_audit.ledger_view(head, lambda n: f"#step-{n}").files
    assert [jump.label for jump in row.steps] == [f"#{n}" for n in range(1, 21)]
    assert (row.more, row.last.label, row.last.href) == ("3 more", "#24", "#step-24")


def test_line_counts_tell_file_headers_from_lines_starting_with_dashes():
    # outside a hunk "---"/"+++" name the files; inside one (its counts not used up: 2 old,
    # 2 new lines) "----x" removes the line "---x" and "++++y" adds "+++y"
    change = FileChange("a", diff="--- a\n+++ a\n@@ -1,2 +1,2 @@\n----x\n++++y\n same\n\\ No newline at end of file\n")
    assert change.line_counts == (1, 1)
    assert [kind for kind, _ in change.line_kinds()] == ["file", "file", "hunk", "del", "add", "ctx", "file"]


def test_a_change_after_the_command_passed_again_is_no_fix():
    # #1 `pytest` fails, #2 `pytest -x` passes, #3 an edit: passing again at #2, nothing fixed
    def bash(command: str, code: int | None) -> ToolCall:
        return ToolCall("Bash", code=command, language="bash", exit_code=code, is_error=bool(code))

    session = Session("s", "test", steps=[Step("assistant", tool_calls=[call]) for call in (
        bash("pytest", 1), bash("pytest -x", 0), ToolCall("Edit", changes=[FileChange("a.py", diff="+x\n")]))])
    session.number_steps()
    wrong = what_went_wrong(session)
    assert (wrong.passed.step, wrong.fixed) == (2, None)


def test_export_around_error_of_a_session_without_one_is_a_mistake(tmp_path):
    # claude/-home-dev-named: 3 steps, no failed call, no error
    clean = DATA / "claude/-home-dev-named/c7000000-0000-4000-8000-000000000010.jsonl"
    result = runner.invoke(app, ["export", str(clean), "--around-error", "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 2 and "no failure" in result.stderr and not (tmp_path / "x.html").exists()


def test_markdown_says_which_images_it_leaves_out(tmp_path):
    from replay_site.figures.summary import summarize
    from replay_site.model import Image
    from replay_site.pages.markdown_export import document

    session = Session("s", "test", steps=[Step("user", text="look", images=[Image("image/png", "AAAA")] * 2)])
    session.number_steps()
    [step] = document(session, summarize(session, "Test", "", ""), None).steps
    assert step.blocks == ["*2 images not included in Markdown: see the HTML export.*"]


def test_the_ledger_lists_changes_before_reads_and_opens_where_files_changed():
    # twelve files read (#1-#12), then one edited (#13): the edit leads, and the ledger starts
    # open though its rows are more than LEDGER_OPEN_ROWS (8)
    from replay_site.figures.ledger import ledger
    from replay_site.model import FileChange, Session, Step, ToolCall
    from replay_site.pages import views_audit

    steps = [Step("assistant", tool_calls=[ToolCall("Read", arguments={"file_path": f"/src/read_{n}.py"}, output="x")]) for n in range(12)]
    steps.append(Step("assistant", tool_calls=[ToolCall("Edit", arguments={"file_path": "/src/changed.py"},
                                                        changes=[FileChange("/src/changed.py", diff="@@ -1 +1 @@\n-a\n+b")])]))
    session = Session("ledger", "claude", steps=steps)
    session.number_steps()
    view = views_audit.ledger_view(views_audit.ledger_head(ledger(session)), lambda n: f"#step-{n}")
    assert view.files[0].path == "/src/changed.py" and [row.path for row in view.files[1:3]] == ["/src/read_0.py", "/src/read_1.py"]
    assert len(view.files) > views_audit.LEDGER_OPEN_ROWS and view.open
