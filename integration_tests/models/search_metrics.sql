-- Ranking quality of the search run per half of the queries.
{{ sqlmetrics.evaluate(
    ref('search_runs'),
    metrics=['ndcg@10', 'map', 'mrr', 'precision@5'],
    group='query_id',
    item='doc_id',
    label='rel',
    score='score',
    by='half'
) }}
