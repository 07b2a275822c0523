"""Inline SVG, standard library only: the rule's place in pick_link(),
and the heatmap of refused follows (flavor x setting x link position)."""

from dataclasses import dataclass, field
from html import escape

from model.cases import POSITIONS
from model.flavors import FLAVORS, STAGE_AFTER_MAINLINE, STAGE_LSM_61, STAGE_BEFORE_MAINLINE

POSITION_ORDER = tuple(POSITIONS.values())
FONT = 'font-family="sans-serif"'


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


def counts_case(case):
    """Does a case count in the heatmap?  A follow of a link by open
    O_RDONLY on the default scratch mount whose control succeeded, so a
    failure is the link's doing."""
    params = case["params"]
    return (params.get("op") == "open_rdonly" and params.get("follows")
            and params.get("mount") == "strictatime"
            and case.get("control_ret") == 0)


def heat(files):
    out = Heat()
    seen = set()
    for flavor, result in files.items():
        for (setting, _cid), case in sorted(result.cases.items()):
            if not counts_case(case):
                continue
            row = (flavor, setting)
            if row not in out.rows:
                out.rows.append(row)
            position = case["params"]["position"]
            seen.add(position)
            cell = out.counts.setdefault((row, position), [0, 0])
            cell[0] += case["ret"] != 0
            cell[1] += 1
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
        for key, case in result.cases.items():
            if not counts_case(case) or case["ret"] == 0:
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


def heatmap_svg(data, label_width=130, cell_w=62, cell_h=20, head=70):
    width = label_width + cell_w * len(data.positions) + 4
    height = head + cell_h * len(data.rows) + 4
    out = ['<svg xmlns="http://www.w3.org/2000/svg" role="img"'
           ' viewBox="0 0 %d %d" width="%d" height="%d" %s font-size="11">'
           % (width, height, width, height, FONT),
           "<title>Share of link follows refused, per flavor, setting and"
           " link position</title>"]
    for col, position in enumerate(data.positions):
        x = label_width + col * cell_w + cell_w / 2
        out.append('<text x="%.1f" y="%d" text-anchor="start"'
                   ' transform="rotate(-35 %.1f %d)">%s</text>'
                   % (x - 8, head - 6, x - 8, head - 6, escape(position)))
    top = max((s for s in (data.share(r, p) for r in data.rows
                           for p in data.positions) if s is not None),
              default=0.0)
    previous = None
    for index, row in enumerate(data.rows):
        y = head + index * cell_h
        flavor, setting = row
        if flavor != previous and index:
            out.append('<line x1="0" x2="%d" y1="%d" y2="%d"'
                       ' stroke="#333" stroke-width="1.5"/>'
                       % (width, y, y))
        label = "%s  %s" % (flavor if flavor != previous else "", setting)
        previous = flavor
        out.append('<text x="4" y="%d" xml:space="preserve">%s</text>'
                   % (y + cell_h - 6, escape(label)))
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


def rule_svg(flavors, width=560):
    steps = pipeline(flavors)
    box_h, gap, top = 40, 14, 44 + 20 * len(CONDITION)
    height = top + len(steps) * (box_h + gap) + 4
    out = ['<svg xmlns="http://www.w3.org/2000/svg" role="img"'
           ' viewBox="0 0 %d %d" width="%d" height="%d" %s font-size="13">'
           % (width, height, width, height, FONT),
           "<title>The sticky rule and where each flavor checks it</title>",
           '<rect x="1" y="1" width="%d" height="%d" rx="6" fill="#fff4d6"'
           ' stroke="#b58900"/>' % (width - 2, top - 14),
           '<text x="12" y="22" font-weight="bold">Refuse (EACCES) a symlink'
           ' when all three hold:</text>']
    for index, line in enumerate(CONDITION):
        out.append('<text x="24" y="%d">%s</text>'
                   % (44 + 20 * index, escape(line)))
    for index, (title, detail, css) in enumerate(steps):
        y = top + index * (box_h + gap)
        out.append('<rect x="40" y="%d" width="%d" height="%d" rx="5"'
                   ' fill="%s" stroke="#555"/>'
                   % (y, width - 80, box_h, FILLS[css]))
        out.append('<text x="52" y="%d" font-weight="bold">%s</text>'
                   % (y + 16, escape(title)))
        out.append('<text x="52" y="%d" font-size="11">%s</text>'
                   % (y + 32, escape(detail)))
        if index + 1 < len(steps):
            mid = width // 2
            out.append('<path d="M%d %d v%d" stroke="#555"'
                       ' marker-end="url(#arrow)"/>'
                       % (mid, y + box_h, gap - 2))
    out.insert(2, '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10"'
               ' refY="5" markerWidth="6" markerHeight="6" orient="auto">'
               '<path d="M0 0 L10 5 L0 10 z" fill="#555"/></marker></defs>')
    out.append("</svg>")
    return "\n".join(out)
