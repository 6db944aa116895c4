-- The search run with weights (issue 43): an item weight w (0.5, 1 or 1.5 by the document id),
-- a group weight gw constant within each query (0 to 3 by the query id: some queries weigh
-- 0), a slice column tier with a NULL slice (queries q013 to q030), and gw_varying, gw but
-- for q031 (tier 'b'), whose rows carry their scores: a weight that varies within a query
-- (Python refuses it; in dbt its slice's values are NULL).
select
    query_id,
    doc_id,
    score,
    rel,
    cast(1 + mod(cast(substr(doc_id, 2) as integer), 3) as {{ sqlmetrics.float_type() }}) / 2 as w,
    cast(mod(cast(substr(query_id, 2) as integer), 4) as {{ sqlmetrics.float_type() }}) as gw,
    case
        when query_id <= 'q012' then 'a'
        when query_id <= 'q030' then null
        else 'b'
    end as tier,
    case
        when query_id = 'q031' then score
        else cast(mod(cast(substr(query_id, 2) as integer), 4) as {{ sqlmetrics.float_type() }})
    end as gw_varying
from {{ ref('search') }}
