-- The new ranker's (new_score) click metrics at 3 per country, each click weighted by the
-- inverse of its logged position's estimated propensity (a column: click_log_propensities)
{{ sqlmetrics.click_metrics(ref('click_log_propensities'), group='query_id',
                            position='position', click='click', score='new_score',
                            propensity='propensity', k=3, by=['country']) }}
