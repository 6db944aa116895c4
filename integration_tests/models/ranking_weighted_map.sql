-- MAP@10 as a mean over the queries weighted by gw, per tier (a NULL tier is a slice of its own).
{{ sqlmetrics.map(
    ref('search_weighted'),
    group='query_id',
    item='doc_id',
    label='rel',
    score='score',
    k=10,
    group_weight='gw',
    by='tier'
) }}
