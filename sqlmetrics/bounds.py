"""(placeholder: filled by the bounds work)."""

__all__: list[str] = []
