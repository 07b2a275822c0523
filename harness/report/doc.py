"""The report as a document: sections, paragraphs, tables, figures.

report.py builds one Document; render_md.py and render_html.py turn it
into Markdown and HTML.  Inline content is a list whose items are plain
strings or the span classes below.
"""

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import List, Optional


# Inline spans ------------------------------------------------------------

@dataclass
class Code:
    text: str


@dataclass
class Strong:
    text: str


@dataclass
class Em:
    text: str


@dataclass
class Link:
    text: object        # a string or another span
    anchor: str         # an Anchor id in the same document


@dataclass
class Href:
    """A link to a file of the repository (`path`, relative to its top,
    with an optional #fragment): the renderers prefix the way from the
    report's directory to the top (Document.top)."""
    text: object
    path: str


@dataclass
class FileLink:
    """A link to a file the report writes beside its pages
    (Document.files)."""
    text: object
    name: str


@dataclass
class Mark:
    """A label of how a fact is known: observed, inferred, static."""
    kind: str


def inline(*items):
    """A list of spans, dropping None."""
    return [i for i in items if i is not None]


def joined(parts, sep=", "):
    """Inline lists joined with a separator, as one inline list."""
    out = []
    for index, part in enumerate(parts):
        if index:
            out.append(sep)
        out += part
    return out


def plain(content):
    """The text of inline content, without markup."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (Code, Strong, Em)):
        return content.text
    if isinstance(content, (Link, Href, FileLink)):
        return plain(content.text)
    if isinstance(content, Mark):
        return "(%s)" % content.kind
    return "".join(plain(item) for item in content)


# Blocks -------------------------------------------------------------------

@dataclass
class Para:
    content: list


@dataclass
class Bullets:
    items: list                 # of inline content


@dataclass
class Cell:
    content: object             # inline content
    css: str = ""               # allow, deny, other, none, bad, num
    anchor: Optional[str] = None


@dataclass
class Table:
    header: list
    rows: list                  # rows of Cell or inline content
    caption: object = None
    css: str = ""               # e.g. "matrix", "cases"

    def __post_init__(self):
        wrong = [(i, len(row)) for i, row in enumerate(self.rows)
                 if len(row) != len(self.header)]
        if wrong:
            i, n = wrong[0]
            raise ValueError("table %r: row %d has %d cell(s), the header "
                             "%d (%d row(s) of the wrong width)"
                             % (self.header[:3], i, n, len(self.header),
                                len(wrong)))


@dataclass
class Figure:
    svg: str                    # a complete <svg> element
    caption: object
    fallback: list = field(default_factory=list)   # blocks for Markdown


@dataclass
class Pre:
    text: str


@dataclass
class Markdown:
    """Markdown text embedded as is (the attack and cost sections)."""
    text: str


@dataclass
class Details:
    summary: object             # inline content
    blocks: list
    anchor: Optional[str] = None
    open: bool = False


@dataclass
class Callout:
    """A framed block: the verdict."""
    blocks: list
    css: str = ""


@dataclass
class Section:
    title: str
    anchor: str
    blocks: List[object] = field(default_factory=list)
    level: int = 2
    page: str = ""          # "" the report's page, else a page of its own

    def add(self, *blocks):
        self.blocks.extend(b for b in blocks if b is not None)
        return self


@dataclass
class Document:
    title: str
    blocks: list = field(default_factory=list)     # before the sections
    sections: List[Section] = field(default_factory=list)
    top: str = "../"        # the repository's top, from the report's dir
    files: dict = field(default_factory=dict)   # name -> text, beside it


def anchors(item):
    """Every anchor a block defines, nested blocks and cells included."""
    if isinstance(item, (Section, Details)) and item.anchor:
        yield item.anchor
    if isinstance(item, (Section, Details, Callout)):
        for sub in item.blocks:
            yield from anchors(sub)
    elif isinstance(item, Table):
        for row in item.rows:
            for value in row:
                if isinstance(value, Cell) and value.anchor:
                    yield value.anchor


def pages(document):
    """{page: [top-level sections]} in order, the report's page ("")
    first, and {anchor: page} of every anchor."""
    out, page_of = {"": []}, {}
    for section in document.sections:
        out.setdefault(section.page, []).append(section)
    for item in document.blocks:
        for anchor in anchors(item):
            page_of[anchor] = ""
    for page, sections in out.items():
        for section in sections:
            for anchor in anchors(section):
                page_of[anchor] = page
    return out, page_of


def writers(document, page_class, page_of=None):
    """(page, its sections, every section, a page_class writer of it)
    for each page of `document`, the report's own first.  `page_of`:
    the pages of anchors defined in another document (one rendered
    apart from it); its own anchors take precedence."""
    by_page, own = pages(document)
    if page_of:
        page_of = dict(page_of)
        page_of.update(own)
    else:
        page_of = own
    every = [s for sections in by_page.values() for s in sections]
    for page, sections in by_page.items():
        yield page, sections, every, page_class(page_of, page, document.top)


class PageLinks:
    """What one rendered page knows of the others: the page of every
    anchor (pages()), its own page, and the way to the repository's top.
    A renderer's page class sets `suffix`, its files' extension."""

    suffix = ""

    def __init__(self, page_of=None, page="", top="../"):
        self.page_of = page_of or {}
        self.page = page
        self.top = top

    @classmethod
    def file(cls, page):
        """report.<suffix> for the report's page, else report-<page>."""
        return ("report-%s" % page if page else "report") + cls.suffix

    def href(self, anchor):
        where = self.page_of.get(anchor, self.page)
        return (self.file(where) if where != self.page else "") + "#" + anchor


def cell(content, css="", anchor=None):
    return Cell(content, css, anchor)


@lru_cache(maxsize=None, typed=True)
def anchor_of(*parts):
    """A fragment id from free text: letters, digits, '-', '.' and '_'."""
    return _fragment("-".join(map(str, parts)))


@lru_cache(maxsize=None)
def _fragment(text):
    out = []
    for char in text:
        if char.isalnum() or char in "-_.":
            out.append(char)
        elif char == "/":
            out.append(".")
        else:
            out.append("_")
    return "".join(out)


def slug(heading):
    """The fragment GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def case_anchor(case_id):
    return anchor_of("case", case_id)
