-- One row per country: the click model's quality, computed by sqlmetrics' templates.
{{ sqlmetrics.evaluate(
    ref('predictions'),
    metrics=['auc', 'gauc', 'log_loss', 'precision', 'recall'],
    label='click',
    score='pctr',
    group='user_id',
    by='country',
    threshold=0.3
) }}
