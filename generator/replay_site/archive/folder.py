"""The archive: zstd-compressed chunks addressed by their sha256, and a small manifest per
log saying which chunks, in order, make it, in a folder or an object store (backends.py).
Nothing is changed in place: a chunk or a manifest is written whole at once (a temporary
file moved over, an object put), the manifest after its chunks, so a build killed while archiving leaves at worst a chunk no manifest
names (prune removes those), never a manifest naming bytes that are not all there.

An appended log gets one new chunk, compressed with the end of what came before as its
dictionary (zstd raw-content dictionaries): an agent's next turn repeats most of the
previous turns' words, so it costs a fraction of its own size. A new log is compressed
against the beginning of another log of the same agent and folder (its `base`, keep.Peers):
an agent's logs repeat its instructions, tool descriptions and project files.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

import orjson
import zstandard

from replay_site.archive.backends import Backend, FolderBackend

# Every cold build compresses every log, so the level is a build-time choice: on the medium
# benchmark corpus (80 MB) level 3 keeps 0.104x its bytes for 0.22 s of CPU, level 9 0.096x for
# 1.34 s (without the base dictionaries); on ../shared/corpus 0.223x against 0.206x.
# docs/guides/archive.md has the figures at level 9.
LEVEL = 3
WINDOW = 1 << 20  # the prefix's last bytes an appended chunk is compressed against
# The first bytes of its base a new log is compressed against: on ../shared/corpus 256 KiB
# keeps as much as 1 MiB (0.192x against 0.205x alone) and costs a quarter of the time.
REFERENCE = 256 << 10
_BLOCK = 1 << 20


class ArchiveError(Exception):
    """An archive folder that must not be used (inside the site, not a folder)."""


class Damaged(Exception):
    """An archived copy whose bytes do not match its digests: never rendered."""


@dataclass(frozen=True)
class Chunk:
    sha256: str  # of the chunk's own bytes, uncompressed
    size: int
    window: str = ""  # sha256 of the dictionary it was compressed against ("" for none)

    @property
    def object(self) -> str:
        """The stored object's name: the same bytes compressed against another dictionary
        are another object."""
        if not self.window:
            return self.sha256
        return hashlib.sha256(f"{self.window}:{self.sha256}".encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    """One log as the archive holds it: the manifest."""

    path: str  # where it was found (absolute)
    size: int
    sha256: str  # of the whole log
    chunks: tuple[Chunk, ...]
    first_seen: str  # ISO dates (UTC)
    last_seen: str  # the last build that saw it on disk
    gone_since: str | None = None  # the first build that found it gone
    stat: tuple[int, int] = (0, 0)  # (mtime_ns, inode) when last archived: unchanged logs are not read
    side: bool = False  # a file beside a log that its reader may read (recover.side_files), not a log
    # The object of another log's first chunk (stored without a dictionary), whose first
    # REFERENCE bytes this log's first chunk was compressed against; None when alone.
    base: str | None = None

    @property
    def key(self) -> str:
        return entry_key(self.path)

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self), option=orjson.OPT_SORT_KEYS)

    @classmethod
    def from_json(cls, data: bytes) -> Entry:
        raw = orjson.loads(data)
        chunks = tuple(Chunk(**chunk) for chunk in raw.pop("chunks"))
        return cls(chunks=chunks, stat=tuple(raw.pop("stat")), **raw)


@dataclass(frozen=True)
class Reference:
    """A log's first chunk as the base of others: its first REFERENCE bytes, made ready once
    as a compression dictionary."""

    chunk: Chunk
    head: bytes
    prepared: zstandard.ZstdCompressionDict

    @classmethod
    def of(cls, chunk: Chunk, head: bytes) -> Reference:
        prepared = _dictionary(head)
        prepared.precompute_compress(level=LEVEL)
        return cls(chunk, head, prepared)


def entry_key(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()


def default_folder() -> Path:
    """$XDG_DATA_HOME/replay-site/archive (~/.local/share when unset): the user's data,
    not a cache: it holds what may exist nowhere else."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "replay-site" / "archive"


class Archive:
    """One archive: `objects/` (chunks) and `logs/` (manifests), in a folder or an object
    store (backends.py)."""

    def __init__(self, where: Path | Backend) -> None:
        if isinstance(where, Path):
            if where.exists() and not where.is_dir():
                raise ArchiveError(f"archive {where}: not a folder")
            where = FolderBackend(where)
        self.backend = where
        self.where = where.where
        self._heads: dict[str, bytes] = {}  # bases' first bytes, by object: many logs share one

    def entry(self, path: str) -> Entry | None:
        """The manifest of the log found at `path`, or None (also for one that cannot be read)."""
        key = entry_key(path)
        try:
            try:
                return Entry.from_json(_unpack(self.backend.get(_manifest(key))))
            except FileNotFoundError:
                return Entry.from_json(self.backend.get(_manifest(key, packed=False)))
        except (OSError, ValueError, TypeError, KeyError, zstandard.ZstdError):
            return None

    def entries(self) -> tuple[list[Entry], list[str]]:
        """Every manifest, by original path; and the names of those that cannot be read."""
        found, broken = {}, []
        names = self.backend.names("logs/")
        for name in names:
            packed = name.endswith(".json.zst")
            if not packed and (not name.endswith(".json") or f"{name}.zst" in names):
                continue  # a manifest of an earlier version, written again since in the current form
            try:
                data = self.backend.get(name)
                entry = Entry.from_json(_unpack(data) if packed else data)
                found[entry.path] = entry
            except (OSError, ValueError, TypeError, KeyError, zstandard.ZstdError):
                broken.append(name.removeprefix("logs/"))
        return [found[path] for path in sorted(found)], broken

    def save(self, entry: Entry) -> None:
        self.backend.put(_manifest(entry.key), _MANIFESTS.compress(entry.to_json()))

    def forget(self, entry: Entry) -> None:
        self.backend.delete(_manifest(entry.key))
        self.backend.delete(_manifest(entry.key, packed=False))

    def put(self, stream: BinaryIO, window: bytes | Reference, whole) -> tuple[Chunk, bytes]:
        """The rest of `stream` stored as one chunk, compressed against `window` (the last
        WINDOW bytes before it, or the head of its base); `whole` (a hash) takes in every
        byte read. Returns the chunk and its first REFERENCE bytes."""
        made: list[tuple[Chunk, bytes]] = []
        dictionary = window.head if isinstance(window, Reference) else window

        def fill(out: BinaryIO) -> str:
            own, size, head = hashlib.sha256(), 0, b""
            prepared = window.prepared if isinstance(window, Reference) else _dictionary(window)
            compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=prepared)
            with compressor.stream_writer(out, closefd=False) as packed:
                while block := stream.read(_BLOCK):
                    own.update(block)
                    whole.update(block)
                    packed.write(block)
                    head += block[:REFERENCE - len(head)]
                    size += len(block)
            made.append((Chunk(own.hexdigest(), size, hashlib.sha256(dictionary).hexdigest() if dictionary else ""), head))
            return object_name(made[0][0].object)

        self.backend.put_from(fill)
        return made[0]

    def read(self, entry: Entry) -> Iterator[bytes]:
        """The log's bytes, a chunk at a time, each checked against its digest and the whole
        against the log's; raises Damaged (after giving out bytes: a caller writes them
        somewhere private and uses them only once all is read)."""
        whole, window, size = hashlib.sha256(), b"", 0
        for index, chunk in enumerate(entry.chunks):
            dictionary = self._head(entry.base) if index == 0 and entry.base else window
            if (hashlib.sha256(dictionary).hexdigest() if chunk.window else "") != chunk.window:
                raise Damaged("the log it was compressed against does not match" if index == 0 and entry.base
                              else "its chunks do not follow each other")
            data = self._unpacked(chunk.object, dictionary if chunk.window else b"")
            if len(data) != chunk.size or hashlib.sha256(data).hexdigest() != chunk.sha256:
                raise Damaged(f"chunk {chunk.object[:12]} does not match its digest")
            whole.update(data)
            size += len(data)
            window = (window + data)[-WINDOW:]
            yield data
        if size != entry.size or whole.hexdigest() != entry.sha256:
            raise Damaged("the log's bytes do not match its digest")

    def _unpacked(self, name: str, dictionary: bytes, limit: int | None = None) -> bytes:
        """A chunk's bytes (its first `limit` bytes) from its object, decompressed against `dictionary`."""
        try:
            packed = self.backend.get(object_name(name))
            decompressor = zstandard.ZstdDecompressor(dict_data=_dictionary(dictionary))
            if limit is None:
                return decompressor.decompressobj().decompress(packed)
            reader, head = decompressor.stream_reader(packed), b""
            while len(head) < limit and (part := reader.read(limit - len(head))):
                head += part
            return head
        except (OSError, zstandard.ZstdError) as exc:
            raise Damaged(f"chunk {name[:12]} cannot be read ({exc})") from None

    def _head(self, base: str) -> bytes:
        """The first REFERENCE bytes of a base (a chunk's object, stored without a dictionary)."""
        if base not in self._heads:
            self._heads[base] = self._unpacked(base, b"", REFERENCE)
        return self._heads[base]

    def stored_bytes(self, entry: Entry) -> int:
        """What the entry's chunks take in the archive (shared chunks counted for each entry)."""
        return sum(self.backend.size(object_name(chunk.object)) for chunk in entry.chunks)

    def unnamed_objects(self, entries: list[Entry]) -> list[str]:
        """The chunks no manifest names (left by a killed build, or by pruned entries)."""
        named = {object_name(name) for entry in entries for name in (*(chunk.object for chunk in entry.chunks), entry.base) if name}
        return [name for name in self.backend.names("objects/") if name.endswith(".zst") and name not in named]


def object_name(name: str) -> str:
    """Where a chunk lies in the archive (a folder per first two hex digits)."""
    return f"objects/{name[:2]}/{name}.zst"


def _manifest(key: str, packed: bool = True) -> str:
    """A manifest's name: zstd-compressed JSON (an earlier version wrote plain JSON, read still)."""
    return f"logs/{key}.json.zst" if packed else f"logs/{key}.json"


# A manifest is ~500 bytes of JSON, half of it hex digests: compressed, ~300 (0.004x of the
# real corpus's bytes), at any level in microseconds.
_MANIFESTS = zstandard.ZstdCompressor(level=19)


def _unpack(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


def _dictionary(window: bytes) -> zstandard.ZstdCompressionDict | None:
    return zstandard.ZstdCompressionDict(window, dict_type=zstandard.DICT_TYPE_RAWCONTENT) if window else None
