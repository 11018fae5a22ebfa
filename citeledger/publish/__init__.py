"""The jobs that run pandoc and write delivered files: convert (one draft to many outputs), wiki
(one page per file or section), the images a build fetches, the local files it may read
(confine), and the sanitising of a draft's raw HTML.
"""
