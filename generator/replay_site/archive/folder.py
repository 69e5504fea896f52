"""The archive's folder: zstd-compressed chunks addressed by their sha256, and a small
manifest per log saying which chunks, in order, make it. Nothing is changed in place: a
chunk or a manifest is written to a temporary file and moved over at once, the manifest
after its chunks, so a build killed while archiving leaves at worst a chunk no manifest
names (prune removes those), never a manifest naming bytes that are not all there.

An appended log gets one new chunk, compressed with the end of what came before as its
dictionary (zstd raw-content dictionaries): an agent's next turn repeats most of the
previous turns' words, so it costs a fraction of its own size.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

import orjson
import zstandard

# Every cold build compresses every log, so the level is a build-time choice: on the medium
# benchmark corpus (80 MB) level 3 keeps 0.104x its bytes for 0.22 s of CPU, level 9 0.096x for
# 1.34 s; on ../shared/corpus (much base64 and signatures) 0.223x against 0.206x.
LEVEL = 3
WINDOW = 1 << 20  # the prefix's last bytes an appended chunk is compressed against
_BLOCK = 1 << 20
FOLDER_MODE, FILE_MODE = 0o700, 0o600


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


def entry_key(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()


def default_folder() -> Path:
    """$XDG_DATA_HOME/replay-site/archive (~/.local/share when unset): the user's data,
    not a cache: it holds what may exist nowhere else."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "replay-site" / "archive"


def private_folder(path: Path) -> Path:
    """`path` made (parents too) and kept readable by the user alone."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=FOLDER_MODE, exist_ok=True)
    os.chmod(path, FOLDER_MODE)
    return path


def write_at_once(path: Path, chunks: Iterator[bytes] | list[bytes], durable: bool = True) -> None:
    """`path` replaced at once by the bytes (0600), synced to disk first when `durable`;
    raises OSError."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as stream:
            for chunk in chunks:
                stream.write(chunk)
            stream.flush()
            if durable:
                os.fsync(stream.fileno())
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class Archive:
    """One archive folder: `objects/` (chunks) and `logs/` (manifests)."""

    def __init__(self, folder: Path) -> None:
        if folder.exists() and not folder.is_dir():
            raise ArchiveError(f"archive {folder}: not a folder")
        self.folder = private_folder(folder)
        self.objects = private_folder(folder / "objects")
        self.logs = private_folder(folder / "logs")

    def entry(self, path: str) -> Entry | None:
        """The manifest of the log found at `path`, or None (also for one that cannot be read)."""
        try:
            return Entry.from_json((self.logs / f"{entry_key(path)}.json").read_bytes())
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def entries(self) -> tuple[list[Entry], list[str]]:
        """Every manifest, by original path; and the names of those that cannot be read."""
        found, broken = [], []
        for manifest in sorted(self.logs.glob("*.json")):
            try:
                found.append(Entry.from_json(manifest.read_bytes()))
            except (OSError, ValueError, TypeError, KeyError):
                broken.append(manifest.name)
        return sorted(found, key=lambda entry: entry.path), broken

    def save(self, entry: Entry) -> None:
        # Not synced: a killed build loses nothing the kernel holds, and after a power cut a
        # manifest whose chunk was lost fails its digest check (never rendered, named by
        # `archive verify`) while the log it copies is still read from disk. A sync per log
        # cost a cold build of the medium corpus about 1 s.
        write_at_once(self.logs / f"{entry.key}.json", [entry.to_json()], durable=False)

    def forget(self, entry: Entry) -> None:
        (self.logs / f"{entry.key}.json").unlink(missing_ok=True)

    def object_path(self, name: str) -> Path:
        return self.objects / name[:2] / f"{name}.zst"

    def put(self, stream: BinaryIO, window: bytes, whole) -> Chunk:
        """The rest of `stream` stored as one chunk, compressed against `window` (the last
        WINDOW bytes before it); `whole` (a hash) takes in every byte read."""
        own = hashlib.sha256()
        compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=_dictionary(window))
        handle, temporary = tempfile.mkstemp(dir=self.objects, prefix=".tmp-")
        size = 0
        try:
            with os.fdopen(handle, "wb") as out, compressor.stream_writer(out, closefd=False) as packed:
                while block := stream.read(_BLOCK):
                    own.update(block)
                    whole.update(block)
                    packed.write(block)
                    size += len(block)
            chunk = Chunk(own.hexdigest(), size, hashlib.sha256(window).hexdigest() if window else "")
            target = self.object_path(chunk.object)
            private_folder(target.parent)
            os.chmod(temporary, FILE_MODE)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return chunk

    def read(self, entry: Entry) -> Iterator[bytes]:
        """The log's bytes, a chunk at a time, each checked against its digest and the whole
        against the log's; raises Damaged (after giving out bytes: a caller writes them
        somewhere private and uses them only once all is read)."""
        whole, window, size = hashlib.sha256(), b"", 0
        for chunk in entry.chunks:
            if chunk.window and hashlib.sha256(window).hexdigest() != chunk.window:
                raise Damaged("its chunks do not follow each other")
            try:
                packed = self.object_path(chunk.object).read_bytes()
                data = zstandard.ZstdDecompressor(dict_data=_dictionary(window)).decompressobj().decompress(packed)
            except (OSError, zstandard.ZstdError) as exc:
                raise Damaged(f"chunk {chunk.object[:12]} cannot be read ({exc})") from None
            if len(data) != chunk.size or hashlib.sha256(data).hexdigest() != chunk.sha256:
                raise Damaged(f"chunk {chunk.object[:12]} does not match its digest")
            whole.update(data)
            size += len(data)
            window = (window + data)[-WINDOW:]
            yield data
        if size != entry.size or whole.hexdigest() != entry.sha256:
            raise Damaged("the log's bytes do not match its digest")

    def stored_bytes(self, entry: Entry) -> int:
        """What the entry's chunks take on disk (shared chunks counted for each entry)."""
        return sum(_size(self.object_path(chunk.object)) for chunk in entry.chunks)

    def unnamed_objects(self, entries: list[Entry]) -> list[Path]:
        """Chunks no manifest names (left by a killed build, or by pruned entries)."""
        named = {chunk.object for entry in entries for chunk in entry.chunks}
        return sorted(path for path in self.objects.glob("*/*.zst") if path.name.removesuffix(".zst") not in named)


def _dictionary(window: bytes) -> zstandard.ZstdCompressionDict | None:
    return zstandard.ZstdCompressionDict(window, dict_type=zstandard.DICT_TYPE_RAWCONTENT) if window else None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
