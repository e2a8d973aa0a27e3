#!/usr/bin/env python3
"""Rewrites the citations of the specification's files into the repository's own rule pages.

Comments and docs cite `behaviour.md §13.5`, `memory.md §3.4`, `interfaces.md §1`, `formats.md`,
`messages.md`, `tui.md`: files that are not in the repository. Their rules now live in
`docs/rules/` with the same section numbers, so each citation is rewritten mechanically, by the
mapping in `scripts/citations.tsv` (one citation form a line, TAB, its rewrite):

    behaviour.md §13.5   ->  docs/rules/reference.md §13.5
    tui.md               ->  docs/rules/terminal.md

Usage (from the repository's root, or anywhere: paths are the script's repository's):

    scripts/rewrite_citations.py            # rewrites the files in place, says how many per file
    scripts/rewrite_citations.py --dry-run  # says what it would rewrite, writes nothing
    scripts/rewrite_citations.py --check    # exit 1 when a citation is left, or a section cited
                                            # is not in its rule page
    scripts/rewrite_citations.py docs README.md   # only these files or folders

It reads src/, tests/, examples/, docs/ (but docs/rules/, the pages cited), README.md,
fixtures/**/*.md and scripts/ (but this script and its mapping); it never opens a binary file.
Running it twice changes nothing the second time: a rewritten citation (`docs/rules/memory.md`)
is preceded by `/`, which no form matches after.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPING = ROOT / "scripts" / "citations.tsv"
TEXT_SUFFIXES = {".rs", ".md", ".py", ".sh", ".toml", ".txt", ".snap", ".json", ".yaml", ".yml"}
SPEC_FILES = r"(?:behaviour|memory|interfaces|formats|messages|tui)\.md"
# A citation the mapping does not cover: what --check looks for after the rewrite.
LEFT = re.compile(r"(?<![\w/.-])" + SPEC_FILES + r"(?: ?§ ?[0-9.]+)?")


def read_mapping():
    """The forms, longest first, each with its rewrite and the pattern that finds it alone."""
    forms = []
    for n, line in enumerate(MAPPING.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            old, new = line.split("\t")
        except ValueError:
            sys.exit(f"error: {MAPPING}:{n}: not `FORM<TAB>REWRITE`: {line!r}")
        forms.append((old, new))
    forms.sort(key=lambda f: len(f[0]), reverse=True)
    patterns = []
    for old, new in forms:
        before = r"(?<![\w/.-])" if not old.startswith("/") else r"(?<![\w.-])"
        # `§1` must not take the start of `§1.3` (nor `§1.3.` of `§1.3.4`): no digit, or `.`
        # and a digit, may follow a form that ends in a section number.
        after = r"(?!\.?[0-9])" if old[-1].isdigit() or old.endswith(".") else r"(?![\w])"
        patterns.append((re.compile(before + re.escape(old) + after), new))
    return forms, patterns


def files(only=()):
    """Every text file the citations may be in (of `only`, when given)."""
    wanted = [(ROOT / o).resolve() for o in only]
    skip = {Path(__file__).resolve(), MAPPING.resolve()}
    rules = (ROOT / "docs" / "rules").resolve()
    roots = [ROOT / d for d in ("src", "tests", "examples", "docs", "scripts")]
    found = [ROOT / "README.md"] + sorted((ROOT / "fixtures").rglob("*.md"))
    for root in roots:
        found += sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)
    for p in found:
        r = p.resolve()
        if r in skip or rules in r.parents or not p.is_file():
            continue
        if wanted and not any(r == w or w in r.parents for w in wanted):
            continue
        yield p


def rewrite(text, patterns):
    count = 0
    for pattern, new in patterns:
        text, n = pattern.subn(lambda _m, new=new: new, text)
        count += n
    return text, count


def section_exists(page_text, number):
    """Whether `§number` is a heading of the page (`## 3.`/`### 3.4 …`), or item K of the list
    under heading N.M for `§N.M.K`."""
    number = number.rstrip(".")
    if re.search(rf"^#+ (?:§)?{re.escape(number)}[. ]", page_text, re.M):
        return True
    head, _, item = number.rpartition(".")
    if not head:
        return False
    m = re.search(rf"^(#+) {re.escape(head)}[. ].*$", page_text, re.M)
    if not m:
        return False
    rest = page_text[m.end():]
    nxt = re.search(r"^#+ ", rest, re.M)
    body = rest[: nxt.start()] if nxt else rest
    return re.search(rf"^{re.escape(item)}\. ", body, re.M) is not None


def check(forms, only=()):
    problems = []
    for old, new in forms:
        m = re.match(r"(docs/rules/\w+\.md)(?: ?§ ?([0-9.]+))?", new)
        if not m:
            continue
        page = ROOT / m.group(1)
        if not page.is_file():
            problems.append(f"{old}: {m.group(1)} is not in the repository")
        elif m.group(2) and not section_exists(page.read_text(encoding="utf-8"), m.group(2)):
            problems.append(f"{old}: {m.group(1)} has no section §{m.group(2).rstrip('.')}")
    for p in files(only):
        text = p.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            for m in LEFT.finditer(line):
                problems.append(f"{p.relative_to(ROOT)}:{n}: `{m.group(0)}` is not rewritten")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    parser.add_argument("paths", nargs="*", help="only these files or folders (default: all)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a citation is left or a section missing")
    args = parser.parse_args()
    forms, patterns = read_mapping()
    if args.check:
        problems = check(forms, args.paths)
        for p in problems:
            print(p)
        print(f"{len(problems)} problem(s)")
        return 1 if problems else 0
    total = 0
    for p in files(args.paths):
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new, count = rewrite(text, patterns)
        if count:
            total += count
            print(f"{p.relative_to(ROOT)}: {count}")
            if not args.dry_run:
                p.write_text(new, encoding="utf-8")
    print(f"{total} citation(s) {'to rewrite' if args.dry_run else 'rewritten'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
