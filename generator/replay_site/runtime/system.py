"""The one system call Python's os module lacks that a build uses: renameat2 with
RENAME_EXCHANGE (Linux 3.15), which swaps two paths in one step, so that publishing a site is
atomic (store/publish.py takes it as `exchange`)."""
from __future__ import annotations

import ctypes
import os
from functools import lru_cache
from pathlib import Path
from typing import Callable

_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


@lru_cache(maxsize=1)
def rename_exchange() -> Callable[[Path, Path], None] | None:
    """libc's renameat2 with RENAME_EXCHANGE, or None where the C library lacks it."""
    try:
        # the C library's symbols as this process has them: find_library("c") runs
        # `ldconfig -p` in a subprocess and parses what it lists (~5 ms of a rebuild)
        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]

    def exchange(first: Path, second: Path) -> None:
        if function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), str(second))

    return exchange
