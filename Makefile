# `make check` is exactly what CI runs (.ci/run): a fresh venv, the README's install, then
# format, lint, types and the tests. The other targets run one step in the current venv.
.PHONY: check test test-fast lint format readme

check:
	bash .ci/run

test:
	pytest --all

test-fast:
	pytest

lint:
	ruff format --check sqlmetrics tools tests examples benchmarks
	ruff check sqlmetrics tools tests examples benchmarks
	mypy

format:
	ruff format sqlmetrics tools tests examples benchmarks
	ruff check --fix sqlmetrics tools tests examples benchmarks

readme:
	python -m tools.docs
