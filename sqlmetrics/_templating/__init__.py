"""The SQL text: the Jinja templates of ``sql/`` loaded as one sandboxed namespace
(``templates``), and the one quoting of identifiers, strings (``quoting``) and numbers
(``literals``) per dialect.
"""
