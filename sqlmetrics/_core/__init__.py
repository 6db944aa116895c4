"""What every layer shares, and nothing above it: the one declared registry of metrics
(``registry``: specs, options, facts), the names users write (``names``: ``@k`` forms, "did you
mean") and the conventions that reproduce other tools (``conventions``); the SQL dialects and their
facts (``dialects``).
"""
