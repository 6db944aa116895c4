-- The challenger (pctr_challenger) on the same export, by day and country, read through the
-- source's plain path (ctr_export: ../examples/data/{name}/**/*.parquet).
{{ sqlmetrics.evaluate(
    source('ctr_export', 'ctr_export'),
    metrics=['auc', 'gauc', 'log_loss'],
    label='click',
    score='pctr_challenger',
    group='user_id',
    by=['day', 'country'],
) }}
