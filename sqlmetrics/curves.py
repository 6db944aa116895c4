"""(placeholder: filled by the curves work)."""

__all__: list[str] = []
