-- The search run with a slice column: the first and the second half of the queries, and a
-- challenger's scores (the run's, shifted by the document id: a different ranking).
select
    query_id,
    doc_id,
    score,
    score + cast(mod(cast(substr(doc_id, 2) as integer), 7) as {{ sqlmetrics.float_type() }}) / 10.0 as score_challenger,
    rel,
    case when query_id <= 'q020' then 'first' else 'second' end as half
from {{ ref('search') }}
