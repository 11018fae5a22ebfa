"""An agent's answer in, a cited draft and a ledger out: ``citeledger import``.

Each provider's shape is read by its own module into an :class:`~.answer.Answer` (the text
without the provider's citation syntax, and where each citation stood):

- ``openai.py``: Responses API ``url_citation`` annotations, Chat Completions annotations;
- ``anthropic.py``: text blocks with ``citations`` (``cited_text`` kept as a provider quote);
- ``gemini.py``: ``groundingSupports`` over ``groundingChunks`` (UTF-8 byte offsets);
- ``perplexity.py``: ``[n]`` into ``citations`` / ``search_results``;
- ``storm.py``: the article and ``url_to_info.json`` through ``url_to_unified_index``;
- ``report.py`` (with ``report_lists.py``): a markdown report's inline links, URL footnotes,
  ``[Site][n]`` reference links and numbered References lists; ``office.py`` reads a .docx
  report into markdown first.

``detect.py`` tells the shapes apart (``--from auto``); ``draft.py`` registers the sources and
writes the markers where the skill puts them (``placement.py``). Nothing here prints: warnings
are returned, the command (``commands/import_cmd.py``) says them.
"""
