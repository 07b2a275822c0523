"""The case views' page, built and rendered apart from the other pages.

The report's child (differ/analysis.py) has loaded and checked the same
files for the grid's cells.  It then builds the case views and renders
their page in both renderers while the caller renders the other pages
(1,700 views: half the report's time after the analysis).  The caller's
document holds a casepages.Placeholder with the views' anchors, so its
pages link to them and list them as the whole document does; the views
get the anchors' pages of the caller's document in return."""

import os

from . import casepages
from . import doc
from . import render_html
from . import render_md
from .files import write_if_changed

RENDERERS = (render_md, render_html)


def placeholder(document):
    """The document's casepages.Placeholder, or None."""
    return next((s for s in document.sections
                 if isinstance(s, casepages.Placeholder)), None)


def hand_over(analysis, document, out):
    """Start the case views of `document` apart, their pages written to
    the directory `out`: the Work whose next() gives the names of the
    pages written; None when the document holds its case views itself.
    Their scripts are the caller's: scripts()."""
    holder = placeholder(document)
    if holder is None:
        if analysis.child is not None:      # nothing to hand it
            analysis.child.close()
            analysis.child = None
        return None
    naming = casepages.named_by(analysis)
    naming = {cid: naming[cid] for cid in holder.ids if cid in naming}
    return analysis.elsewhere(views, holder.ids, naming,
                              doc.pages(document)[1], document.title,
                              document.top, out)


def scripts(analysis, document):
    """{file: text} of the scripts the case views rendered apart link to
    (made here: 0.1 s, and sending them from the child took 0.2 s)."""
    holder = placeholder(document)
    return casepages.scripts(analysis, holder.ids) if holder else {}


def views(analysis, ids, naming, page_of, title, top, out):
    """Generator: the names of the case views' pages in every renderer,
    written to `out` as the whole document would render them.  They are
    written here, not sent: 17 MB through a pipe took 0.4 s, most of it
    copying."""
    section = casepages.case_views(analysis, ids, casepages.SCRIPTS_APART,
                                   naming)
    document = doc.Document(title, sections=[section], top=top)
    names = []
    for module in RENDERERS:
        for name, text in module.pages(document, skip=("",),
                                       page_of=page_of).items():
            if text is not None:    # each renderer's own page: skipped
                write_if_changed(os.path.join(out, name), text)
                names.append(name)
    yield names


def written(pages, names):
    """Check that the pages rendered apart (None in each renderer's
    {file name: text}) are the ones written."""
    apart = [name for texts in pages for name, text in texts.items()
             if text is None]
    if sorted(apart) != sorted(names):
        raise RuntimeError("the case views' pages written apart are %s,"
                           " not %s" % (", ".join(names) or "none",
                                        ", ".join(apart)))
