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
        least(greatest(cast(floor(p * 10) as integer), 0), 9) as c
    from source
),
binned as (
    select
        slice_0,
        label,
        p,
        w,
        bin,
        case when bin = 0 then cast(0 as double) else cast(bin as double) * (cast(1 as double) / cast(10 as double)) end as bin_lower,
        case when bin = 9 then cast(1 as double) else cast(bin + 1 as double) * (cast(1 as double) / cast(10 as double)) end as bin_upper
    from (
        select
            candidate.*,
            c
                - case when c >= 1 and cast(c as double) * (cast(1 as double) / cast(10 as double)) >= p then 1 else 0 end
                + case when c + 1 <= 9 and cast(c + 1 as double) * (cast(1 as double) / cast(10 as double)) < p then 1 else 0 end
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
gaps as (
    select
        per_bin.*,
        abs(wy_sum - wp_sum) as gap
    from per_bin
    where w_sum > 0
),
scaled_gaps as (
    select
        gaps.*,
        nullif(least(ceil(ln(nullif(max(abs(gap)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as gap_exp
    from gaps
),
per_slice as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((gap) * power(cast(2.0e0 as double), 80 - greatest(gap_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(gap_exp, -940)) - 80), sum(gap)) as gap_sum
    from scaled_gaps
    group by slice_0
),
totals as (
    select
        slice_0,
        sum(n_rows) as n,
        sum(w_sum) as w_total
    from per_bin
    group by slice_0
),
final as (
    select
totals.slice_0 as slice_0,
        per_slice.gap_sum / nullif(totals.w_total, 0) as expected_calibration_error,
        totals.n as n
    from totals
    left join per_slice on (totals.slice_0 is not distinct from per_slice.slice_0)
)
select * from final
order by slice_0 nulls last
