"""BigQuery analysed (issue 45): every BigQuery render of the dialect tests passes GoogleSQL's
analyzer.

sqlglot's parse trees (tests/test_dialects.py) do not catch types, implicit casts or name
resolution. GoogleSQL's own analyzer does: the ``zetasql`` package runs ZetaSQL compiled to
WebAssembly (wasmtime), in process, with no server and no network. Each render is analysed
against a catalog of the dialect tests' tables (``t``, ``qrels``, ``s``, their columns with
BigQuery's types: INT64, FLOAT64, STRING), with the maximum language features of the external
product mode (BigQuery's) and BigQuery's documented aliases of INT64 (INT, SMALLINT, INTEGER,
BIGINT, TINYINT, BYTEINT), which BigQuery's front end adds to ZetaSQL's types.

What it found and what was fixed (2026-11-30), each a query BigQuery would refuse although
sqlglot parsed it: 19 ``labels=`` renders used a VALUES table constructor, which BigQuery does
not have (now an unnested array of structs); 48 partitioned a window by a FLOAT64 column (now
by its 17 significant digits, ``float_key``, sql/_macros/shared/dialect.sql); AUC's DeLong
interval named a CTE ``groups``, a reserved word (now ``score_groups``). Slow tier: about a
quarter of a second per statement.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_dialects import TABLES, VARIANTS, rendered

import sqlmetrics

pytestmark = pytest.mark.slow

#: the renders in chunks, so that the workers share them
CHUNKS = 8
#: BigQuery's aliases of INT64 (its "Integer types" documentation)
INT64_ALIASES = ("int", "smallint", "integer", "bigint", "tinyint", "byteint")


@pytest.fixture(scope="module")
def analyzer() -> Callable[[str], None]:
    """``analyze(sql)``: returns when GoogleSQL's analyzer resolves the statement, raises its
    error (``[INVALID_ARGUMENT] ...``) when not. The catalog is registered once and the
    response left as protobuf (the package's Analyzer converts the whole resolved tree to
    Python objects: twice the time)."""
    from zetasql import types
    from zetasql.api import Analyzer, CatalogBuilder, TableBuilder
    from zetasql.wasi._pb2.zetasql.local_service import local_service_pb2

    language = types.LanguageOptions.maximum_features()
    language.product_mode = types.ProductMode.PRODUCT_EXTERNAL
    kinds = {
        "i": types.TypeKind.TYPE_INT64,
        "f": types.TypeKind.TYPE_DOUBLE,
        "O": types.TypeKind.TYPE_STRING,
    }
    builder = CatalogBuilder("tests").with_builtin_functions(
        types.ZetaSQLBuiltinFunctionOptions(language_options=language)
    )
    for name, frame in TABLES.items():
        table = TableBuilder(name)
        for column, dtype in frame.dtypes.items():
            table.add_column(str(column), kinds[dtype.kind])
        builder.add_table(table.build())
    catalog = builder.build()
    for alias in INT64_ALIASES:
        catalog.named_type.append(
            types.SimpleCatalog.NamedType(
                name=alias, type=types.Type(type_kind=types.TypeKind.TYPE_INT64)
            )
        )
    options = types.AnalyzerOptions(language_options=language)
    service = Analyzer(options, catalog).service
    registered = service.register_catalog(simple_catalog=catalog).registered_id

    def analyze(sql: str) -> None:
        request = types.AnalyzeRequest(
            sql_statement=sql, options=options, registered_catalog_id=registered
        ).to_proto()
        service.wasm_client.call_grpc_func(
            "ZetaSqlLocalService_Analyze", request, local_service_pb2.AnalyzeResponse
        )

    return analyze


def _errors(analyze: Callable[[str], None], renders: list[tuple[str, str]]) -> dict[str, str]:
    errors = {}
    for name, sql in renders:
        try:
            analyze(sql)
        except Exception as exc:  # the analyzer's error: INVALID_ARGUMENT and its message
            errors[name] = str(exc)[:300]
    return errors


def test_the_analyzer_refuses_what_bigquery_refuses(analyzer: Callable[[str], None]) -> None:
    """The check can fail: a missing column, a string added to a number, a VALUES constructor
    a CTE named ``groups`` (a reserved word) and a FLOAT64 partition are refused; BIGINT is
    an alias of INT64."""
    bad = {
        "column": "select nosuch from t",
        "reserved word": "with groups as (select 1 as a) select a from groups",
        "types": "select score + 'x' from t",
        "values": "select * from t cross join (select a from (values (1)) as v (a)) as l",
        "float partition": "select count(*) over (partition by score) from t",
    }
    assert set(_errors(analyzer, list(bad.items()))) == set(bad)
    assert _errors(analyzer, [("alias", "select cast(score as bigint) from t")]) == {}


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_bigquery_render_passes_the_analyzer(
    analyzer: Callable[[str], None], chunk: int
) -> None:
    renders = [
        (vid, rendered(metric, kwargs, "bigquery"))
        for vid, metric, kwargs in VARIANTS[chunk::CHUNKS]
    ]
    assert len(renders) > 50
    assert _errors(analyzer, renders) == {}


def test_delong_interval_renders_pass_the_analyzer(analyzer: Callable[[str], None]) -> None:
    renders = [
        (str(by), sqlmetrics.render("auc", "t", ci=0.95, by=by, dialect="bigquery"))
        for by in (None, "country", ["country", "day"])
    ]
    assert _errors(analyzer, renders) == {}
