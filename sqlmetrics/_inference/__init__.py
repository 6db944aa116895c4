"""How sure is the number: intervals on every scalar metric (``intervals``), paired
comparison of models (``compare``) and the normal and t distributions (``stats``), all on top
of the engine.
"""
