"""The core matrix: trailing open_rdonly, dir mode x follower per setting."""

from dataclasses import dataclass, field

FOLLOWERS = ("root", "A", "B")
CORE = {"position": "trailing", "op": "open_rdonly", "mount": "strictatime",
        "link_owner": "A", "dir_owner": "root"}


@dataclass
class Matrix:
    flavor: str
    setting: str
    target: str
    modes: list = field(default_factory=list)
    cells: dict = field(default_factory=dict)   # (mode, follower) -> cell


@dataclass
class Cell:
    ret: int
    errno: str
    atime: object
    agrees: bool
    case_id: str = ""


def _core(params):
    return all(params.get(k) == v for k, v in CORE.items())


PREFERRED_TARGET = "file-root"


def choose_target(cases):
    """file-root if present, else the target with the most successful
    controls (then by name)."""
    if any(c["params"].get("target") == PREFERRED_TARGET for c in cases):
        return PREFERRED_TARGET
    score = {}
    for case in cases:
        target = case["params"].get("target", "")
        score[target] = score.get(target, 0) + (case.get("control_ret") == 0)
    if not score:
        return None
    return sorted(score, key=lambda t: (-score[t], t))[0]


def matrices(result, check):
    """[Matrix] for one flavor, one per setting with core cases."""
    core = [case for _, case in result.select(_core)]
    target = choose_target(core)
    out = []
    for setting in sorted({c["setting"] for c in core}):
        grid = Matrix(result.flavor, setting, target)
        for case in core:
            params = case["params"]
            if case["setting"] != setting or params.get("target") != target:
                continue
            key = (case["setting"], case["id"])
            agrees = key in check.predictions and not any(
                (m.setting, m.case_id) == key for m in check.unexplained)
            grid.cells[(params["dir_mode"], params["follower"])] = Cell(
                case["ret"], case["errno"], case.get("atime_changed"), agrees,
                case["id"])
        grid.modes = sorted({mode for mode, _ in grid.cells})
        out.append(grid)
    return out


def followers(grid):
    present = {f for _, f in grid.cells}
    return [f for f in FOLLOWERS if f in present] + sorted(
        present - set(FOLLOWERS))


def cell_text(cell):
    if cell is None:
        return "-"
    text = "ok" if cell.ret == 0 else cell.errno
    if cell.atime is True:
        text += " +a"
    if not cell.agrees:
        text += " !"
    return text
