"""The jobs that run pandoc and write files: convert (one draft to many outputs), wiki (one page
per file or section), and the in-place rewrites of a draft (merge --rewrite, render --replace-in).
"""
