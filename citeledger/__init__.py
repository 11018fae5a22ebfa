"""citeledger: a citation ledger, a pandoc filter and one verifier for grounded research."""

__version__ = "0.1.0"
