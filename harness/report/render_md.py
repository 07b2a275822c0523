"""The report Document as Markdown (GitHub flavour: pipe tables, and
<details> and <a id> where Markdown has none)."""

from html import escape

from . import doc


def _escape(text):
    return (str(text).replace("\\", "\\\\").replace("|", "\\|")
            .replace("*", "\\*").replace("_", "\\_").replace("\n", " "))


def inline(content):
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
        return "[%s](#%s)" % (inline(content.text), content.anchor)
    if isinstance(content, doc.Mark):
        return "*(%s)*" % content.kind
    return "".join(inline(item) for item in content)


def _anchor(anchor):
    return '<a id="%s"></a>' % escape(anchor) if anchor else ""


def _cell(value):
    if isinstance(value, doc.Cell):
        return _anchor(value.anchor) + inline(value.content)
    return inline(value)


def _table(table):
    lines = []
    if table.caption:
        lines += [inline(table.caption), ""]
    lines.append("| " + " | ".join(_cell(h) for h in table.header) + " |")
    lines.append("|" + " --- |" * len(table.header))
    for row in table.rows:
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return lines


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


def block(item, level=2):
    """Lines of one block."""
    if isinstance(item, doc.Para):
        return [inline(item.content), ""]
    if isinstance(item, doc.Bullets):
        return ["- " + inline(i) for i in item.items] + [""]
    if isinstance(item, doc.Table):
        return _table(item) + [""]
    if isinstance(item, doc.Figure):
        lines = ["*Figure:* " + inline(item.caption) + " (the picture is"
                 " in report.html)", ""]
        for sub in item.fallback:
            lines += block(sub, level)
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
            lines += block(sub, level)
        return lines + ["</details>", ""]
    if isinstance(item, doc.Callout):
        lines = []
        for sub in item.blocks:
            lines += ["> " + line if line else ">"
                      for line in block(sub, level)[:-1]] + [">"]
        return lines[:-1] + [""]
    if isinstance(item, doc.Section):
        lines = ["#" * min(item.level, 6) + " " + item.title
                 + " " + _anchor(item.anchor), ""]
        for sub in item.blocks:
            lines += block(sub, item.level + 1)
        return lines
    raise TypeError("no Markdown for %r" % (type(item).__name__,))


def render(document):
    lines = ["# " + document.title, ""]
    for item in document.blocks:
        lines += block(item)
    lines += ["Contents: " + ", ".join(
        "[%s](#%s)" % (_escape(s.title), s.anchor)
        for s in document.sections), ""]
    for section in document.sections:
        lines += block(section)
    return "\n".join(lines).rstrip("\n") + "\n"
