"""Does the evidence support the claim? Each cited sentence checked against the evidence of
the sources it cites (``citeledger verify --support``, ``citeledger audit``).

citeledger proves that a quote is verbatim on its page; this package asks whether the quote
says what the sentence citing it says. The model-free check (:mod:`.details`) finds the
details of a sentence (figures and dates as values, names, negations; :mod:`.numbers`,
:mod:`.lexicon`) that none of its evidence (:mod:`.evidence`: quotes, and with pages the best
chunk of each kept page) carries; an optional local judge (:mod:`.judge`: an ONNX classifier,
or a program of the user's) scores the whole claim. :mod:`.check` runs both over a draft's
sentences and makes the verdicts (:mod:`.verdict`) and findings.

Nothing is imported here: the report imports :mod:`.verdict` alone.
"""
