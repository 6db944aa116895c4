-- AUC per country with its 95% DeLong interval, computed in the warehouse (ci=): the columns
-- country, auc, auc_lo, auc_hi, as sqlmetrics.auc(..., ci=0.95) per country
{{ sqlmetrics.auc(ref('predictions'), label='click', score='pctr', by=['country'], ci=0.95) }}
