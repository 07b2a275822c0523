"""The report, built once as a Document from an Analysis: the 2010
story first (the attack, the rule, its lineage, the thread's positions
with their evidence), then the verdict, every two flavors as one grid,
the glossary, the rule as a picture, what changed between the postings,
the pairs, the reference sections and the case views."""

import os

from . import casepages
from . import codesteps
from . import debate
from . import doc
from . import front
from . import pairs as pairs_doc
from . import pictures
from . import reference
from . import story

TITLE = ("Sticky symlinks: the 2010 revisions and mainline, booted and"
         " diffed")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def source_text(analysis):
    """Where the results come from, for the verdict."""
    note = getattr(analysis, "source_note", "")
    return [doc.Code(analysis.results_dir)] + ([" (%s)" % note]
                                               if note else [])


def build(analysis, top=TOP, apart=False):
    """The Document of one Analysis; `top` holds the patch series.
    `apart`: the case views are a casepages.Placeholder, built and
    rendered apart (report/apart.py)."""
    document = doc.Document(TITLE)
    shown = set()       # case ids the report names: each gets a view
    document.blocks.append(debate.story_section(
        analysis, shown, pictures.attack_figure()))
    document.blocks.append(front.verdict(analysis, source_text(analysis)))
    sections = []
    if analysis.files:
        sections += [front.grid_section(analysis.grid, shown),
                     front.glossary(analysis),
                     story.picture(analysis, shown)]
    sections += [story.what_changed(analysis, top, pairs_doc.pair_anchor),
                 pairs_doc.legend(analysis),
                 pairs_doc.pairs(analysis, shown),
                 reference.model_section(analysis),
                 reference.regression_section(analysis),
                 reference.matrices_section(analysis, shown),
                 reference.interface_section(analysis),
                 codesteps.section(analysis)]
    sections += reference.embedded_sections(analysis)
    sections.append(reference.assumptions_section())
    if analysis.diffs:
        sections.append(pairs_doc.every_case(analysis, shown))
    if shown and apart:
        sections.append(casepages.Placeholder(shown))
    elif shown:
        sections.append(casepages.case_views(analysis, shown,
                                             document.files))
    document.sections = sections
    return document
