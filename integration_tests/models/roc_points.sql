-- ROC curve points per country (for a chart in the BI tool).
{{ sqlmetrics.roc_curve(ref('predictions'), label='click', score='pctr', by='country', max_points=50) }}
