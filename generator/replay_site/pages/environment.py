"""The jinja2 environment every page is rendered in: templates found along a theme's search
path, compiled ones kept between builds, every printed expression HTML-escaped (except in
the Markdown export), undefined names an error."""
from __future__ import annotations

import os
from pathlib import Path

import jinja2
import markupsafe
from markupsafe import Markup

from replay_site.caches import cache_folder
from replay_site.store.states import code_digest


def template_environment(search_path: list[Path]) -> jinja2.Environment:
    """The environment of a theme's templates (`search_path`: theme folders, first wins)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([p / "templates" for p in search_path]),
        # Every page is HTML-escaped; only the Markdown export (session.md) is not, and
        # pages/markdown.py escapes what it prints for Markdown instead.
        autoescape=jinja2.select_autoescape(disabled_extensions=("md",), default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates are read once per process; includes then cost no stat()
        bytecode_cache=_TemplateCache(),
    )
    env.template_class = _Template
    return env


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between builds (compiling them costs a rebuild ~0.25 s). An
    entry is used only for the same template source (jinja checks), jinja2 version, Python
    and code of this package (which sets the environment's options); a cache that cannot be
    written only costs the next build the compiling."""

    def __init__(self) -> None:
        folder = cache_folder() / "templates"
        super().__init__(str(folder), f"{jinja2.__version__}-{code_digest()[:16]}-%s.cache")

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


# markupsafe's C escaping of a str; its `escape` wraps each result in Markup through two Python calls.
_escape_str = getattr(markupsafe, "_escape_inner", None) or (lambda text: str(markupsafe.escape(text)))


def _escape_output(value: object) -> str:
    """What `{{ value }}` prints, escaped as markupsafe.escape escapes it, but as a plain str:
    printed pieces are only joined (into a page, or a macro's or block's Markup), so their
    Markup wrapper was never used, and making it cost a session page a fifth of its
    rendering (a page prints ~60 expressions a step). Numbers hold no character HTML escapes.
    Markup (a fragment rendered on its own: a page's steps, an index or files.html row) is
    printed as it is: escape() would copy it whole (files.html of the large benchmark corpus,
    12 rows of 8 MB in all: the site-wide files' peak)."""
    kind = type(value)
    if kind is str:
        return _escape_str(value)
    if kind is int or kind is float:
        return str(value)
    if kind is Markup:
        return value
    return markupsafe.escape(value)


class _Template(jinja2.Template):
    """Templates whose printed expressions are escaped by _escape_output: jinja compiles
    `{{ x }}` to `escape(x)` with `escape` looked up in the template's module namespace, the
    only use of that name in compiled code (jinja2 is pinned, pyproject.toml)."""

    @classmethod
    def _from_namespace(cls, environment: jinja2.Environment, namespace: dict, globals: dict) -> jinja2.Template:
        namespace["escape"] = _escape_output
        return super()._from_namespace(environment, namespace, globals)
