"""Where themes are: by name among those shipped, or by path, the default theme behind any
other for the templates it does not ship. Without jinja2: what the build needs of a theme
before it renders (the cache key, the site record) is only its folders."""
from __future__ import annotations

from pathlib import Path


def themes_dir() -> Path:
    """Themes ship inside the wheel; in a source checkout they sit at the repo's top level."""
    bundled = Path(__file__).parents[1] / "themes"
    return bundled if bundled.is_dir() else Path(__file__).resolve().parents[3] / "themes"


def theme_search_path(theme: str) -> list[Path]:
    """A theme by name or path, falling back to `default` for templates it does not ship."""
    default = themes_dir() / "default"
    chosen = Path(theme) if ("/" in theme or Path(theme).is_dir()) else themes_dir() / theme
    if not chosen.is_dir():
        raise FileNotFoundError(f"theme {theme!r} not found (looked in {chosen})")
    return [chosen, default] if chosen.resolve() != default.resolve() else [default]
