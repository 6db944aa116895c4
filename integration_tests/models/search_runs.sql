-- The search run with a slice column: the first and the second half of the queries.
select
    query_id,
    doc_id,
    score,
    rel,
    case when query_id <= 'q020' then 'first' else 'second' end as half
from {{ ref('search') }}
