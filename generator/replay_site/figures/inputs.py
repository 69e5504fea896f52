"""The account of everything read: the log files read and skipped, and every line of them by
what became of it (shown, not shown by design, of an unknown kind), per kind. Sessions count
their own lines (Session.records); the site's account adds them up from the summaries alone,
so it is the same whether a session was read now or taken from the build cache."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from replay_site.figures.summary import SessionSummary
from replay_site.model import RECORD_FATES, Hint, Problem, RecordCounts, Session, count_record, no_records


@dataclass
class Inputs:
    files_read: int = 0
    files_skipped: list[dict[str, str]] = field(default_factory=list)  # [{path, reason}]
    records: RecordCounts = field(default_factory=no_records)
    from_archive: int = 0  # sessions whose log is gone from disk, read from the archive (archive/)
    prompts_only: int = 0  # sessions deleted before they were archived, shown from the agent's prompt history
    hints: list[str] = field(default_factory=list)  # what to change in the agents' settings, said once on the index (model.Hint)

    def to_json(self) -> dict:
        return {"files_read": self.files_read, "files_skipped": self.files_skipped, "records": self.records,
                "sessions_from_archive": self.from_archive, "sessions_prompts_only": self.prompts_only}


def total_records(each: Iterable[RecordCounts]) -> RecordCounts:
    """Line counts added up by fate and kind, kinds sorted (sessions.json must not depend on
    the order sessions were read in)."""
    total = no_records()
    for records in each:
        for fate, kinds in records.items():
            for kind, lines in kinds.items():
                count_record(total, kind, fate, lines)
    return {fate: dict(sorted(total[fate].items())) for fate in RECORD_FATES}


def unknown_by_version(sessions: Iterable[Session]) -> dict[tuple[str, str], dict[str, int]]:
    """Lines of unknown kinds per producer and the version its log records (Claude Code's
    `version`, Codex's `cli_version`, Glue's `glue_version`, …): where a format change shows
    first. Sessions whose log names no version are under ""."""
    found: dict[tuple[str, str], RecordCounts] = {}
    for session in sessions:
        if session.records["unknown"]:
            key = (session.format, session.agent_version or "")
            found[key] = total_records([found.get(key, no_records()), session.records])
    return {key: found[key]["unknown"] for key in sorted(found)}


def account(files_read: int, problems: Iterable[Problem], summaries: list[SessionSummary]) -> Inputs:
    problems = list(problems)
    skipped = sorted({(p.path, p.message) for p in problems if p.kind == "skipped_file"})
    return Inputs(files_read, [{"path": path, "reason": reason} for path, reason in skipped],
                  total_records(s.records for s in summaries), sum(1 for s in summaries if s.kept_since),
                  sum(1 for s in summaries if s.prompts_only), sorted({p.message for p in problems if isinstance(p, Hint)}))
