"""The report Document as one self-contained HTML page (inline CSS and
SVG, no scripts, no external assets)."""

from functools import lru_cache
from html import escape as _html_escape

from . import doc
from . import mdlite

# a report repeats its cells' few texts thousands of times
escape = lru_cache(maxsize=None)(_html_escape)

CSS = """
*{box-sizing:border-box}
body{font-family:sans-serif;margin:0 auto;padding:.8em 1em 3em;
 max-width:72em;color:#222;line-height:1.4}
h1{font-size:1.5em;margin:.2em 0 .4em}
h2{border-bottom:2px solid #ccc;margin-top:1.8em}
table{border-collapse:collapse;margin:.4em 0 .8em}
td,th{border:1px solid #aaa;padding:.15em .45em;font-size:88%;
 vertical-align:top}
th{background:#eee;text-align:left}
p.caption{font-size:90%;color:#444;margin:.6em 0 .1em}
.scroll{overflow-x:auto;max-width:100%}
td.allow{background:#b7e4b0}
td.deny{background:#f2a8a8}
td.other{background:#f7d58b}
td.none{background:#e4e4e4;color:#666}
td.bad{outline:3px solid #000;outline-offset:-3px}
td.num{text-align:right}
table.matrix td{text-align:center;white-space:nowrap}
table.cases td{font-size:80%}
table.timeline td,table.debate td{font-size:80%}
table.grid td{font-size:80%;min-width:6em}
table.grid td.none{text-align:center}
code{font-size:92%;background:#f3f3f3;padding:0 .15em;overflow-wrap:anywhere}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:85%}
.verdict{border:3px solid #176b12;background:#e5f5e1;padding:.5em .9em;
 border-radius:6px;margin:.6em 0}
.verdict.fail,.verdict.no{border-color:#a31010;background:#fbe3e3}
.verdict p{margin:.3em 0}
.mark{font-size:75%;border-radius:3px;padding:0 .3em;white-space:nowrap}
.mark.observed{background:#d7e9fb;color:#0b3d6e}
.mark.inferred{background:#f6e7c8;color:#6b4a00}
.mark.static{background:#e6e0f3;color:#3d2a6b}
details{margin:.3em 0}
summary{cursor:pointer}
details.case{border-left:3px solid #bbb;padding-left:.6em}
nav ol{columns:2 16em;margin:.3em 0;padding-left:1.4em}
figure{margin:.6em 0;overflow-x:auto;max-width:100%}
figure svg{display:block;max-width:none}
.panels{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start}
figcaption{font-size:90%;color:#444}
@media (max-width:40em){body{padding:.5em}td,th{font-size:80%}
 nav ol{columns:1}}
"""


class Page(doc.PageLinks):
    """One HTML page of a Document: links to an anchor on another page
    name that page's file; links into the repository go through
    Document.top."""

    suffix = ".html"

    def inline(self, content):
        kind = type(content)      # the commonest first: a report's cells
        if kind is str:
            return escape(content)
        if kind is list:
            return "".join([escape(item) if type(item) is str
                            else self.inline(item) for item in content])
        if kind is doc.Link:
            return '<a href="%s">%s</a>' % (escape(self.href(content.anchor)),
                                            self.inline(content.text))
        if kind is doc.Code:
            return "<code>%s</code>" % escape(content.text)
        if content is None:
            return "-"
        if isinstance(content, (int, float)):
            return escape(str(content))
        if isinstance(content, doc.Code):
            return "<code>%s</code>" % escape(content.text)
        if isinstance(content, doc.Strong):
            return "<b>%s</b>" % escape(content.text)
        if isinstance(content, doc.Em):
            return "<i>%s</i>" % escape(content.text)
        if isinstance(content, doc.Link):
            return '<a href="%s">%s</a>' % (escape(self.href(content.anchor)),
                                            self.inline(content.text))
        if isinstance(content, doc.Href):
            return '<a href="%s">%s</a>' % (escape(self.top + content.path),
                                            self.inline(content.text))
        if isinstance(content, doc.FileLink):
            return '<a href="%s">%s</a>' % (escape(content.name),
                                            self.inline(content.text))
        if isinstance(content, doc.Mark):
            return '<span class="mark %s">%s</span>' % (
                escape(content.kind), escape(content.kind))
        if isinstance(content, str):
            return escape(content)
        return "".join([escape(item) if type(item) is str
                        else self.inline(item) for item in content])

    def _cell(self, tag, value):
        if isinstance(value, doc.Cell):
            css = ' class="%s"' % escape(value.css) if value.css else ""
            return "<%s%s%s>%s</%s>" % (tag, css, _id(value.anchor),
                                        self.inline(value.content), tag)
        return "<%s>%s</%s>" % (tag, self.inline(value), tag)

    def _table(self, table):
        css = ' class="%s"' % escape(table.css) if table.css else ""
        # the caption outside the scrolling box: it wraps to the page,
        # not to a table wider than a phone
        out = (['<p class="caption">%s</p>' % self.inline(table.caption)]
               if table.caption else [])
        out.append('<div class="scroll"><table%s>' % css)
        out.append("<tr>%s</tr>" % "".join(self._cell("th", h)
                                           for h in table.header))
        for row in table.rows:
            out.append("<tr>%s</tr>" % "".join(self._cell("td", c)
                                               for c in row))
        out.append("</table></div>")
        return "\n".join(out)

    def block(self, item):
        inline = self.inline
        if isinstance(item, doc.Para):
            return "<p>%s</p>" % inline(item.content)
        if isinstance(item, doc.Bullets):
            return "<ul>%s</ul>" % "".join("<li>%s</li>" % inline(i)
                                           for i in item.items)
        if isinstance(item, doc.Table):
            return self._table(item)
        if isinstance(item, doc.Figure):
            return '<figure>%s<figcaption>%s</figcaption></figure>' % (
                item.svg, inline(item.caption))
        if isinstance(item, doc.Pre):
            return "<pre>%s</pre>" % escape(item.text)
        if isinstance(item, doc.Markdown):
            return mdlite.to_html(item.text)
        if isinstance(item, doc.Details):
            css = ' class="case"' if item.anchor and item.anchor.startswith(
                "case-") else ""
            return "<details%s%s%s><summary>%s</summary>\n%s\n</details>" % (
                css, _id(item.anchor), " open" if item.open else "",
                inline(item.summary),
                "\n".join(self.block(b) for b in item.blocks))
        if isinstance(item, doc.Callout):
            return '<div class="%s">%s</div>' % (
                escape(item.css), "\n".join(self.block(b)
                                            for b in item.blocks))
        if isinstance(item, doc.Section):
            level = min(item.level, 6)
            return "<section%s><h%d>%s</h%d>\n%s\n</section>" % (
                _id(item.anchor), level, escape(item.title), level,
                "\n".join(self.block(b) for b in item.blocks))
        raise TypeError("no HTML for %r" % (type(item).__name__,))

    def toc(self, sections):
        items = "".join('<li><a href="%s">%s</a></li>' % (
            escape(self.href(s.anchor)), escape(s.title)) for s in sections)
        return "<nav><b>Contents</b><ol>%s</ol></nav>" % items


def _id(anchor):
    return ' id="%s"' % escape(anchor) if anchor else ""


def page_file(page):
    return Page.file(page)


def _head(title):
    return ["<!DOCTYPE html>", '<html lang="en">', "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width,'
            ' initial-scale=1">',
            "<title>%s</title>" % escape(title),
            "<style>%s</style>" % CSS, "</head>", "<body>",
            "<h1>%s</h1>" % escape(title)]


def pages(document, skip=(), page_of=None):
    """{file name: HTML} of every page of the Document: report.html
    holds the blocks, the contents and the sections of page "", and
    each other page its own sections.  A page in `skip` maps to None
    (report/apart.py renders it); `page_of`: see doc.writers()."""
    out = {}
    for page, sections, every, writer in doc.writers(document, Page,
                                                     page_of):
        if page in skip:
            out[page_file(page)] = None     # rendered apart
            continue
        if page:
            lines = _head("%s: %s" % (document.title, sections[0].title))
            lines.append('<p><a href="%s">\u2190 the report</a></p>'
                         % page_file(""))
        else:
            lines = _head(document.title)
            lines += [writer.block(b) for b in document.blocks]
            lines.append(writer.toc(every))
        lines += [writer.block(s) for s in sections]
        lines += ["</body>", "</html>"]
        out[page_file(page)] = "\n".join(lines) + "\n"
    return out


def render(document):
    """The report's own page (report.html)."""
    return pages(document)[page_file("")]
