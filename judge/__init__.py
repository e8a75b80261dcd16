"""The judge: whether a backend's result is right, given the oracle's.

Layer: above ``oracle`` only (never imports adapters, generators, reports or conformance).

* ``judge.tolerance``: the tolerance table (per op and result type);
* ``judge.compare``: the element-wise comparator and its one message format;
* ``judge.verdict``: the one entry point: an op's rule (``judge_op``) and replay judging of
  whole programs (``judge_program``); an op record's own comparison hook (rng's statistical
  tests in ``oracle/statistical.py``, LAPACK property judges) is called from there;
* ``judge.verdicts``: ``Verdict``, the judge's final answer about a case (what callers store and show);
* ``judge.results``: the results model: ``CaseResult``, a run's ``Run`` of ``Cell``, verdicts and their
  worst-of rule, reading results.json (the statuses are ``judge.status``'s);
* ``judge.known_deviations``: the backends' known deviations (``judge/deviations/*.toml``), read
  inside judge/ only;
* ``judge.explain``: the entry that explains a failure, for the failures made outside the judge
  (a run that crashed, a stored case or finding) and the tables' other questions.
"""
