with source as (
select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        cast("score" as double) as p,
        cast(1 as double) as w
    from "events"
),
candidate as (
    select
        source.*,
        least(greatest(cast(floor(p * 5) as integer), 0), 4) as c
    from source
),
binned as (
    select
        slice_0,
        label,
        p,
        w,
        bin,
        case when bin = 0 then cast(0 as double) else cast(bin as double) * (cast(1 as double) / cast(5 as double)) end as bin_lower,
        case when bin = 4 then cast(1 as double) else cast(bin + 1 as double) * (cast(1 as double) / cast(5 as double)) end as bin_upper
    from (
        select
            candidate.*,
            c
                - case when c >= 1 and cast(c as double) * (cast(1 as double) / cast(5 as double)) >= p then 1 else 0 end
                + case when c + 1 <= 4 and cast(c + 1 as double) * (cast(1 as double) / cast(5 as double)) < p then 1 else 0 end
                as bin
        from candidate
    ) as assigned
),
per_bin as (
    select
        slice_0,
        bin,
        min(bin_lower) as bin_lower,
        min(bin_upper) as bin_upper,
        count(*) as n_rows,
        cast(count(*) as double) as w_sum,
        coalesce(cast(sum(cast(round((p) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(p)) as wp_sum,
        cast(sum(label) as double) as wy_sum
    from binned
    group by slice_0, bin
),
final as (
    select
        slice_0,
        bin,
        bin_lower,
        bin_upper,
        n_rows as n,
        w_sum as weight,
        wp_sum / nullif(w_sum, 0) as mean_predicted,
        wy_sum / nullif(w_sum, 0) as fraction_positive
    from per_bin
)
select * from final
order by slice_0 nulls last, bin
