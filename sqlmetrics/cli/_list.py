"""``sqlmetrics list [METRIC]...``: every metric with its ir_measures and trec_eval names,
or one metric's card (definition from its template's header, columns, options, conventions).
"""

from __future__ import annotations

from typing import Any

import click

from ._io import cli_name, friendly, load_dirs, metrics_dir_option


@click.command("list")
@click.argument("names", metavar="[METRIC]...", nargs=-1)
@metrics_dir_option
@friendly
def list_command(names: tuple[str, ...], metrics_dirs: tuple[str, ...]) -> None:
    """List every metric with its ir_measures and trec_eval names (- where the tool has
    none), its definition and options; with METRIC (auc, ndcg@10, an alias, nDCG@10), that
    metric's card: its definition from its SQL template's header, columns, options with
    defaults, aliases and the conventions that cover it.
    """
    from .._core.ir_names import ir_form, trec_form
    from .._core.names import metric_form, parse_metric
    from .._core.registry import REGISTRY, default_of

    load_dirs(metrics_dirs)
    if names:
        cards = [
            metric_card(parse_metric(cli_name(n), "list", scalar_only=False).spec) for n in names
        ]
        click.echo("\n".join(cards), nl=False)
        return
    click.echo(f"{'METRIC':<22} {'IR_MEASURES':<13} {'TREC_EVAL':<17} DEFINITION")
    for spec in sorted(REGISTRY.values(), key=metric_form):
        shown = metric_form(spec)
        theirs = f"{ir_form(spec) or '-':<13} {trec_form(spec) or '-':<17}"
        click.echo(f"{shown:<22} {theirs} {spec.summary}")
        options = [p for p in spec.params if p != "k"]
        if options:
            click.echo(
                f"{'':<22} options: " + ", ".join(f"{p}={default_of(spec, p)!r}" for p in options)
            )


def metric_card(spec: Any) -> str:
    """What ``sqlmetrics list METRIC`` prints: the metric's definition (its SQL template's
    header), columns, options with their defaults, aliases and conventions.
    """
    from pathlib import Path

    from .._core.conventions import CONVENTIONS
    from .._core.ir_names import ir_form, trec_form
    from .._core.names import metric_form
    from .._core.registry import default_of
    from .._inference.intervals import methods_for
    from .._templating.templates import sql_dir, template_header

    lines = [f"{metric_form(spec)}: {spec.summary}"]
    if spec.aliases:
        lines.append(f"  aliases: {', '.join(spec.aliases)}")
    if spec.ir_measures is not None or spec.trec_eval is not None:
        lines.append(f"  ir_measures: {ir_form(spec) or '-'}; trec_eval: {trec_form(spec) or '-'}")
    lines.append(f"  function: sqlmetrics.{spec.function}")
    columns = [f"--{r.name} ({r.kind}{'' if r.required else ', optional'})" for r in spec.roles]
    lines.append(f"  columns: {', '.join(columns) or '-'}")
    options = [p for p in spec.params if p != "k"]
    shown = ", ".join(f"--option {p}={_shown(default_of(spec, p))}" for p in options)
    lines.append(f"  options (default): {shown or '-'}")
    if spec.takes_k:
        lines.append(f"  cutoff: {spec.name}@k, e.g. {spec.name}@10 (no @k: every item)")
    lines.append(f"  undefined: {spec.undefined}")
    if spec.output == "scalar":
        lines.append(f"  better: {spec.better}")
        methods = methods_for(spec)
        shown = f"{', '.join(methods)} (default {methods[0]})"
        lines.append(f"  intervals (--ci-method): {shown if spec.inference.intervals else 'none'}")
        tests = spec.inference.tests
        paired = f"{', '.join(tests)} (default {tests[0]})" if tests else "none"
        lines.append(f"  paired tests (compare --test): {paired}")
    covering = [
        (c.name, [f"{o}={_shown(c.value(spec.name, o))}" for o in c.sets if o in spec.params])
        for c in CONVENTIONS.values()
        if spec.name in c.metrics
    ]
    lines.append(f"  conventions (--convention): {'' if covering else 'none'}".rstrip())
    lines.extend(f"    {name}: {', '.join(sets) or 'its definitions'}" for name, sets in covering)
    template = Path(spec.template)
    builtin = sql_dir() / template
    path = builtin if not template.is_absolute() and builtin.is_file() else template
    header = template_header(path) if path.is_file() else None
    if header:
        where = f"sql/{template.as_posix()}" if path == builtin else str(path)
        lines.append(f"  definition ({where}):")
        lines.extend(f"    {line}".rstrip() for line in header.splitlines())
    return "\n".join(lines) + "\n"


def _shown(value: Any) -> str:
    """An option's value as the command line writes it (``linear``, ``0.5``, ``none``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
