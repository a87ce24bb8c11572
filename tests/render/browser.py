"""A review comment as GitHub and Forgejo show it, in headless Chromium.

**GitHub.** Comments are rendered by cmark-gfm, GitHub's fork of cmark, with the extensions
GitHub enables for comments: tables, autolinks, strikethrough, task lists and the tag filter
(the GFM spec's "disallowed raw HTML": ``<script>``, ``<iframe>``, ``<style>`` ... are
escaped). Raw HTML otherwise passes (GitHub's sanitizer then keeps ``<details>``,
``<summary>``, ``<code>``, ``<sub>``, ``<br>``, ``<b>``), so cmark-gfm runs with
``CMARK_OPT_UNSAFE`` and the check below asserts that only the tags reviewbot itself writes
are in the page: anything else came from repository content.

**Forgejo.** Forgejo renders Markdown with goldmark (CommonMark, with its table,
strikethrough, task list, definition list and footnote extensions and chroma highlighting;
raw HTML on, then a bluemonday sanitizer; bare URLs are linked by its post-processor).
goldmark is Go and PyPI has no binding, so the closest renderer on PyPI stands in: marko
(CommonMark 0.31 and its GFM extension: tables, strikethrough, task lists, autolinks), with
fenced code highlighted by Pygments, whose token classes chroma (a port of Pygments) shares:
a ```diff block gets ``span.gd`` for removed and ``span.gi`` for added lines, as in Forgejo.
What differs: marko applies GFM's tag filter where Forgejo's sanitizer strips instead
(either way no raw tag from content survives, and the check is on the unsanitized page,
which is stricter), Forgejo's post-processor turns ``#123``, ``@user`` and commit shas into
links (reviewbot escapes mentions and writes no bare issue numbers), and edge cases of the
two CommonMark parsers may differ (both pass the CommonMark spec tests).

**The page.** The comment body is laid out at GitHub's comment width (``COMMENT_WIDTH``: the
text column of a pull request's conversation at GitHub's 1,280 px layout is about 780 px;
the page uses a little less, so a summary that fits here fits there) with the style rules
of GitHub's ``markdown-body`` that decide width: tables are ``display: block; width:
max-content; max-width: 100%; overflow: auto`` (a table wider than the column scrolls
sideways inside itself instead of widening the page, so the check looks at each table's
own scroll width), code spans ``white-space: break-spaces`` (they wrap at spaces, never
inside a word), ``pre`` scrolls. Fonts: GitHub's stacks, which on Debian resolve to
Liberation Sans (metrics of Arial) and Liberation Mono (named in GitHub's list).

Chromium is Debian's (``/usr/bin/chromium``, or ``REVIEWBOT_CHROMIUM``), driven by
Playwright for Python with that executable (Playwright's own browser download does not
work offline). Without Chromium, Playwright, cmarkgfm or marko the tests skip, except in
CI (``CI`` set), where ``.ci/run`` installs them and a missing one fails.
"""

from __future__ import annotations

import html
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = Path(os.environ.get("REVIEWBOT_TEST_OUTPUT", ROOT / "build" / "test-output"))
COMMENT_WIDTH = 760  # px: the comment body's text column (GitHub's is ~780 at 1,280 px)
VIEWPORT_WIDTH = 1000  # px: the screenshot, readable as it is
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

# The tags reviewbot's own Markdown produces once rendered: any other came from content.
OWN_TAGS = frozenset({
    "html", "head", "meta", "title", "style", "body", "div", "article", "h1", "h2", "h3", "h4", "p",
    "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "span", "details", "summary",
    "b", "strong", "em", "br", "sub", "a", "ul", "ol", "li", "hr", "del",
})  # fmt: skip

CSS = """
body { margin: 0; background: #f6f8fa; }
.comment { width: WIDTHpx; margin: 16px auto; padding: 16px; background: #fff;
  border: 1px solid #d1d9e0; border-radius: 6px; }
.markdown-body { color: #1f2328; font-size: 16px; line-height: 1.5; word-wrap: break-word;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; }
.markdown-body > :first-child { margin-top: 0 !important; }
.markdown-body h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0;
  margin: 24px 0 16px; font-weight: 600; line-height: 1.25; }
.markdown-body h3 { font-size: 1.25em; margin: 24px 0 16px; font-weight: 600; line-height: 1.25; }
.markdown-body p, .markdown-body table, .markdown-body pre, .markdown-body details,
.markdown-body ul { margin-top: 0; margin-bottom: 16px; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse; font-variant: tabular-nums; }
.markdown-body td, .markdown-body th { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body th { font-weight: 600; }
.markdown-body tr:nth-child(2n) { background-color: #f6f8fa; }
.markdown-body code { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas,
  "Liberation Mono", monospace; padding: .2em .4em; margin: 0; font-size: 85%;
  white-space: break-spaces; background-color: #818b981f; border-radius: 6px; }
.markdown-body pre { padding: 16px; overflow: auto; font-size: 85%; line-height: 1.45;
  background-color: #f6f8fa; border-radius: 6px; word-wrap: normal; }
.markdown-body pre code { display: inline; padding: 0; margin: 0; font-size: 100%;
  white-space: pre; background: transparent; word-break: normal; }
.markdown-body a { color: #0969da; text-decoration: underline; }
.markdown-body summary { cursor: pointer; }
.markdown-body .gd { color: #82071e; background-color: #ffebe9; }
.markdown-body .gi { color: #116329; background-color: #dafbe1; }
""".replace("WIDTH", str(COMMENT_WIDTH))


def _required(what: str) -> None:
    """Skip without ``what``, except in CI, where its absence is a failure."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing in CI: .ci/run installs it")
    pytest.skip(f"{what} is not installed (pip install -e '.[render]'; apt-get install chromium)")


# ---------------------------------------------------------------- the two renderers


def render_github(markdown: str) -> str:
    """The comment as GitHub renders it (HTML fragment)."""
    try:
        import cmarkgfm
        from cmarkgfm.cmark import Options
    except ImportError:
        _required("cmarkgfm")
    # github_flavored_markdown_to_html enables table, autolink, strikethrough, tagfilter and
    # tasklist, GitHub's set for comments; UNSAFE keeps raw HTML as GitHub does.
    out: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return out


def render_forgejo(markdown: str) -> str:
    """The comment as Forgejo renders it, as near as PyPI allows (module docstring)."""
    try:
        import marko
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ImportError:
        _required("marko")
    out: str = marko.Markdown(extensions=["gfm"]).convert(markdown)

    def colour(match: re.Match[str]) -> str:
        language, body = match.group(1), html.unescape(match.group(2))
        try:
            lexer = get_lexer_by_name(language)
        except ClassNotFound:
            return match.group(0)
        inner = highlight(body, lexer, HtmlFormatter(nowrap=True))
        return (f'<pre class="code-block"><code class="chroma language-{language} display">'
                f"{inner}</code></pre>")

    return re.sub(r'<pre><code class="language-([\w+-]+)">(.*?)</code></pre>', colour, out,
                  flags=re.S)


def page(fragment: str, title: str = "comment") -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{CSS}</style></head><body><div class='comment'>"
            f"<article class='markdown-body'>{fragment}</article></div></body></html>")


# ---------------------------------------------------------------- the browser


@dataclass
class Shown:
    """What the browser found in one rendered comment."""

    first_line: str
    overflow: list[str]  # elements wider than they are allowed to be
    links: list[str]  # every href
    foreign_tags: list[str]  # tags reviewbot does not write
    handlers: list[str]  # on* attributes
    diff_lines: list[tuple[str, str]] = field(default_factory=list)  # (class, text)
    screenshot: Path | None = None


_INSPECT = """
() => {
  const body = document.querySelector('.markdown-body');
  for (const d of body.querySelectorAll('details')) d.open = true;  // as a reviewer would
  const overflow = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) overflow.push('page: ' + doc.scrollWidth + 'px');
  if (body.scrollWidth > body.clientWidth + 1)
    overflow.push('comment body: ' + body.scrollWidth + 'px > ' + body.clientWidth + 'px');
  for (const t of body.querySelectorAll('table')) {
    if (t.scrollWidth > t.clientWidth + 1) {
      let widest = '', most = 0;
      for (const c of t.querySelectorAll('td code, td a')) {
        const w = c.getBoundingClientRect().width;
        if (w > most) { most = Math.round(w); widest = c.innerText.slice(0, 80); }
      }
      overflow.push('table scrolls: ' + t.scrollWidth + 'px > ' + t.clientWidth +
                    'px; widest code ' + most + 'px: ' + widest);
    }
  }
  const first = body.firstElementChild;
  const all = [...document.querySelectorAll('*')];
  const handlers = [];
  for (const e of all) for (const a of e.attributes)
    if (a.name.startsWith('on')) handlers.push(e.tagName + '[' + a.name + ']');
  const diffLines = [];
  for (const code of body.querySelectorAll('code.language-diff')) {
    for (const s of code.querySelectorAll('span.gd, span.gi'))
      diffLines.push([s.className, s.textContent]);
  }
  return {
    first_line: first ? first.innerText.split('\\n')[0].trim() : '',
    overflow,
    links: [...body.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
    foreign_tags: [...new Set(all.map(e => e.tagName.toLowerCase()))],
    handlers,
    diff_lines: diffLines,
  };
}
"""


class Browser:
    """One headless Chromium for a test module; :meth:`show` opens one comment in it."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def show(self, fragment: str, name: str) -> Shown:
        context = self._browser.new_context(
            viewport={"width": VIEWPORT_WIDTH, "height": 800}, java_script_enabled=True,
            offline=True,
        )
        try:
            tab = context.new_page()
            # repository content never reaches the network: nothing is loaded from outside
            tab.route("**/*", lambda route: route.abort())
            tab.set_content(page(fragment, name), wait_until="load")
            found = tab.evaluate(_INSPECT)
            shot = OUTPUT / "summaries" / f"{name}.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            tab.screenshot(path=str(shot), full_page=True)
            # the first screen as a reviewer sees it, at full size
            tab.screenshot(path=str(shot.with_name(f"{name}-first-screen.png")))
        finally:
            context.close()
        found["foreign_tags"] = sorted(set(found["foreign_tags"]) - OWN_TAGS)
        found["diff_lines"] = [tuple(pair) for pair in found["diff_lines"]]
        return Shown(**found, screenshot=shot)


def chromium_path() -> str | None:
    path = os.environ.get("REVIEWBOT_CHROMIUM") or shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    return path


@contextmanager
def open_browser() -> Iterator[Browser]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _required("playwright (Python)")
    executable = chromium_path()
    if executable is None:
        _required("chromium (Debian's package)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield Browser(browser)
        finally:
            browser.close()
