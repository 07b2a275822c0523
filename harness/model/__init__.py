"""The rule model: the case table (common/lib/cases.def), case ids and
their params, the flavors' rules, the direct control's prediction, the
settings, the interface and the ratelimit. It predicts each case from the
case alone and never reads an observation; the suite's expectation writer
(suite/expect.py) and the differ both import it."""
