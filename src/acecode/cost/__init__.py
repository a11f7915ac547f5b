"""What learning costs and the user's limits on it.

``pricing`` (the shipped price table and the cost of a call), ``estimate``
(a cycle's worst case before any call), ``ledger`` (the user-level JSONL
record of every cycle's spend, across projects), ``budget`` (daily and
monthly limits, check-and-reserve under the ledger's lock) and ``gate``
(what the learning cycle calls). ``acecode cost`` and ``acecode doctor``
read the ledger.
"""
