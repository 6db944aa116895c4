-- The examination propensity of each position per country from the randomised impressions
-- of the click log (their top 5 shuffled; randomised is a boolean column), with 90%
-- intervals: as sqlmetrics.position_propensities(..., by=['country'], ci_level=0.9) gives
-- them in Python
{{ sqlmetrics.position_propensities(ref('click_log'), position='position', click='click',
                                    intervention='randomised', max_position=5,
                                    by=['country'], ci_level=0.9) }}
