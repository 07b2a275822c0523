"""Inline SVG, standard library only: the /tmp race the rule answers,
the rule's place in pick_link(), and the heatmap of refused follows
(flavor x setting x link position).

A picture is drawn at its own size in px and never scaled down (the page
scrolls a wide one in its figure), so its font sizes are the sizes read:
none below MIN_FONT.  Text is laid out by its estimated width (text_width,
on the wide side of DejaVu Sans, so other fonts fit too): long lines wrap,
labels make room for themselves."""

import math
from dataclasses import dataclass, field
from html import escape

from model.cases import POSITIONS
from model.flavors import FLAVORS, STAGE_AFTER_MAINLINE, STAGE_LSM_61, STAGE_BEFORE_MAINLINE
from . import doc

POSITION_ORDER = tuple(POSITIONS.values())
FONT = 'font-family="sans-serif"'
MONO = 'font-family="monospace"'
MIN_FONT = 11
PHONE_WIDTH = 360       # fits a 390 px phone inside the page's padding


# Text extents -----------------------------------------------------------

NARROW = set("fijlrt.,:;'|!()[]{} /-\"\u2019")
WIDE = set("mwMW@%")


def text_width(text, size, bold=False, mono=False):
    """An upper estimate of the width in px of one line of text."""
    if mono:
        return len(text) * size * 0.62
    units = 0.0
    for char in text:
        if char in NARROW:
            units += 0.42
        elif char in WIDE:
            units += 1.0
        elif char.isupper() or char in "<>=~+#&_$*":
            units += 0.8
        else:
            units += 0.65
    return units * size * (1.12 if bold else 1.0)


def wrap(text, size, width, bold=False, mono=False):
    """Lines of text no wider than width px: broken at spaces, and inside
    a word only where one word alone is too wide."""
    lines, line = [], ""
    for word in text.split(" "):
        candidate = word if not line else line + " " + word
        if text_width(candidate, size, bold, mono) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for char in word:
            if line and text_width(line + char, size, bold, mono) > width:
                lines.append(line)
                line = ""
            line += char
    if line or not lines:
        lines.append(line)
    return lines


def leading(size):
    return round(size * 1.35)


def _lines(x, y, lines, size, extra=""):
    """<text> elements of lines whose first baseline is y."""
    return ['<text x="%d" y="%d" font-size="%d"%s>%s</text>'
            % (x, y + i * leading(size), size, extra, escape(line))
            for i, line in enumerate(lines)]


def _svg_open(width, height, title, size=12):
    return ['<svg xmlns="http://www.w3.org/2000/svg" role="img"'
            ' viewBox="0 0 %d %d" width="%d" height="%d" %s font-size="%d">'
            % (width, height, width, height, FONT, size),
            "<title>%s</title>" % escape(title)]


ARROW = ('<defs><marker id="%s" viewBox="0 0 10 10" refX="10" refY="5"'
         ' markerWidth="6" markerHeight="6" orient="auto">'
         '<path d="M0 0 L10 5 L0 10 z" fill="%s"/></marker></defs>')


# The heatmap -------------------------------------------------------------

@dataclass
class Heat:
    """Refused / followed counts per (flavor, setting) row and position."""
    rows: list = field(default_factory=list)        # [(flavor, setting)]
    positions: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)  # (row, pos) -> [refused, n]

    def share(self, row, position):
        refused, total = self.counts.get((row, position), (0, 0))
        return None if not total else refused / total


def _counted_params(params):
    return (params.get("op") == "open_rdonly" and params.get("follows")
            and params.get("mount") == "strictatime")


def counted(result):
    """[(key, case)] of a file's cases that count in the heatmap: a
    follow of a link by open O_RDONLY on the default scratch mount whose
    control succeeded, so a failure is the link's doing."""
    return [(key, case) for key, case in result.select(_counted_params)
            if case.get("control_ret") == 0]


def heat(files):
    """The Heat of `files`: a row per flavor and setting (the flavors in
    order, their settings sorted) with a counted case."""
    out = Heat()
    seen = set()
    for flavor, result in files.items():
        settings = set()
        for (setting, _cid), case in counted(result):
            row = (flavor, setting)
            settings.add(setting)
            position = case["params"]["position"]
            seen.add(position)
            cell = out.counts.setdefault((row, position), [0, 0])
            cell[0] += case["ret"] != 0
            cell[1] += 1
        out.rows += [(flavor, setting) for setting in sorted(settings)]
    out.positions = [p for p in POSITION_ORDER if p in seen] + sorted(
        seen - set(POSITION_ORDER))
    return out


RULE_DECIDERS = ("own rule", "mainline protected_symlinks")


def other_refusals(files, checks):
    """{decider: refusals in the row with most of them} for the heatmap's
    refused follows that no symlink rule decided (the model's decider,
    e.g. DAC on a directory of the target's path)."""
    per = {}
    for flavor, result in files.items():
        preds = checks[flavor].predictions if flavor in checks else {}
        for key, case in counted(result):
            if case["ret"] == 0:
                continue
            pred = preds.get(key)
            decider = pred.decider if pred is not None else "unpredicted"
            if decider in RULE_DECIDERS:
                continue
            row = per.setdefault(decider, {})
            row[(flavor, key[0])] = row.get((flavor, key[0]), 0) + 1
    return {d: max(rows.values()) for d, rows in per.items()}


def _colour(share, top):
    """White (none refused) to dark red (the map's largest share)."""
    if share is None:
        return "#e4e4e4"
    level = share / top if top else 0.0
    low, high = (255, 255, 255), (165, 15, 21)
    rgb = [round(a + (b - a) * level) for a, b in zip(low, high)]
    return "#%02x%02x%02x" % tuple(rgb)


def _row_label(data, index):
    flavor, setting = data.rows[index]
    previous = data.rows[index - 1][0] if index else None
    return "%s  %s" % (flavor if flavor != previous else "", setting)


def heatmap_svg(data, size=MIN_FONT, cell_h=20, angle=35):
    """The map at its own size: the row labels' column as wide as the
    longest label, cells as wide as "100%", and room above and to the right
    for the column labels, which are turned by `angle` degrees."""
    label_width = 10 + math.ceil(max(
        [text_width(_row_label(data, i), size)
         for i in range(len(data.rows))] + [0]))
    cell_w = max(34, round(text_width("100%", size) + 10))
    cos, sin = (math.cos(math.radians(angle)),
                math.sin(math.radians(angle)))
    lengths = [text_width(p, size) for p in data.positions] or [0]
    head = math.ceil(max(lengths) * sin + size * cos) + 10
    grid_right = label_width + cell_w * len(data.positions)
    reach = max([label_width + col * cell_w + cell_w / 2 - 8
                 + length * cos + size * 0.3 * sin
                 for col, length in enumerate(lengths)] + [0])
    width = math.ceil(max(grid_right, reach)) + 4
    height = head + cell_h * len(data.rows) + 4
    out = _svg_open(width, height, "Share of link follows refused, per"
                    " flavor, setting and link position", size)
    for col, position in enumerate(data.positions):
        x = label_width + col * cell_w + cell_w / 2 - 8
        out.append('<text x="%.1f" y="%d" text-anchor="start"'
                   ' transform="rotate(-%d %.1f %d)">%s</text>'
                   % (x, head - 6, angle, x, head - 6, escape(position)))
    top = max((s for s in (data.share(r, p) for r in data.rows
                           for p in data.positions) if s is not None),
              default=0.0)
    for index, row in enumerate(data.rows):
        y = head + index * cell_h
        flavor, setting = row
        if index and flavor != data.rows[index - 1][0]:
            out.append('<line x1="0" x2="%d" y1="%d" y2="%d"'
                       ' stroke="#333" stroke-width="1.5"/>'
                       % (grid_right, y, y))
        out.append('<text x="4" y="%d" xml:space="preserve">%s</text>'
                   % (y + cell_h - 6, escape(_row_label(data, index))))
        for col, position in enumerate(data.positions):
            share = data.share(row, position)
            x = label_width + col * cell_w
            refused, total = data.counts.get((row, position), (0, 0))
            tip = ("%s %s %s: %d of %d refused"
                   % (flavor, setting, position, refused, total))
            out.append('<rect x="%d" y="%d" width="%d" height="%d"'
                       ' fill="%s" stroke="#fff"><title>%s</title></rect>'
                       % (x, y, cell_w, cell_h, _colour(share, top),
                          escape(tip)))
            if share is not None:
                ink = "#fff" if top and share / top > 0.55 else "#222"
                out.append('<text x="%.1f" y="%d" text-anchor="middle"'
                           ' fill="%s">%d%%</text>'
                           % (x + cell_w / 2, y + cell_h - 6, ink,
                              round(100 * share)))
    out.append("</svg>")
    return "\n".join(out)


def heat_table(data):
    """(header, rows) of the same numbers, for Markdown."""
    header = ["flavor", "setting"] + list(data.positions)
    rows = []
    for row in data.rows:
        cells = []
        for position in data.positions:
            share = data.share(row, position)
            cells.append("-" if share is None else
                         "%d%%" % round(100 * share))
        rows.append(list(row) + cells)
    return header, rows


# The rule in pick_link() ----------------------------------------------------

def _stage_flavors(stage, flavors):
    names = [f for f in flavors if FLAVORS[f].stage == stage]
    out = []
    for name in names:
        spec = FLAVORS[name]
        out.append(name if spec.compiled else "%s (compiled out)" % name)
    return ", ".join(out)


def pipeline(flavors):
    """[(title, detail, css)] of the steps 6.1's pick_link() takes for
    every symlink it follows, with the present flavors' own rules where
    flavors.py places them."""
    steps = []

    def own(stage, where):
        names = _stage_flavors(stage, flavors)
        if names:
            steps.append(("%s: the sticky rule" % names,
                          "every link, own knob; %s" % where, "own"))
    own(STAGE_BEFORE_MAINLINE, "before mainline's check")
    steps.append(("mainline may_follow_link()",
                  "trailing links only; fs.protected_symlinks", "mainline"))
    own(STAGE_AFTER_MAINLINE, "after mainline's check, before nosymfollow and"
        " touch_atime(), where 2010's hook ran")
    steps.append(("nosymfollow, RESOLVE_NO_SYMLINKS",
                  "refuse every link with ELOOP", "plain"))
    steps.append(("touch_atime()", "the link's atime is updated", "plain"))
    own(STAGE_LSM_61, "security_inode_follow_link(), where 6.1 calls the"
        " LSM hook")
    known = (None, STAGE_BEFORE_MAINLINE, STAGE_AFTER_MAINLINE, STAGE_LSM_61)
    for stage in sorted({FLAVORS[f].stage for f in flavors} - set(known)):
        own(stage, "at stage %s" % stage)
    steps.append(("the link is followed",
                  "then DAC permissions and the operation", "plain"))
    return steps


CONDITION = ("1. its directory is sticky and world-writable (/tmp: 1777),",
             "2. the follower's fsuid does not own the link,",
             "3. the directory's owner does not own the link.")
FILLS = {"own": "#f6d3d3", "mainline": "#d7e9fb", "plain": "#f1f1f1"}


def rule_svg(flavors, width=PHONE_WIDTH):
    """The rule's condition, then the steps of pick_link() as boxes, their
    text wrapped to the width."""
    steps = pipeline(flavors)
    pad, inset = 10, 12             # text inside a frame; boxes' margin
    head = "Refuse (EACCES) a symlink when all three hold:"
    head_lines = wrap(head, 13, width - 2 * pad, bold=True)
    cond_lines = [wrap(line, 12, width - 2 * pad - 12) for line in CONDITION]
    y = pad + 13
    body = _lines(pad, y, head_lines, 13, ' font-weight="bold"')
    y += leading(13) * len(head_lines)
    for lines in cond_lines:
        body += _lines(pad + 12, y, lines, 12)
        y += leading(12) * len(lines)
    condition_h = y - leading(12) + pad
    body.insert(0, '<rect x="1" y="1" width="%d" height="%d" rx="6"'
                ' fill="#fff4d6" stroke="#b58900"/>'
                % (width - 2, condition_h))
    y = condition_h + 16
    gap, inner = 16, width - 2 * inset - 2 * pad
    for index, (title, detail, css) in enumerate(steps):
        title_lines = wrap(title, 13, inner, bold=True)
        detail_lines = wrap(detail, 12, inner)
        box_h = (pad + 13 + leading(13) * (len(title_lines) - 1)
                 + leading(12) * len(detail_lines) + pad - 4)
        body.append('<rect x="%d" y="%d" width="%d" height="%d" rx="5"'
                     ' fill="%s" stroke="#555"/>'
                     % (inset, y, width - 2 * inset, box_h, FILLS[css]))
        base = y + pad + 12
        body += _lines(inset + pad, base, title_lines, 13,
                       ' font-weight="bold"')
        base += leading(13) * (len(title_lines) - 1) + leading(12)
        body += _lines(inset + pad, base, detail_lines, 12)
        y += box_h
        if index + 1 < len(steps):
            body.append('<path d="M%d %d v%d" stroke="#555"'
                        ' marker-end="url(#rule-arrow)"/>'
                        % (width // 2, y, gap - 2))
            y += gap
    out = _svg_open(width, y + 2, "The sticky rule and where each flavor"
                    " checks it", 13)
    out.append(ARROW % ("rule-arrow", "#555"))
    out += body
    out.append("</svg>")
    return "\n".join(out)


# The /tmp race of 2010 -----------------------------------------------------

VICTIM_FILE, TARGET = "/tmp/report.txt", "/etc/shadow"
ATTACK_STEPS = (
    ("1. The victim writes a predictable name",
     "Every night root (a cron job, a daemon) writes its report to the"
     " same name in /tmp, without O_EXCL:",
     'open("%s", O_WRONLY|O_CREAT)' % VICTIM_FILE,
     None, "#f1f1f1", "#555"),
    ("2. The attacker plants a symlink first",
     "/tmp (drwxrwxrwt, owner root) is world-writable: uid 1000 may create"
     " any name in it; the sticky bit only keeps it from removing others'"
     " files. Before the victim runs:",
     "ln -s %s %s" % (TARGET, VICTIM_FILE),
     "planted", "#f6e7c8", "#6b4a00"),
    ("3. Without the rule the open follows it",
     "root's open resolves %s to %s and writes the report over it: root"
     " may write there, so no permission check stops it." % (VICTIM_FILE,
                                                              TARGET),
     None, "followed", "#fbe3e3", "#a31010"),
    ("The rule: the follow fails with EACCES",
     "/tmp is sticky and world-writable, and the link's owner (uid 1000)"
     " is neither the follower (root) nor /tmp's owner (root): open()"
     " returns EACCES, %s is untouched. Root is not exempt: the rule"
     " compares owners, not capabilities." % TARGET,
     None, "refused", "#e5f5e1", "#176b12"),
)
ARROWS = {"planted": ("#6b4a00", "points to"),
          "followed": ("#a31010", "root writes"),
          "refused": ("#a31010", "EACCES")}


def _link_diagram(x, y, width, state):
    """The link and its target as two boxes and an arrow; (svg, height)."""
    size, box_h = 12, 24
    first = text_width(VICTIM_FILE, size, mono=True) + 16
    second = text_width(TARGET, size, mono=True) + 16
    top = y + 16                    # room for the arrow's label
    colour, label = ARROWS[state]
    out = []
    for left, w, name, note in ((x, first, VICTIM_FILE, "link, uid 1000"),
                                (x + width - second, second, TARGET,
                                 "file, owner root")):
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" rx="3"'
                   ' fill="#fff" stroke="#555"/>' % (left, top, w, box_h))
        out.append('<text x="%.1f" y="%d" font-size="%d" %s>%s</text>'
                   % (left + 8, top + 16, size, MONO, escape(name)))
        out.append('<text x="%.1f" y="%d" font-size="11" fill="#444">%s'
                   '</text>' % (left, top + box_h + 14, escape(note)))
    start, end = x + first + 4, x + width - second - 4
    mid, arrow_y = (start + end) / 2, top + box_h / 2
    dash = ' stroke-dasharray="4 3"' if state == "planted" else ""
    if state == "refused":
        cut = mid + 8
        out.append('<path d="M%.1f %.1f H%.1f" stroke="%s"'
                   ' stroke-width="2"/>' % (start, arrow_y, cut, colour))
        out.append('<path d="M%.1f %.1f l10 10 M%.1f %.1f l-10 10"'
                   ' stroke="%s" stroke-width="2.5"/>'
                   % (cut - 5, arrow_y - 5, cut + 5, arrow_y - 5, colour))
    else:
        out.append('<path d="M%.1f %.1f H%.1f" stroke="%s" stroke-width="2"'
                   '%s marker-end="url(#attack-arrow-%s)"/>'
                   % (start, arrow_y, end, colour, dash, state))
    out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle"'
               ' font-weight="bold" fill="%s">%s</text>'
               % (mid, top - 5, colour, escape(label)))
    return out, 16 + box_h + 22


PANEL_WIDTH = 272      # four side by side in the report's 72em column


def attack_panel(step, width=PANEL_WIDTH):
    """One step of the race as its own picture: on a wide page the four
    stand in a row, on a phone one above the other."""
    heading, text, code, state, fill, stroke = step
    pad, inset = 10, 1
    inner = width - 2 * inset - 2 * pad
    heading_lines = wrap(heading, 13, inner, bold=True)
    text_lines = wrap(text, 12, inner)
    code_lines = wrap(code, 12, inner, mono=True) if code else []
    y = 1
    parts = _lines(inset + pad, y + pad + 12, heading_lines, 13,
                   ' font-weight="bold" fill="%s"' % stroke)
    at = y + pad + 12 + leading(13) * (len(heading_lines) - 1)
    at += leading(12)
    parts += _lines(inset + pad, at, text_lines, 12)
    at += leading(12) * len(text_lines)
    if code_lines:
        parts += _lines(inset + pad, at + 2, code_lines, 12, " " + MONO)
        at += leading(12) * len(code_lines) + 2
    if state:
        shapes, height = _link_diagram(inset + pad, at - 8, inner, state)
        parts += shapes
        at += height - 8
    box_h = at - leading(12) + pad + 4 - y
    out = _svg_open(width, y + box_h + 2, heading, 12)
    if state:
        out.append(ARROW % ("attack-arrow-%s" % state, ARROWS[state][0]))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" rx="6"'
               ' fill="%s" stroke="%s"/>'
               % (inset, y, width - 2 * inset, box_h, fill, stroke))
    out += parts
    out.append("</svg>")
    return "\n".join(out)


def attack_svg(width=PANEL_WIDTH):
    """The four steps, each its own picture, in a wrapping row."""
    return '<div class="panels" role="img" aria-label="%s">%s</div>' % (
        escape("The /tmp race of 2010: a planted symlink, and the sticky"
               " rule's answer"),
        "".join(attack_panel(step, width) for step in ATTACK_STEPS))


def attack_figure():
    """The /tmp race the 2010 patches answer, as a doc.Figure."""
    fallback = [doc.Bullets([
        [doc.Strong("The victim writes a predictable name"), ": root"
         " (a cron job, a daemon) writes the same name in /tmp every night"
         " without O_EXCL: ", doc.Code(ATTACK_STEPS[0][2]), "."],
        [doc.Strong("The attacker plants a symlink first"), ": /tmp"
         " (1777, owner root) lets uid 1000 create any name in it: ",
         doc.Code(ATTACK_STEPS[1][2]), "."],
        [doc.Strong("Without the rule the open follows it"), ": root's"
         " open writes the report over ", doc.Code(TARGET), "."],
        [doc.Strong("The rule: the follow fails with EACCES"), ": the"
         " link's owner (uid 1000) is neither the follower (root) nor"
         " /tmp's owner (root). Root is not exempt: the rule compares"
         " owners, not capabilities."]])]
    return doc.Figure(attack_svg(), [
        "The /tmp race the 2010 patches answer, as their description"
        " tells it ", doc.Mark("static"), "."], fallback)
