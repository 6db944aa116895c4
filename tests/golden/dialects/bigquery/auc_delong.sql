select * from (
    select
bounds.slice_0 as slice_0,
        bounds.auc,
        case when bounds.auc is not null then bounds.lo end as `auc_lo`,
        case when bounds.auc is not null then bounds.hi end as `auc_hi`
    from (
        select
        slice_0,
            auc,
            case when auc - half < 0 then cast(0.0e0 as float64) when auc - half > 1 then cast(1.0e0 as float64) else auc - half end as lo,
            case when auc + half < 0 then cast(0.0e0 as float64) when auc + half > 1 then cast(1.0e0 as float64) else auc + half end as hi
        from (
            select
                normal_inner.*,
                (cast(1.9599639845400536e0 as float64)) * sqrt(case when var < 0 then cast(0.0e0 as float64) else var end) as half
            from (
                with source as (
                    select
                        `country` as slice_0,
                        case when cast(cast(`label` as int64) as bool) then 1 else 0 end as label,
                        `score` as score
                    from `events`
                ),
                classes as (
                    select
                        slice_0 as c_slice_0,
                        sum(label) as n_pos_rows,
                        count(*) as n_rows,
                        case when 2 * sum(label) <= count(*) then 1 else 0 end as own
                    from (
                        select
                            `country` as slice_0,
                            case when cast(cast(`label` as int64) as bool) then 1 else 0 end as label
                        from `events`
                    ) as class_rows
                    group by slice_0
                ),
                ranked as (
                    select
                        slice_0,
                        label,
                        score,
                        rank() over (partition by slice_0 order by score) as rank_lo,
                        count(*) over (partition by slice_0 order by score) as rank_hi
                    from source
                ),
                own_rows as (
                    select
                        slice_0,
                        score,
                        rank_lo,
                        rank_hi,
                        own,
                        n_rows,
                        case when own = 1 then n_pos_rows else n_rows - n_pos_rows end as n_own
                    from ranked
                    join classes
                        on label = own and (slice_0 is not distinct from c_slice_0)
                ),
                own_ranked as (
                    select
                        slice_0,
                        rank_lo,
                        rank_hi,
                        own,
                        n_rows,
                        n_own,
                        rank() over (partition by slice_0 order by score) - 1 as o_lt,
                        row_number() over (partition by slice_0 order by score) as o_le,
                        lead(rank_lo) over (partition by slice_0 order by score) as next_rank_lo
                    from own_rows
                ),
                score_groups as (
                    select
                        slice_0,
                        own,
                        o_lt,
                        o_le,
                        rank_lo - 1 - o_lt as t_lt,
                        rank_hi - o_le as t_le,
                        case when o_le = n_own then n_rows else next_rank_lo - 1 end - rank_hi as gap,
                        case when o_lt = 0 then rank_lo - 1 else 0 end as low,
                        n_own,
                        n_rows - n_own as n_other
                    from own_ranked
                    where o_le = n_own or next_rank_lo <> rank_lo
                ),
                -- floats: o_n, t_n = the o and t rows at s; placements of the o rows at s (own_v), of the t
                -- rows tied with them (tie_v) and of the gap's t rows (gap_v), each as V10 or V01
                placed as (
                    select
                        slice_0,
                        own,
                        (o_le - o_lt) * (t_lt + t_le) as pairs,
                        cast(o_le - o_lt as float64) as o_n,
                        cast(t_le - t_lt as float64) as t_n,
                        cast(gap as float64) as gap_n,
                        cast(low as float64) as low_n,
                        (case when own = 1 then t_lt + (t_le - t_lt) / cast(2.0e0 as float64)
                              else n_other - (t_lt + (t_le - t_lt) / cast(2.0e0 as float64)) end) / nullif(cast(n_other as float64), 0) as own_v,
                        (case when own = 1 then n_own - (o_lt + (o_le - o_lt) / cast(2.0e0 as float64))
                              else o_lt + (o_le - o_lt) / cast(2.0e0 as float64) end) / nullif(cast(n_own as float64), 0) as tie_v,
                        cast(case when own = 1 then n_own - o_le else o_le end as float64) / nullif(cast(n_own as float64), 0) as gap_v
                    from score_groups
                ),
                per_slice as (
                    select
                        slice_0,
                        sum(cast(pairs as bignumeric)) as pairs,
                        sum(case when own = 1 then o_n * own_v * own_v else t_n * tie_v * tie_v + gap_n * gap_v * gap_v end) as s10,
                        sum(case when own = 1 then t_n * tie_v * tie_v + gap_n * gap_v * gap_v + low_n else o_n * own_v * own_v end) as s01
                    from placed
                    group by slice_0
                ),
                totals as (
                    select
                classes.c_slice_0 as slice_0,
                        cast(n_pos_rows as float64) as n_pos,
                        cast(n_rows - n_pos_rows as float64) as n_neg,
                        -- twice the Mann-Whitney U: an exact integer
                        cast(case when own = 1 then pairs else 2 * cast(n_pos_rows as bignumeric) * (n_rows - n_pos_rows) - pairs end as float64) as u2,
                        s10,
                        s01
                    from classes
                    left join per_slice
                        on (classes.c_slice_0 is not distinct from per_slice.slice_0)
                ),
                final as (
                    select
                        slice_0,
                        u2 / 2 / nullif(n_pos * n_neg, 0) as auc,
                        (s10 - n_pos * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_pos - 1, 0) / nullif(n_pos, 0)
                            + (s01 - n_neg * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_neg - 1, 0) / nullif(n_neg, 0)
                            as var,
                        n_pos,
                        n_neg
                    from totals
                )
                select * from final
                order by slice_0 nulls last
            ) as normal_inner
        ) as normal_half
    ) as bounds
) as rendered
order by slice_0 nulls last
