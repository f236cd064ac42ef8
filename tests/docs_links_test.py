#!/usr/bin/env python3
"""docs_links_test.py SOURCE_DIR: every relative link in README.md and docs/*.md resolves.

A link resolves when the file (or folder) it names exists under SOURCE_DIR and,
when it has a #fragment, the target Markdown file has a heading whose GitHub
anchor is that fragment. Links inside code (fenced blocks, `spans`) are not
links. Every docs page must link back to the README, and the README must link
to every docs page, so no page is orphaned. The checker is also run on planted
broken pages, which it must refuse: a checker that passes everything would
pass here too.
"""

import pathlib
import re
import sys
import tempfile
import unittest

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text):
    """Yields (line number, line) outside fenced code blocks, inline code removed."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "", line)


def github_anchor(heading):
    """GitHub's anchor for a heading: the text lowercased, punctuation dropped, spaces as -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor of a Markdown file, duplicates numbered as GitHub numbers them."""
    seen = {}
    result = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            base = github_anchor(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
    return result


def links(path):
    """(line number, target) of every link in a Markdown file's prose."""
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in LINK.finditer(line):
            yield number, match.group(1)


def check(root):
    """The problems of README.md and docs/*.md under root, one line each."""
    root = pathlib.Path(root).resolve()
    readme = root / "README.md"
    pages = sorted((root / "docs").glob("*.md"))
    problems = []
    linked_from_readme = set()
    for page in [readme] + pages:
        rel = page.relative_to(root)
        links_to_readme = False
        for number, target in links(page):
            if EXTERNAL.match(target):
                continue
            file_part, _, fragment = target.partition("#")
            resolved = (page.parent / file_part).resolve() if file_part else page
            where = f"{rel}:{number}: {target}"
            if root not in resolved.parents and resolved != root:
                problems.append(f"{where}: leaves the source tree")
                continue
            if not resolved.exists():
                problems.append(f"{where}: no such file")
                continue
            if resolved == readme:
                links_to_readme = True
            if page == readme:
                linked_from_readme.add(resolved)
            if fragment:
                if resolved.suffix != ".md" or resolved.is_dir():
                    problems.append(f"{where}: an anchor into a file that is not Markdown")
                elif fragment not in anchors(resolved):
                    problems.append(f"{where}: no heading with the anchor #{fragment}")
        if page != readme and not links_to_readme:
            problems.append(f"{rel}: no link back to the README")
    for page in pages:
        if page.resolve() not in linked_from_readme:
            problems.append(f"{page.relative_to(root)}: not linked from the README")
    if not pages:
        problems.append("docs/: no pages")
    return problems


class DocsLinksTest(unittest.TestCase):
    root = None

    def test_every_link_resolves(self):
        problems = check(self.root)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))

    def test_planted_problems_are_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            (tmp / "docs").mkdir()
            (tmp / "README.md").write_text(
                "# Top\n\n[a](docs/a.md) [b](docs/b.md#real-heading) [c](docs/c.md)\n"
                "[gone](docs/missing.md) [bad anchor](docs/a.md#nowhere)\n"
                "`[in code](docs/nothing.md)` [web](https://example.org/x.md)\n"
                "```\n[fenced](docs/nothing.md)\n```\n")
            (tmp / "docs" / "a.md").write_text("# A\n\n[back](../README.md#top)\n")
            (tmp / "docs" / "b.md").write_text(
                "# B\n\n## Real `heading`\n\n[back](../README.md)\n[self](#b)\n")
            (tmp / "docs" / "c.md").write_text("# C, with no way back\n")
            (tmp / "docs" / "d.md").write_text("# D\n\n[back](../README.md)\n")
            problems = check(tmp)
        self.assertEqual(problems, [
            "README.md:4: docs/missing.md: no such file",
            "README.md:4: docs/a.md#nowhere: no heading with the anchor #nowhere",
            "docs/c.md: no link back to the README",
            "docs/d.md: not linked from the README",
        ])

    def test_anchors_as_github_makes_them(self):
        self.assertEqual(
            github_anchor("Seed 001: the TCP ping-pong (does the AES choice matter end to end?)"),
            "seed-001-the-tcp-ping-pong-does-the-aes-choice-matter-end-to-end")
        self.assertEqual(github_anchor("Metrics (columns and JSON counters)"),
                         "metrics-columns-and-json-counters")
        self.assertEqual(github_anchor("`--baseline` and `--mix`"), "--baseline-and---mix")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: docs_links_test.py SOURCE_DIR [unittest options]", file=sys.stderr)
        sys.exit(2)
    DocsLinksTest.root = sys.argv.pop(1)
    unittest.main()
