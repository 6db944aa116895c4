-- A daily metrics table for the anomaly test (sqlmetrics.metric_anomaly): per segment and
-- day of the seeded click series (seeds/anomaly_rows.csv: 20 days, segments a and b, b's
-- last day with a score that no longer ranks the clicks), the AUC with its 95% DeLong
-- interval and the day's rows: the columns day, segment, auc, auc_lo, auc_hi, n_rows, as
-- sqlmetrics.evaluate(rows, ['auc'], by=['day', 'segment'], ci=0.95) returns them
select auc.*, counted.n_rows
from (
{{ sqlmetrics.auc(ref('anomaly_rows'), label='click', score='pctr', by=['day', 'segment'], ci=0.95) }}
) as auc
join (
    select day, segment, count(*) as n_rows from {{ ref('anomaly_rows') }} group by day, segment
) as counted on auc.day = counted.day and auc.segment = counted.segment
