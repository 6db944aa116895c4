# `make check` is exactly what CI runs (.ci/run): a fresh venv, the README's install, the tests.
.PHONY: check test lint readme

check:
	bash .ci/run

test:
	pytest

lint:
	ruff check sqlmetrics tests examples benchmarks
	mypy

readme:
	python -m sqlmetrics._docs README.md
