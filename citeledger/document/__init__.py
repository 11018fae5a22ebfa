"""Reading what a document cites: the marker grammar, the Sources block, locations in the raw
text, the readers for markdown, Word and PowerPoint input, and sentences.

The verifier judges what these find; the filters, the renderers and the build jobs read with them
too. Nothing here decides pass or fail.
"""
