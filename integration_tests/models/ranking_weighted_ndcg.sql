-- NDCG@5 with per-item weights (rax's weighted gains) and per-query weights (a weighted mean
-- over the queries), per tier (a NULL tier is a slice of its own).
{{ sqlmetrics.ndcg(
    ref('search_weighted'),
    group='query_id',
    item='doc_id',
    label='rel',
    score='score',
    k=5,
    weight='w',
    group_weight='gw',
    by='tier'
) }}
