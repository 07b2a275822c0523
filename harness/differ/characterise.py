"""What a flavor's unexplained cases have in common, as one sentence.

A regression usually has one cause, and its cases share the parameter
values that cause reads: a v3 variant that exempts fsuid 0 fails exactly
the cases whose follower is root. Among the values every unexplained case
holds (the setting and each case parameter), those that narrow the
flavor's cases down are taken greedily, the rarest first, while each
still removes cases that are explained; the values held by most (MOST of
them) are tried too, and the description that covers the unexplained
cases best and the others least is kept.
"""

from collections import Counter

MOST = 0.8


def _values(setting, params):
    out = {("setting", setting)}
    for key, value in params.items():
        if isinstance(value, (str, int, bool)) and key != "id":
            out.add((key, value))
    return out


def _greedy(pool, every, freq):
    """Values of pool taken rarest first while each narrows `every`."""
    chosen, matching = [], every
    for value in sorted(pool, key=lambda v: (freq[v], str(v))):
        narrower = [vals for vals in matching if value in vals]
        if narrower and len(narrower) < len(matching):
            chosen.append(value)
            matching = narrower
    return chosen, len(matching)


def characterise(all_cases, mismatches, most=MOST):
    """all_cases: [(setting, params)] of the flavor; mismatches: its
    unexplained cases (check.Mismatch). Returns (values, matching,
    shared_by): the chosen (key, value) pairs, how many of all_cases have
    every one of them, and how many mismatches do. The values held by all
    the mismatches are tried, then those held by `most` of them; the
    description kept is the one that best covers the mismatches and
    nothing else (shared_by/n times shared_by/matching)."""
    if not mismatches:
        return [], 0, 0
    bad = [_values(m.setting, m.params) for m in mismatches]
    every = [_values(s, p) for s, p in all_cases]
    held = Counter(v for vals in bad for v in vals)
    freq = Counter(v for vals in every for v in vals)
    best = ([], len(every), len(bad), -1.0)
    for need in (len(bad), max(1, int(most * len(bad) + 0.999))):
        pool = [v for v, n in held.items() if n >= need]
        chosen, matching = _greedy(pool, every, freq)
        if not chosen:
            continue
        shared = sum(all(v in vals for v in chosen) for vals in bad)
        score = (shared / len(bad)) * (shared / max(matching, 1))
        if score > best[3]:
            best = (chosen, matching, shared, score)
    return best[0], best[1], best[2] if best[0] else 0


def sentence(flavor, all_cases, mismatches):
    """'v3: 612 unexplained case(s) share follower=root (all 612; ...)'."""
    values, matching, shared_by = characterise(all_cases, mismatches)
    n = len(mismatches)
    if not values:
        return ("%s: %d unexplained case(s) share no parameter value that "
                "sets them apart" % (flavor, n))
    names = ", ".join("%s=%s" % v for v in values)
    who = "all %d" % n if shared_by == n else "%d of %d" % (shared_by, n)
    return ("%s: %d unexplained case(s) share %s (%s; %d of the flavor's "
            "%d cases have these values)" % (flavor, n, names, who,
                                             matching, len(all_cases)))
