"""``evaluate``: many metrics, per slice, in one statement (``evaluate``; the wide score
columns in ``wide``), on top of the metric functions (``evaluate(ci=)`` asks each for its
intervals).
"""
