"""The report Document as Markdown (GitHub flavour: pipe tables, and
<details> and <a id> where Markdown has none)."""

from functools import lru_cache
from html import escape

from . import doc


@lru_cache(maxsize=None, typed=True)
def _escape(text):
    return (str(text).replace("\\", "\\\\").replace("|", "\\|")
            .replace("*", "\\*").replace("_", "\\_").replace("\n", " "))


class Page(doc.PageLinks):
    """One Markdown page of a Document (see render_html.Page)."""

    suffix = ".md"

    def inline(self, content):
        kind = type(content)      # the commonest first: a report's cells
        if kind is str:
            return _escape(content)
        if kind is list:
            return "".join([_escape(item) if type(item) is str
                            else self.inline(item) for item in content])
        if kind is doc.Link:
            return "[%s](%s)" % (self.inline(content.text),
                                 self.href(content.anchor))
        if kind is doc.Code:
            return "`%s`" % content.text.replace("`", "'")
        if content is None:
            return "-"
        if isinstance(content, (str, int, float)):
            return _escape(content)
        if isinstance(content, doc.Code):
            return "`%s`" % content.text.replace("`", "'")
        if isinstance(content, doc.Strong):
            return "**%s**" % _escape(content.text)
        if isinstance(content, doc.Em):
            return "*%s*" % _escape(content.text)
        if isinstance(content, doc.Link):
            return "[%s](%s)" % (self.inline(content.text),
                                 self.href(content.anchor))
        if isinstance(content, doc.Href):
            return "[%s](%s%s)" % (self.inline(content.text), self.top,
                                   content.path)
        if isinstance(content, doc.FileLink):
            return "[%s](%s)" % (self.inline(content.text), content.name)
        if isinstance(content, doc.Mark):
            return "*(%s)*" % content.kind
        return "".join([_escape(item) if type(item) is str
                        else self.inline(item) for item in content])

    def _cell(self, value):
        if isinstance(value, doc.Cell):
            return _anchor(value.anchor) + self.inline(value.content)
        return self.inline(value)

    def _table(self, table):
        lines = []
        if table.caption:
            lines += [self.inline(table.caption), ""]
        lines.append("| " + " | ".join(self._cell(h) for h in table.header)
                     + " |")
        lines.append("|" + " --- |" * len(table.header))
        for row in table.rows:
            lines.append("| " + " | ".join(self._cell(c) for c in row)
                         + " |")
        return lines

    def block(self, item, level=2):
        """Lines of one block."""
        inline = self.inline
        if isinstance(item, doc.Para):
            return [inline(item.content), ""]
        if isinstance(item, doc.Bullets):
            return ["- " + inline(i) for i in item.items] + [""]
        if isinstance(item, doc.Table):
            return self._table(item) + [""]
        if isinstance(item, doc.Figure):
            lines = ["*Figure:* " + inline(item.caption) + " (the picture"
                     " is in report.html)", ""]
            for sub in item.fallback:
                lines += self.block(sub, level)
            return lines
        if isinstance(item, doc.Pre):
            return ["```", item.text.rstrip("\n"), "```", ""]
        if isinstance(item, doc.Markdown):
            return _demote(item.text.rstrip("\n"), level) + [""]
        if isinstance(item, doc.Details):
            lines = ["<details%s><summary>%s</summary>" % (
                ' id="%s"' % escape(item.anchor) if item.anchor else "",
                inline(item.summary)), ""]
            for sub in item.blocks:
                lines += self.block(sub, level)
            return lines + ["</details>", ""]
        if isinstance(item, doc.Callout):
            lines = []
            for sub in item.blocks:
                lines += ["> " + line if line else ">"
                          for line in self.block(sub, level)[:-1]] + [">"]
            return lines[:-1] + [""]
        if isinstance(item, doc.Section):
            lines = ["#" * min(item.level, 6) + " " + item.title
                     + " " + _anchor(item.anchor), ""]
            for sub in item.blocks:
                lines += self.block(sub, item.level + 1)
            return lines
        raise TypeError("no Markdown for %r" % (type(item).__name__,))


def _anchor(anchor):
    return '<a id="%s"></a>' % escape(anchor) if anchor else ""


def _demote(text, level):
    """Headings of embedded Markdown nested under a level-`level - 1`
    section: `## x` becomes `### x` (fenced code left alone)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            depth = len(line) - len(line.lstrip("#"))
            line = "#" * min(max(depth, level - 1) + 1, 6) + line[depth:]
        out.append(line)
    return out



def page_file(page):
    return Page.file(page)


def pages(document, skip=(), page_of=None):
    """{file name: Markdown} of every page (see render_html.pages)."""
    out = {}
    for page, sections, every, writer in doc.writers(document, Page,
                                                     page_of):
        if page in skip:
            out[page_file(page)] = None     # rendered apart
            continue
        if page:
            lines = ["# %s: %s" % (document.title, sections[0].title), "",
                     "[\u2190 the report](%s)" % page_file(""), ""]
        else:
            lines = ["# " + document.title, ""]
            for item in document.blocks:
                lines += writer.block(item)
            lines += ["Contents: " + ", ".join(
                "[%s](%s)" % (_escape(s.title), writer.href(s.anchor))
                for s in every), ""]
        for section in sections:
            lines += writer.block(section)
        out[page_file(page)] = "\n".join(lines).rstrip("\n") + "\n"
    return out


def render(document):
    """The report's own page (report.md)."""
    return pages(document)[page_file("")]
