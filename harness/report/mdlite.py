"""Just enough Markdown to HTML for the report's embedded sections:
headings, pipe tables, bullet lists, fenced code and paragraphs."""

import re
from html import escape


def inline(text):
    """Escapes text, then renders `code`, **bold** and *emphasis*."""
    out = escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)
    return re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"<i>\1</i>",
                  out)


def _cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def to_html(text):
    out, para, lines = [], [], text.splitlines()
    i = 0

    def flush():
        if para:
            out.append("<p>%s</p>" % inline(" ".join(para)))
            para.clear()
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>%s</pre>" % escape("\n".join(lines[i + 1:j])))
            i = j + 1
            continue
        if line.startswith("#"):
            flush()
            level = min(len(line) - len(line.lstrip("#")) + 1, 6)
            out.append("<h%d>%s</h%d>" % (level, inline(line.lstrip("# ")),
                                          level))
        elif line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            body = [r for r in rows[1:]
                    if not all(set(c) <= set("-: ") for c in r)]
            out.append('<div class="scroll"><table><tr>%s</tr>%s</table>'
                       '</div>' % (
                "".join("<th>%s</th>" % inline(c) for c in rows[0]),
                "".join("<tr>%s</tr>" % "".join(
                    "<td>%s</td>" % inline(c) for c in r) for r in body)))
            continue
        elif line.startswith(("- ", "* ")):
            flush()
            items = []
            while i < len(lines) and lines[i].startswith(("- ", "* ")):
                items.append(lines[i][2:])
                i += 1
            out.append("<ul>%s</ul>" % "".join(
                "<li>%s</li>" % inline(x) for x in items))
            continue
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
        i += 1
    flush()
    return "\n".join(out)
