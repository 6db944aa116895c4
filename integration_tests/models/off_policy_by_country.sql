-- IPS, SNIPS and DR per country with weights clipped at 3 and the bootstrap interval,
-- computed in the warehouse: as sqlmetrics.off_policy_value(..., by=['country'], ci=0.9,
-- ci_method='bootstrap') gives them in Python
{{ sqlmetrics.off_policy(ref('off_policy_logged'), reward='click', pscore='pscore', target='target',
                         estimator=['ips', 'snips', 'dr'], reward_hat='pctr',
                         reward_hat_target='pctr_target', clip=3, by=['country'], ci=0.9,
                         ci_method='bootstrap', n_boot=50, seed=3) }}
