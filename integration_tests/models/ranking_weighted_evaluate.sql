-- evaluate with group_weight=: MAP@10 and MRR in one statement, each a mean over the queries
-- weighted by gw, per tier (a NULL tier is a slice of its own).
{{ sqlmetrics.evaluate(
    ref('search_weighted'),
    metrics=['map@10', 'mrr'],
    group='query_id',
    item='doc_id',
    label='rel',
    score='score',
    group_weight='gw',
    by='tier'
) }}
