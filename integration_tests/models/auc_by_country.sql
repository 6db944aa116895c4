{{ sqlmetrics.auc(ref('predictions'), label='click', score='pctr', by=['country']) }}
