"""Beyond-accuracy metrics of recommendations (placeholder until written)."""

__all__: list[str] = []
