"""A cursor-agent chat store, `~/.cursor/chats/<md5 of the workspace>/<agent id>/store.db`.

Cursor publishes no description of it and no source; this follows what its files hold, as
third-party readers of them describe it. Two tables: `meta` (key "0": the chat's metadata as
hex-encoded JSON: agentId, name, createdAt, lastUsedModel, latestRootBlobId) and `blobs`
(content-addressed by SHA-256: each message as JSON in the AI SDK's shape, and tree nodes in
protobuf whose length-delimited fields of 32 bytes are the ids of the blobs below them, in
order). The chat is what the latest root reaches, depth first; a message blob it does not
reach (a state the chat left) is counted, not shown.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Problem
from replay_site.readers.sqlite import tables

DEPTH = 64  # a tree deeper than this is read no further


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data):
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7
        if shift > 63:
            break
    raise ValueError("bad varint")


def references(data: bytes) -> list[str]:
    """The blob ids a protobuf node names: its length-delimited fields of 32 bytes, in order
    (other fields passed over); [] for what is not protobuf."""
    found, at = [], 0
    try:
        while at < len(data):
            key, at = _varint(data, at)
            wire = key & 7
            if wire == 0:
                _, at = _varint(data, at)
            elif wire == 1:
                at += 8
            elif wire == 5:
                at += 4
            elif wire == 2:
                size, at = _varint(data, at)
                if size == 32:
                    found.append(data[at:at + size].hex())
                at += size
            else:
                return found
    except ValueError:
        return found
    return found


def message(data: bytes) -> dict[str, Any] | None:
    """A blob that is a message: a JSON object with a `role`."""
    if data[:1] != b"{":
        return None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) and isinstance(value.get("role"), str) else None


def read_store(path: Path, label: str) -> tuple[dict[str, Any], list[dict[str, Any]], int, list[Problem]]:
    """(metadata, the chat's messages in order, message blobs left out, problems)."""
    problems: list[Problem] = []
    try:
        meta_rows, blob_rows = tables(path, ("meta", "key"), ("blobs", "rowid"))
    except sqlite3.Error as exc:
        return {}, [], 0, [Problem("skipped_file", f"not a cursor-agent chat store ({exc})", label)]
    meta: dict[str, Any] = {}
    for row in meta_rows:
        if str(row.get("key")) == "0":
            try:
                value = orjson.loads(bytes.fromhex(str(row.get("value"))))
            except (ValueError, orjson.JSONDecodeError):
                problems.append(Problem("bad_line", "its metadata is not hex-encoded JSON", label))
                continue
            meta = value if isinstance(value, dict) else {}
    blobs = {str(row.get("id")): row.get("data") if isinstance(row.get("data"), bytes) else b"" for row in blob_rows}
    messages = {ident: found for ident, data in blobs.items() if (found := message(data)) is not None}
    order: list[str] = []
    seen: set[str] = set()

    def walk(ident: str, depth: int) -> None:
        if ident in seen or depth > DEPTH or ident not in blobs:
            return
        seen.add(ident)
        if ident in messages:
            order.append(ident)
            return
        for child in references(blobs[ident]):
            walk(child, depth + 1)

    root = meta.get("latestRootBlobId")
    if isinstance(root, str) and root in blobs:
        walk(root, 0)
    elif messages:
        problems.append(Problem("warning", "no root names the chat's messages: shown in the order they were stored", label))
        order = list(messages)
    return meta, [messages[ident] for ident in order], len(messages) - len(order), problems
