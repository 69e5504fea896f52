"""What the search files hold: every visible kind of text, long outputs by head and tail."""
from __future__ import annotations

import json

from replay_site.model import Step, ToolCall
from replay_site.pages import search


def shard_files(steps: list[Step], slug: str) -> dict[str, bytes]:
    shard = search.SessionShard(slug)
    shard.add(steps)
    return {name: data if isinstance(data, bytes) else data.read() for name, data in shard.files().items()}


def shard_steps(files: dict[str, bytes], slug: str) -> list:
    text = files[search.shard_name(slug)].decode()
    assert text.startswith(f'(window.REPLAY_SHARDS=window.REPLAY_SHARDS||{{}})["{slug}"]=')
    return json.loads(text.split("]=", 1)[1].removesuffix(";\n"))


def test_a_long_output_is_indexed_by_its_head_and_tail_and_links_to_its_page():
    middle = "filler " * ((search.HEAD + search.TAIL) // 7 + 1000)
    output = "HeadWord " + middle + " TailWord"
    steps = [Step("user", number=n, text=f"prompt {n}") for n in range(1, 250)]
    steps.append(Step("assistant", number=250, text="reading", thinking="pondering",
                      tool_calls=[ToolCall("Bash", arguments={"command": "grep -rn needle src"}, output=output)]))
    files = shard_files(steps, "s-1")
    entry = shard_steps(files, "s-1")[-1]
    number, href, kind, text = entry
    assert (number, kind) == (250, "assistant")
    assert href == "sessions/s-1/2.html#step-250"  # step 250 lives on page 2 (200 steps a page)
    for word in ("reading", "pondering", "Bash", "grep -rn needle src", "HeadWord", "TailWord"):
        assert word in text
    # head and tail kept, the middle cut: HEAD + TAIL characters of output plus the marker
    assert len(text) < search.HEAD + search.TAIL + 100
    words = files[search.terms_name("s-1")].decode().split("\n")
    assert "headword" in words and "tailword" in words and "needle" in words
    assert words == sorted(set(words))


def test_the_term_map_points_each_word_to_the_sessions_holding_it(tmp_path):
    class Listed:  # the two attributes site_files reads of a summary
        def __init__(self, slug, title):
            self.page, self.title = f"sessions/{slug}.html", title

    for slug, text in (("a", "alpha beta"), ("b", "beta gamma é")):
        for name, data in shard_files([Step("user", number=1, text=text)], slug).items():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_bytes(data)
    files = search.site_files(tmp_path, [Listed("a", "A"), Listed("b", "B"), Listed("gone", "no shard")])
    index = json.loads(files["assets/search-index.js"].decode().removeprefix("window.REPLAY_SEARCH=").removesuffix(";\n"))
    assert [s[:3] for s in index["sessions"]] == [["a", "A", "sessions/a.html"], ["b", "B", "sessions/b.html"], ["gone", "no shard", "sessions/gone.html"]]
    assert index["sessions"][2][3] == 0  # listed, with no shard to load
    be = json.loads(files["assets/search/terms/be.js"].decode().split("]=", 1)[1].removesuffix(";\n"))
    assert be == {"beta": "0,1"}
    assert "é" not in str(index["buckets"])  # one-character words are not in the map
    assert search.bucket_of("été") == "_t" and search.bucket_of("x9") == "x9"


def test_a_large_bucket_is_split_by_three_characters(tmp_path, monkeypatch):
    class Listed:
        def __init__(self, slug):
            self.page, self.title = f"sessions/{slug}.html", slug

    text = "cache cached cachet cap car co"
    for name, data in shard_files([Step("user", number=1, text=text)], "a").items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    monkeypatch.setattr(search, "SPLIT_BYTES", 70)  # "ca" is about 110 bytes, "co" 63
    files = search.site_files(tmp_path, [Listed("a")])
    index = json.loads(files["assets/search-index.js"].decode().removeprefix("window.REPLAY_SEARCH=").removesuffix(";\n"))
    assert index["buckets"] == ["cac", "cap", "car", "co"]  # "co" stayed small: not split
    cac = json.loads(files["assets/search/terms/cac.js"].decode().split("]=", 1)[1].removesuffix(";\n"))
    assert cac == {"cache": "0", "cached": "0", "cachet": "0"}


def test_the_word_list_splits_words_as_the_browser_does_in_any_script():
    """Words are runs of letters and digits (`[\\p{L}\\p{N}]+`, lowercased); the list is worked
    out from the text's bytes, so here each kind of separator and non-ASCII word is checked
    against the words read off the text by hand."""
    text = "Héllo wörld, snake_case foo…bar 東京 x1-y2 ½ ÀB_ok end. (paren) 'quote' café—déjà a\n  12→import os"
    files = shard_files([Step("user", number=1, text=text)], "s-1")
    words = files[search.terms_name("s-1")].decode().split("\n")
    # "a" and "½" (one character each) are left out; "_", "…", "—", "-" and spaces separate
    assert words == sorted(["héllo", "wörld", "snake", "case", "foo", "bar", "東京", "x1", "y2", "àb", "ok", "end",
                            "paren", "quote", "café", "déjà", "12", "import", "os"])


def test_words_of_tokens_an_earlier_step_held_are_listed_once_whatever_the_steps_remember(monkeypatch):
    """A step's tokens seen in an earlier step are not split into words again (SEEN_TOKENS);
    remembering none, or forgetting them on the way, lists the same words, each once."""
    steps = [Step("user", number=n, text=f"Repeat-me step{n % 3} Ünïcode-{n % 2} shared") for n in range(1, 40)]
    words = {}
    for remembered in (0, 2, 1_000):
        monkeypatch.setattr(search, "SEEN_TOKENS", remembered)
        words[remembered] = shard_files(steps, "s").get(search.terms_name("s")).decode().split("\n")
    assert words[0] == words[2] == words[1_000] == sorted(["repeat", "me", "step0", "step1", "step2", "ünïcode", "shared"])
