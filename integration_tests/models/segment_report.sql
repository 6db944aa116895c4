-- Per-class precision, recall and F1 of the 3-class segment prediction.
{{ sqlmetrics.classification_report(ref('predictions'), label='segment', prediction='segment_predicted') }}
