# `make check` is exactly what CI runs (.ci/run): a fresh venv, the README's install, then
# format, lint, types and the tests. The other targets run one step in the current venv.
.PHONY: check test test-fast lint format readme docs

check:
	bash .ci/run

test:
	pytest --all

test-fast:
	pytest

# the documentation site (mkdocs.yml, docs/_hooks.py) into site/, every warning an error;
# open site/index.html from the file system (search works offline)
docs:
	mkdocs build --strict --site-dir site

lint:
	ruff format --check sqlmetrics tools tests examples benchmarks docs/_hooks.py
	ruff check sqlmetrics tools tests examples benchmarks docs/_hooks.py
	mypy

format:
	ruff format sqlmetrics tools tests examples benchmarks docs/_hooks.py
	ruff check --fix sqlmetrics tools tests examples benchmarks docs/_hooks.py

readme:
	python -m tools.docs
