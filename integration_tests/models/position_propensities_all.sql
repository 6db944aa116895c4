-- The propensities of the whole click log's randomised impressions (one slice), joined to
-- the log by position in click_log_propensities
{{ sqlmetrics.position_propensities(ref('click_log'), position='position', click='click',
                                    intervention='randomised') }}
