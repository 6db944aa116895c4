-- The new ranker's click recall and CTR over whole lists (k=none), propensities given as a
-- mapping position -> propensity
{{ sqlmetrics.click_metrics(ref('click_log'), group='query_id', position='position',
                            click='click', score='new_score',
                            propensity={1: 1.0, 2: 0.6, 3: 0.45, 4: 0.35, 5: 0.3}, k=none,
                            metrics=['recall', 'ctr']) }}
