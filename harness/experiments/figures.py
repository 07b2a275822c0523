"""A figure of `make bench` beside its reference, as a ratio to meet."""

from dataclasses import dataclass
from typing import Optional


@dataclass
class Figure:
    name: str
    seconds: Optional[float]       # None: not measured in this run
    reference: str
    reference_seconds: Optional[float]
    target: float                  # the ratio not to exceed
    note: str = ''
    unit: str = 's'                 # of the figure and its reference

    @property
    def ratio(self):
        if not self.seconds or not self.reference_seconds:
            return None
        return self.seconds / self.reference_seconds

    @property
    def met(self):
        return None if self.ratio is None else self.ratio <= self.target


def rows(figures):
    """The bench table: one line per figure, figure and reference side by
    side, the ratio and whether it meets its target."""
    out = []
    for f in figures:
        def secs(x):
            return 'not run' if x is None else f'{x:.1f}{f.unit}'

        verdict = {None: 'not measured', True: 'ok', False: 'over'}[f.met]
        ratio = '-' if f.ratio is None else f'{f.ratio:.2f}'
        out.append(f'{f.name:48} {secs(f.seconds):>9}  vs {f.reference} '
                   f'{secs(f.reference_seconds)}: ratio {ratio} (target '
                   f'<= {f.target:.1f}) {verdict}'
                   + (f'; {f.note}' if f.note else ''))
    return out
