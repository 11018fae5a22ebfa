"""A draft rewritten in place: ``merge --rewrite`` (another ledger's ids translated), ``rewrite
--keys`` (``[@key]`` citations become ``[n]``) and ``render --replace-in`` (the Sources block
rewritten from the ledger). Each plans the whole change first and writes the draft once, through
the one safe write, only when the result still reads back as its author wrote it."""
