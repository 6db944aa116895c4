-- position_propensities' table used by click_metrics: in dbt a join the model writes (in
-- Python click_metrics takes the DataFrame itself), giving each row its position's propensity
select logged.*, p.propensity
from {{ ref('click_log') }} as logged
left join {{ ref('position_propensities_all') }} as p on logged.position = p.position
