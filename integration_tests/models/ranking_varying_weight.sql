-- MRR weighted by a column that varies within query q031 (tier 'b'): dbt does not check it, the
-- SQL gives tier 'b' no value (NULL) rather than a mean with one of q031's weights; the other
-- tiers keep their values.
{{ sqlmetrics.mrr(
    ref('search_weighted'),
    group='query_id',
    item='doc_id',
    label='rel',
    score='score',
    group_weight='gw_varying',
    by='tier'
) }}
