"""(placeholder: filled by the multiclass work)."""

__all__: list[str] = []
