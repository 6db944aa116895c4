"""One statement from a call: options checked, data opened and validated, the template
rendered and run (``run``, ``validate``); the plan of many metrics in one statement
(``plan``); ``render`` and ``render_evaluate`` (``render``); users' own templates (``user``).
"""
