"""Every relative link in the docs (docs/*.md, README.md, bench/README.md)
points at a file or folder that exists: Markdown links and images,
[text](target) and ![alt](target), their #anchor left aside. Links to
other sites (a scheme such as https:) and to an anchor of the same page
are not checked.
"""
import glob
import os
import re

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = sorted(glob.glob(os.path.join(TOP, "docs", "*.md"))) + [
    os.path.join(TOP, "README.md"), os.path.join(TOP, "bench", "README.md")]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(text):
    """The relative targets of a page's links, code spans and blocks left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        yield target.split("#", 1)[0]


def test_the_link_pattern():
    text = ("[a](results/x/) ![b](x.png) [c](https://e.org/y) [d](#here) `[e](no)` "
            "[f](bench.md#knobs)")
    assert list(links(text)) == ["results/x/", "x.png", "bench.md"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: os.path.relpath(p, TOP))
def test_relative_links_exist(page):
    with open(page) as f:
        text = f.read()
    base = os.path.dirname(page)
    missing = sorted({t for t in links(text) if not os.path.exists(os.path.join(base, t))})
    assert not missing, missing
