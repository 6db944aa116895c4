"""(placeholder: filled by the trec work)."""

__all__: list[str] = []
