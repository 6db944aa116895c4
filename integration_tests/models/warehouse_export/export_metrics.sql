-- The champion (pctr) on the warehouse export, by day and country: AUC, GAUC over users, log
-- loss, read from the Hive-partitioned Parquet folder in place (source ctr_export_hive:
-- read_parquet(..., hive_partitioning=true)). Equals sqlmetrics.evaluate on the folder.
{{ sqlmetrics.evaluate(
    source('ctr_export', 'ctr_export_hive'),
    metrics=['auc', 'gauc', 'log_loss'],
    label='click',
    score='pctr',
    group='user_id',
    by=['day', 'country'],
) }}
