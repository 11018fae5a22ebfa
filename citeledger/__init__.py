"""citeledger: a citation ledger, a pandoc filter and one verifier for grounded research."""

# The newest release, as CHANGELOG.md heads it (`## [0.1.0] - 2026-12-01`); `citeledger
# --version` and the manual's footer print both.
__version__ = "0.1.0"
__date__ = "2026-12-01"
