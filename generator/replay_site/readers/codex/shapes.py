"""Codex line shapes -> one envelope-shaped record stream.

Codex has written four on-disk generations (TS single JSON, pre-envelope JSONL,
the `{timestamp,type,payload}` envelope, the newest envelope with `ordinal`/
`metadata`), and other viewers document a fifth "simplified" shape. Everything
downstream only ever sees `Record(kind, payload)` in envelope terms, so the step
builder has one code path and a new generation means one more branch here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from replay_site.model import Problem, RecordCounts
from replay_site.readers import jsonl
from replay_site.readers.files import plain_name
from replay_site.readers.jsonl import kind_of
from replay_site.readers.timestamps import utc_time

# codex-rs/history rollout_payload.rs (RolloutItemWire), 2026: every top-level kind.
ENVELOPE_KINDS = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state", "token_usage_record",
     "inter_agent_communication", "inter_agent_communication_metadata", "retained_context", "security_risk_score",
     "realtime_item"}
)
# Bare ResponseItem types (pre-envelope files and TS `items`): what the model saw and produced.
ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "tool_search_output",
        "image_generation_call",
        "compaction",
        "compaction_summary",
        "context_compaction",
        "ghost_snapshot",
        "additional_tools",
        "agent_message",
    }
)


@dataclass
class Record:
    kind: str  # an envelope kind, or the raw `type` of a line nobody knows
    payload: dict[str, Any]
    line: int | None
    timestamp: datetime | None
    label: str  # the file's name as warnings print it
    ordinal: int | None = None  # paginated rollouts (0.147+) number their lines; not contiguous

    @property
    def line_kind(self) -> str:
        """The kind its line is counted under (`line_kind`)."""
        if self.kind in ("event_msg", "response_item"):
            return f"{self.kind}/{kind_of(self.payload) or '(no type)'}"
        return self.kind


def line_kind(obj: dict[str, Any]) -> str | None:
    """A line's kind in the account of what was read: events and response items by their
    own type, since Codex adds new ones inside the same envelope kinds."""
    kind = kind_of(obj)
    if kind in ITEM_TYPES:
        return f"response_item/{kind}"
    payload = obj.get("payload")
    if kind in ("event_msg", "response_item") and isinstance(payload, dict):
        return f"{kind}/{kind_of(payload) or '(no type)'}"
    return kind


def shape_of(first: dict[str, Any] | None) -> str | None:
    """Which Codex shape a file is, from its first object line; None when it is not Codex.

    Deliberately narrow so we never claim another format: Claude lines carry
    `sessionId`/`uuid` with user/assistant types, rlm lines `event_type` or
    step/final, gptme lines `role`, Glue lines glue event types.
    """
    if not isinstance(first, dict):
        return None
    kind = kind_of(first)
    if kind in ENVELOPE_KINDS and isinstance(first.get("payload"), dict):
        return "envelope"
    if "event_type" in first or "sessionId" in first or "uuid" in first or "role" in first:
        return None
    if kind is None and "id" in first and "timestamp" in first and ("instructions" in first or "git" in first):
        return "pre_envelope"
    if kind == "session" and "payload" not in first:
        return "simplified"
    if kind == "message" and "created_at" in first and isinstance(first.get("content"), list):
        return "simplified"
    return None


def simplified_head(objects: list[dict[str, Any]]) -> bool:
    """Whether a head in the simplified shape is the design document's: a `session` line without
    a format `version`, then messages with their `role` at the top. Pi's session files open with
    a `session` line too, then wrap each message in an entry of a tree (`parentId`, `message`)."""
    first, rest = objects[0], objects[1:]
    if kind_of(first) == "session" and "version" in first:
        return False
    return not any("parentId" in each or isinstance(each.get("message"), dict) for each in rest)


def load_records(path: Path, label: str, problems: list[Problem], counted: RecordCounts | None = None,
                 kinds: jsonl.LineKinds = jsonl.BY_TYPE) -> list[Record]:
    """Every line (or TS item) of one file as envelope records; bad lines become Problems;
    lines counted in `counted` by `kinds`."""
    if plain_name(path).suffix == ".json":
        return _ts_records(path, label, problems)
    records: list[Record] = []
    shape: str | None = None
    for number, obj in jsonl.iter_objects(path, problems, label, counted, kinds):
        if shape is None:
            shape = shape_of(obj) or "envelope"
        records.extend(_normalise(obj, number, shape, label))
    return records


def _normalise(obj: dict[str, Any], number: int, shape: str, label: str) -> list[Record]:
    kind = kind_of(obj)
    stamp = utc_time(obj.get("timestamp"))
    if isinstance(obj.get("payload"), dict) and isinstance(kind, str):
        payload = dict(obj["payload"])
        if isinstance(obj.get("metadata"), dict):
            # Newest files put history bookkeeping beside the payload; keep it reachable, never needed.
            payload.setdefault("_metadata", obj["metadata"])
        ordinal = obj.get("ordinal")
        ordinal = ordinal if isinstance(ordinal, int) and not isinstance(ordinal, bool) else None
        return [Record(kind, payload, number, stamp, label, ordinal)]
    if "record_type" in obj:
        return []  # pre-envelope `{"record_type":"state"}` markers carry nothing to show
    if shape == "simplified":
        return _simplified(obj, number, label)
    if kind is None and "id" in obj and "timestamp" in obj:
        return [Record("session_meta", obj, number, stamp, label)]
    if kind in ITEM_TYPES:
        return [Record("response_item", obj, number, stamp, label)]
    return [Record(str(kind) if kind else "(no type)", obj, number, stamp, label)]


def _ts_records(path: Path, label: str, problems: list[Problem]) -> list[Record]:
    whole = jsonl.load_json(path, problems, label)
    if whole is None:
        return []
    session = whole.get("session") if isinstance(whole.get("session"), dict) else {}
    stamp = utc_time(session.get("timestamp"))
    records = [Record("session_meta", dict(session), None, stamp, label)]
    items = whole.get("items") if isinstance(whole.get("items"), list) else []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(Problem("bad_line", f"items[{index}] is not an object, skipped", label))
            continue
        item_type = kind_of(item)
        kind = "response_item" if item_type in ITEM_TYPES else str(item_type)
        records.append(Record(kind, item, None, None, label))
    return records


def _simplified(obj: dict[str, Any], number: int, label: str) -> list[Record]:
    """The design-doc shape: split one message into the response items Codex would have written."""
    stamp = utc_time(obj.get("created_at") or obj.get("timestamp"))
    kind = kind_of(obj)
    if kind == "session":
        return [Record("session_meta", obj, number, stamp, label)]
    if kind != "message":
        return [Record(str(kind), obj, number, stamp, label)]
    role = obj.get("role") or "user"
    out: list[Record] = []

    def item(payload: dict[str, Any]) -> None:
        out.append(Record("response_item", payload, number, stamp, label))

    texts: list[dict[str, Any]] = []
    for part in obj.get("content") if isinstance(obj.get("content"), list) else []:
        if not isinstance(part, dict):
            continue
        ptype = part.get("type")
        if ptype in ("input_text", "output_text", "text"):
            texts.append({"type": ptype, "text": part.get("text", "")})
        elif ptype == "thinking":
            text = part.get("thinking") or part.get("text") or ""
            item({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]})
        elif ptype == "tool_use":
            args = part.get("input", part.get("arguments"))
            item(
                {
                    "type": "function_call",
                    "name": part.get("name") or "tool",
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                    "call_id": part.get("id") or part.get("call_id"),
                }
            )
        elif ptype == "tool_result":
            item(
                {
                    "type": "function_call_output",
                    "call_id": part.get("tool_use_id") or part.get("call_id"),
                    "output": part.get("content", part.get("output", "")),
                    "_is_error": bool(part.get("is_error")),
                }
            )
    if texts:
        out.insert(0, Record("response_item", {"type": "message", "role": role, "content": texts}, number, stamp, label))
    if isinstance(obj.get("usage"), dict):
        # No response id in this shape: the line number makes each usage count exactly once.
        out.append(Record("token_usage_record", {"usage": obj["usage"], "response_id": f"{label}:{number}"}, number, stamp, label))
    return out
