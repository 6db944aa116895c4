"""(placeholder: filled by the ranking work)."""

__all__: list[str] = []
