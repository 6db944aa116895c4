-- weighted log loss per country with a 90% bootstrap interval (100 replicates, seed 1), in SQL
{{ sqlmetrics.log_loss(ref('predictions'), label='click', score='pctr', weight='weight', by=['country'], ci=0.9, ci_method='bootstrap', n_boot=100, seed=1) }}
