"""The report: one Document built from the differ's analysis (the story,
the sections, the pictures, the case views), rendered as Markdown and
HTML."""
