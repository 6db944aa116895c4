{#
  Resampling weights computed in SQL, the same on every engine (issue 12: bootstrap intervals,
  randomization tests). Nothing is copied and nothing random is drawn: the weight of a row
  (or a group) in replicate b is a deterministic function of (its key, b, seed), so the same
  seed gives the same interval on every engine and under any row order.

  key_hash(expr): a stable integer in [0, 2^32) from any key value: the first 8 hex digits of
               md5 of the value cast to text. Integers and strings cast to the same text on
               every engine; a float key does not (`0.1` prints differently): hash a group or
               row id, never a float.
  replicates(n): the select statement of the integers 1..n as a bigint column b (the
               replicates or permutations of every bootstrap and randomization test), from
               cross-joined digit tables: portable, no generate_series / range / explode.
  row_key(order_by, partition_by): a row key with no id column: the row's position in a total
               order of the columns it is resampled on (`row_number() over (... order by
               score, label, weight)`). Rows equal in every ordered column are
               interchangeable, so which of them gets which position changes nothing.
  replicate_int(key, b, seed): an integer x in [0, p) for (integer key in [0, 2^32), integer
               replicate b >= 0, integer seed in [0, 2^31)). Integer arithmetic modulo the
               Mersenne prime p = 2^31 - 1, every product below 2^62 (bigint on every
               engine): an affine mix of key, seed and b, a squaring round, which makes the
               values of one key across replicates non-linear in b (an affine map alone
               would make replicate b' a shift of replicate b), and an affine round.
  replicate_uniform(key, b, seed): x / p, a double in [0, 1). The Python replays are
               sqlmetrics/_resample.py::replicate_int, replicate_uniform (tests compare them).
  poisson1(u): a Poisson(1) count from u in [0, 1) by its inverse CDF (0..8; P(>8) < 1.2e-6
               is folded into 8).
  (poisson1 names u eight times: select replicate_uniform(...) as a column first, then
  poisson1(that column) one level up, or the engine may hash eight times; end the level that
  computes u with resample_fence(), or PostgreSQL inlines it and does.)
  sign_flip(key, b, seed): +1 or -1 with probability 1/2 each (paired randomization tests).
  poisson_counts(draws, keys): a Poisson(lam) count for each row of the relation `draws`
               (columns `keys`, lam: a bigint mean >= 0, x: replicate_int(...) of the row):
               the query `keys..., n` (n a bigint in both branches of its union: ClickHouse's
               count() is unsigned, and UInt64 and Int64 have no common type there), rows
               with n = 0 may be absent. One uniform per row,
               whatever lam: AUC's bootstrap draws a score bucket's replicate count of
               positives (negatives), a sum of lam iid Poisson(1) row weights, so exactly
               Poisson(lam), from one hash instead of lam.
                 lam <= 20: exact inversion of u = x / p: n = #{k : t_k <= x} over the integer
                   thresholds t_k = ceil(p CDF_lam(k)) of poisson_cdf_table (integers: the
                   same comparison on every engine; x < t_k exactly when u < CDF(k)).
                 lam > 20: Cornish-Fisher to order lam^(-1/2) with a continuity correction at
                   u = (x + 1/2) / p, z = AS241(u) (Wichura 1988, poisson_normal_quantile):
                   n = floor(lam + z sqrt(lam) + (z^2 - 1) / 6 + (z - z^3) / (72 sqrt(lam)) + 1/2),
                   at least 0. Measured against scipy.stats.poisson.ppf (tests/test_resample.py):
                   never more than 1 off, and off for a share of u that falls with lam
                   (~0.9 % at lam = 21, ~0.1 % at lam = 1000, ~0.004 % at lam = 10^6).
               Floats only in the lam > 20 branch (sqrt, ln): an engine's ln one ulp off moves a
               count only when the Cornish-Fisher value lies within ~1e-13 of a half-integer.
#}
{% macro key_hash(expr) -%}
{{ adapter.dispatch('key_hash', 'sqlmetrics')(expr) }}
{%- endmacro %}

{% macro default__key_hash(expr) -%}
cast(('x' || substr(md5(cast({{ expr }} as {{ sqlmetrics.string_type() }})), 1, 8))::bit(32) as bigint)
{%- endmacro %}

{% macro duckdb__key_hash(expr) -%}
cast(('0x' || substr(md5(cast({{ expr }} as {{ sqlmetrics.string_type() }})), 1, 8)) as bigint)
{%- endmacro %}

{% macro spark__key_hash(expr) -%}
cast(conv(substr(md5(cast({{ expr }} as {{ sqlmetrics.string_type() }})), 1, 8), 16, 10) as bigint)
{%- endmacro %}

{% macro bigquery__key_hash(expr) -%}
cast(concat('0x', substr(to_hex(md5(cast({{ expr }} as {{ sqlmetrics.string_type() }}))), 1, 8)) as int64)
{%- endmacro %}

{% macro snowflake__key_hash(expr) -%}
to_number(substr(md5(cast({{ expr }} as {{ sqlmetrics.string_type() }})), 1, 8), 'XXXXXXXX')
{%- endmacro %}

{# the first 4 bytes of the MD5, big-endian #}
{% macro clickhouse__key_hash(expr) -%}
cast(reinterpretAsUInt32(reverse(substring(MD5(cast({{ expr }} as {{ sqlmetrics.string_type() }})), 1, 4))) as Int64)
{%- endmacro %}

{% macro trino__key_hash(expr) -%}
from_base(substr(to_hex(md5(to_utf8(cast({{ expr }} as {{ sqlmetrics.string_type() }})))), 1, 8), 16)
{%- endmacro %}

{% macro replicates(n) -%}
{{ sqlmetrics.integers(n) }}
{%- endmacro %}

{% macro row_key(order_by, partition_by=[]) -%}
row_number() over (
{%- if partition_by %} partition by {{ partition_by | join(', ') }}{% endif %} order by {{ order_by | join(', ') }})
{%- endmacro %}

{% macro resample_mod_p(expr) -%}
mod({{ expr }}, cast(2147483647 as bigint))
{%- endmacro %}

{% macro replicate_int(key, b, seed) -%}
{%- set a = sqlmetrics.resample_mod_p(sqlmetrics.resample_mod_p('cast(' ~ key ~ ' as bigint)') ~ ' + ' ~ sqlmetrics.resample_mod_p('cast(' ~ seed ~ ' as bigint)') ~ ' * 16807') -%}
{%- set x1 = sqlmetrics.resample_mod_p(a ~ ' * 48271 + cast(' ~ b ~ ' as bigint) * 69621 + 12345') -%}
{%- set x2 = sqlmetrics.resample_mod_p(x1 ~ ' * ' ~ x1 ~ ' + cast(' ~ b ~ ' as bigint) + 1') -%}
{{ sqlmetrics.resample_mod_p(x2 ~ ' * 48271 + ' ~ a) }}
{%- endmacro %}

{# replicate_int in steps, the same integers, for a caller that selects each step as a column
   one level up (ci_row_mean_query: rows x replicates): replicate_key(key, seed) = a, once per
   row; replicate_x1(a, b) = x1; replicate_x(x1, a, b) = replicate_int(key, b, seed) #}
{% macro replicate_key(key, seed) -%}
{{ sqlmetrics.resample_mod_p(sqlmetrics.resample_mod_p('cast(' ~ key ~ ' as bigint)') ~ ' + ' ~ sqlmetrics.resample_mod_p('cast(' ~ seed ~ ' as bigint)') ~ ' * 16807') }}
{%- endmacro %}

{% macro replicate_x1(a, b) -%}
{{ sqlmetrics.resample_mod_p(a ~ ' * 48271 + cast(' ~ b ~ ' as bigint) * 69621 + 12345') }}
{%- endmacro %}

{% macro replicate_x(x1, a, b) -%}
{{ sqlmetrics.resample_mod_p(sqlmetrics.resample_mod_p(x1 ~ ' * ' ~ x1 ~ ' + cast(' ~ b ~ ' as bigint) + 1') ~ ' * 48271 + ' ~ a) }}
{%- endmacro %}

{% macro replicate_uniform(key, b, seed) -%}
cast({{ sqlmetrics.replicate_int(key, b, seed) }} as {{ sqlmetrics.float_type() }}) / {{ sqlmetrics.float_literal(2147483647) }}
{%- endmacro %}

{% macro poisson1(u) -%}
case
{%- for cdf in [0.36787944117144233, 0.7357588823428847, 0.9196986029286058, 0.9810118431238462, 0.9963401531726563, 0.9994058151824183, 0.9999167588507119, 0.9999898508033944] %}
 when {{ u }} < {{ sqlmetrics.float_literal(cdf) }} then {{ loop.index0 }}
{%- endfor %}
 else 8 end
{%- endmacro %}

{% macro sign_flip(key, b, seed) -%}
case when {{ sqlmetrics.replicate_uniform(key, b, seed) }} < {{ sqlmetrics.float_literal(0.5) }} then 1 else -1 end
{%- endmacro %}

{# the thresholds t_k = ceil(p CDF_lam(k)), lam = 1..20, k = 0.. while t_k < p: generated by
   sqlmetrics/_resample.py::poisson_table_jinja (60-digit decimals; a test checks the copy) #}
{% macro poisson_cdf_table() -%}
{%- set thresholds = {
    1: [790015084, 1580030168, 1975037710, 2106706891, 2139624186, 2146207645, 2147304888, 2147461638, 2147481231, 2147483408, 2147483626, 2147483646],
    2: [290630308, 871890923, 1453151539, 1840658615, 2034412154, 2111913569, 2137747374, 2145128461, 2146973733, 2147383794, 2147465806, 2147480717, 2147483202, 2147483585, 2147483639, 2147483646],
    3: [106916916, 427667661, 908793779, 1389919897, 1750764486, 1967271239, 2075524616, 2121918920, 2139316784, 2145116072, 2146855859, 2147330346, 2147448968, 2147476342, 2147482208, 2147483381, 2147483601, 2147483640, 2147483646],
    4: [39332535, 196662675, 511322955, 930869995, 1350417035, 1686054667, 1909813089, 2037675044, 2101606021, 2130019789, 2141385296, 2145518208, 2146895845, 2147319733, 2147440844, 2147473141, 2147481215, 2147483115, 2147483537, 2147483626, 2147483643],
    5: [14469631, 86817786, 267688174, 569138820, 945952127, 1322765434, 1636776523, 1861070158, 2001253680, 2079133415, 2118073282, 2135773222, 2143148197, 2145984725, 2146997771, 2147335453, 2147440979, 2147472016, 2147480637, 2147482906, 2147483473, 2147483608, 2147483639, 2147483646],
    6: [5323080, 37261559, 133076995, 324707866, 612154173, 957089742, 1302025311, 1597684370, 1819428664, 1967258193, 2055955911, 2104336484, 2128526771, 2139691519, 2144476411, 2146390367, 2147108101, 2147361419, 2147445858, 2147472523, 2147480523, 2147482808, 2147483432, 2147483594, 2147483635, 2147483645],
    7: [1958252, 15666013, 63643178, 175589895, 371496649, 645766106, 965747139, 1285728172, 1565711575, 1783476445, 1935911853, 2032916204, 2089502076, 2119971391, 2135206049, 2142315556, 2145425965, 2146706722, 2147204794, 2147388294, 2147452519, 2147473927, 2147480739, 2147482812, 2147483417, 2147483586, 2147483632, 2147483644],
    8: [720401, 6483605, 29536421, 91010598, 213958951, 410676317, 672966137, 972725932, 1272485726, 1538938877, 1752101398, 1907128686, 2010480211, 2074081149, 2110424543, 2129807686, 2139499258, 2144059997, 2146086993, 2146940464, 2147281853, 2147411906, 2147459198, 2147475647, 2147481130, 2147482885, 2147483425, 2147483585, 2147483630, 2147483643, 2147483646],
    9: [265021, 2650206, 13383538, 45583533, 118033522, 248443502, 444058473, 695563435, 978506517, 1261449599, 1516098373, 1724447370, 1880709118, 1988890328, 2058435392, 2100162430, 2123633889, 2136059955, 2142272988, 2145216004, 2146540361, 2147107943, 2147340135, 2147430993, 2147465065, 2147477331, 2147481577, 2147482992, 2147483447, 2147483588, 2147483630, 2147483643, 2147483646],
    10: [97496, 1072452, 5947233, 22196500, 62819670, 144066009, 279476574, 472920238, 714724818, 983396574, 1252068330, 1496315380, 1699854589, 1856423211, 1968257942, 2042814428, 2089412233, 2116822706, 2132050746, 2140065505, 2144072884, 2145981159, 2146848558, 2147225687, 2147382824, 2147445679, 2147469854, 2147478808, 2147482006, 2147483108, 2147483476, 2147483595, 2147483632, 2147483643, 2147483646],
    11: [35867, 430400, 2600331, 10556745, 32436883, 80573188, 168823079, 307501480, 498184280, 731241037, 987603469, 1243965901, 1478964797, 1677810017, 1834045547, 1948618269, 2027387015, 2078355027, 2109502146, 2127534688, 2137452587, 2142647676, 2145245221, 2146487525, 2147056914, 2147307446, 2147413440, 2147456623, 2147473587, 2147480022, 2147482382, 2147483219, 2147483507, 2147483602, 2147483634, 2147483643, 2147483646],
    12: [13195, 171530, 1121541, 4921585, 16321715, 43682029, 98402655, 192209444, 332919627, 520533204, 745669496, 991272725, 1236875953, 1463586625, 1657910059, 1813368805, 1929962865, 2012264555, 2067132348, 2101785691, 2122577696, 2134458843, 2140939468, 2144320664, 2146011261, 2146822748, 2147197281, 2147363740, 2147435079, 2147464599, 2147476407, 2147480978, 2147482692, 2147483315, 2147483535, 2147483611, 2147483636, 2147483644, 2147483646],
    13: [4855, 67957, 478122, 2255502, 8031989, 23050854, 55591728, 116024780, 214228491, 356078294, 540483039, 758415918, 994509872, 1230603825, 1449833924, 1639833344, 1794207872, 1912258982, 1997518117, 2055853315, 2093771193, 2117244166, 2131114558, 2138954346, 2143200897, 2145409104, 2146513207, 2147044812, 2147291629, 2147402271, 2147450216, 2147470322, 2147478490, 2147481708, 2147482938, 2147483395, 2147483560, 2147483618, 2147483638, 2147483644],
    14: [1786, 26786, 201784, 1018441, 3876743, 11879987, 30554222, 67902694, 133262519, 234933358, 377272532, 558431482, 769783589, 997393551, 1225003513, 1437439477, 1623320946, 1776399803, 1895461136, 1983190539, 2044601122, 2085541510, 2111594484, 2127452816, 2136703510, 2141883899, 2144673339, 2146119715, 2146842903, 2147192028, 2147354954, 2147428533, 2147460724, 2147474380, 2147480004, 2147482253, 2147483128, 2147483459, 2147483581, 2147483624, 2147483640, 2147483645],
    15: [657, 10511, 84415, 453932, 1839623, 5996697, 16389380, 38659416, 80415733, 150009595, 254400387, 396751468, 574690318, 780004377, 999983726, 1219963074, 1426193713, 1608161924, 1759802100, 1879518029, 1969304975, 2033438508, 2077165917, 2105683792, 2123507464, 2134201668, 2140371400, 2143799030, 2145635260, 2146585034, 2147059921, 2147289705, 2147397416, 2147446376, 2147467976, 2147477233, 2147481090, 2147482653, 2147483271, 2147483508, 2147483597, 2147483630, 2147483641, 2147483645],
    16: [242, 4109, 35042, 200021, 859934, 2971656, 8602916, 21474367, 47217268, 92982426, 166206679, 272714683, 414725355, 589507720, 789258995, 1002327022, 1215395049, 1415929662, 1594182652, 1744290432, 1864376657, 1955870923, 2022412208, 2068701797, 2099561523, 2119311748, 2131465733, 2138668094, 2142783729, 2145054424, 2146265461, 2146890513, 2147203039, 2147354566, 2147425874, 2147458471, 2147472959, 2147479224, 2147481862, 2147482944, 2147483377, 2147483546, 2147483610, 2147483634, 2147483643, 2147483646],
    17: [89, 1601, 14447, 87245, 396637, 1448567, 4429037, 11667320, 27048673, 56102338, 105493570, 181825473, 289962335, 431372079, 603083910, 797690653, 1004460316, 1211229980, 1406512440, 1581238852, 1729756302, 1849984713, 1942888486, 2011556492, 2060196330, 2093271419, 2114897439, 2128513822, 2136780912, 2141627137, 2144373331, 2145879309, 2146679359, 2147091506, 2147297580, 2147397673, 2147444939, 2147466656, 2147476371, 2147480606, 2147482406, 2147483152, 2147483454, 2147483574, 2147483620, 2147483637, 2147483644, 2147483646],
    18: [33, 622, 5920, 37711, 180767, 695771, 2240783, 6213669, 15152665, 33030655, 65211038, 117869847, 196858060, 306226355, 446842734, 615582389, 805414501, 1006413207, 1207411914, 1397831741, 1569209585, 1716104881, 1836291941, 1930351379, 2000895957, 2051688054, 2086851813, 2110294319, 2125364502, 2134718408, 2140330752, 2143589532, 2145422596, 2146422449, 2146951783, 2147224012, 2147360126, 2147426344, 2147457711, 2147472187, 2147478702, 2147481562, 2147482788, 2147483301, 2147483511, 2147483595, 2147483628, 2147483640, 2147483645],
    19: [13, 241, 2413, 16167, 81501, 329770, 1115953, 3249879, 8317954, 19017222, 39345832, 74458886, 130054554, 211309762, 321584687, 461266258, 627138125, 812524328, 1008209765, 1203895202, 1389796367, 1557992659, 1703253093, 1823250843, 1918249061, 1990447708, 2043208257, 2080336051, 2105529911, 2122036233, 2132490237, 2138897530, 2142701860, 2144892232, 2146116263, 2146780737, 2147131432, 2147311518, 2147401562, 2147445429, 2147466266, 2147475922, 2147480290, 2147482220, 2147483054, 2147483406, 2147483551, 2147483610, 2147483633, 2147483642, 2147483645],
    20: [5, 93, 979, 6880, 36389, 154424, 547872, 1672010, 4482355, 10727567, 23217990, 45927850, 83777617, 142008028, 225194329, 336109398, 474753233, 637863628, 819097400, 1009869791, 1200642182, 1382330174, 1547501076, 1691127947, 1810817006, 1906568253, 1980223059, 2034782174, 2073752971, 2100629382, 2118546990, 2130106737, 2137331578, 2141710270, 2144285972, 2145757801, 2146575484, 2147017475, 2147250101, 2147369397, 2147429045, 2147458141, 2147471997, 2147478441, 2147481371, 2147482673, 2147483239, 2147483479, 2147483580, 2147483621, 2147483637, 2147483644, 2147483646],
} -%}
{{ adapter.dispatch('poisson_cdf_table', 'sqlmetrics')(thresholds) }}
{%- endmacro %}

{% macro default__poisson_cdf_table(thresholds) -%}
(values
{% for lam, ts in thresholds.items() %}
    {% for t in ts %}({{ lam }}, {{ loop.index0 }}, {{ t }}){{ ', ' if not (loop.last and lam == 20) }}{% endfor %}

{% endfor %}
) as poisson_cdf(lam, k, t)
{%- endmacro %}

{# AS241 (Wichura 1988, PPND16) of a column u in [0.5 / p, 1 - 0.5 / p] through the columns
   q = u - 0.5, rc = 0.180625 - q^2, rt = sqrt(-ln(min(u, 1 - u))) - 1.6 of the caller
   (r <= 4.72 there: the r > 5 branch of AS241 is never needed). Horner, highest first: the
   operations of sqlmetrics/_resample.py::normal_quantile in the same order. #}
{% macro poisson_horner(coefs, r) -%}
{% set acc = namespace(expr=sqlmetrics.float_literal(coefs[-1])) %}
{% for c in coefs[:-1] | reverse %}{% set acc.expr = '(' ~ acc.expr ~ ' * ' ~ r ~ ' + ' ~ sqlmetrics.float_literal(c) ~ ')' %}{% endfor %}
{{ acc.expr }}
{%- endmacro %}

{% macro poisson_normal_quantile(a, b, c, d) -%}
case
    when abs(q) <= {{ sqlmetrics.float_literal(0.425) }} then q * {{ sqlmetrics.poisson_horner(a, 'rc') }} / {{ sqlmetrics.poisson_horner(b, 'rc') }}
    when q < 0 then -({{ sqlmetrics.poisson_horner(c, 'rt') }} / {{ sqlmetrics.poisson_horner(d, 'rt') }})
    else {{ sqlmetrics.poisson_horner(c, 'rt') }} / {{ sqlmetrics.poisson_horner(d, 'rt') }}
end
{%- endmacro %}

{# PostgreSQL pulls a subquery (or a CTE read once) up into its parent and then evaluates a
   column once per use (poisson1(u): the hash 8 times; AS241's r ~16 times, z 6 times: 60 us a
   draw; a group's key_hash in a level below the replicates: md5 per draw); `offset 0` at the
   end of the subquery keeps each level computed once.
   order_by: the columns the level above groups by (a comma-separated list, the replicate
   first, in the order of that group by): PostgreSQL then reads the few replicates sorted and
   emits the level in their order (sorting within a replicate, if at all, in memory), where it
   would otherwise sort all groups x replicates rows for the group by (it under-estimates a
   kernel's rows and picks a sort over a hash: 10M rows, an external sort of ~500 MB). Nothing
   on the other engines, where the order of a subquery's rows means nothing. #}
{% macro resample_fence(order_by='') -%}
{{ adapter.dispatch('resample_fence', 'sqlmetrics')(order_by) }}
{%- endmacro %}

{% macro default__resample_fence(order_by='') -%}
{%- endmacro %}

{% macro postgres__resample_fence(order_by='') -%}
{% if order_by %}order by {{ order_by }} {% endif %}offset 0
{%- endmacro %}

{# replicate_exact_sum(expr, e, term): exact_sum(expr, e) (sql/_macros/shared/common.sql,
   decision 0006) of the terms of a replicate (groups x replicates rows: the group bootstrap,
   the randomization test), the same bits on every engine.
   term: none, or a column computed one level down as replicate_exact_term(expr, e), the
   term rounded to exact_sum's fixed point (t = round(expr 2^(80 - e))), so that the
   aggregate reads it instead of computing it once per use.
   PostgreSQL: the same integer sum_t written sum(hi) * 2^40 + sum(lo) over the two bigint
   halves exact_int_of splits each t into (hi = floor(t 2^-40), lo = t - hi 2^40): it sums a
   bigint in a 128-bit accumulator and makes one numeric per replicate, where exact_sum
   builds and adds a numeric per term (10M terms: half the bootstrap's time). |hi| <= 2^40
   per term; the sum of bigints is a numeric, no overflow. #}
{% macro replicate_exact_shifts(e) -%}
{% if (e ~ '').lstrip('-').isdigit() %}
{{- (80 - e | int) | string }}|{{ (e | int - 80) | string -}}
{% else %}
{{- '80 - greatest(' ~ e ~ ', -940)' }}|{{ 'max(greatest(' ~ e ~ ', -940)) - 80' -}}
{% endif %}
{%- endmacro %}

{% macro replicate_exact_term(expr, e) -%}
round(({{ expr }}) * power({{ sqlmetrics.float_literal(2) }}, {{ sqlmetrics.replicate_exact_shifts(e).split('|')[0] }}))
{%- endmacro %}

{% macro replicate_exact_sum(expr, e, term=none) -%}
{{ adapter.dispatch('replicate_exact_sum', 'sqlmetrics')(expr, e, term or sqlmetrics.replicate_exact_term(expr, e)) }}
{%- endmacro %}

{% macro default__replicate_exact_sum(expr, e, term) -%}
{% set down = sqlmetrics.replicate_exact_shifts(e).split('|')[1] %}
coalesce(cast(sum({{ sqlmetrics.exact_int_of(term) }}) as {{ sqlmetrics.float_type() }}) * power({{ sqlmetrics.float_literal(2) }}, {{ down }}), sum({{ expr }}))
{%- endmacro %}

{% macro postgres__replicate_exact_sum(expr, e, term) -%}
{% set two = sqlmetrics.float_literal(2) %}
{% set down = sqlmetrics.replicate_exact_shifts(e).split('|')[1] %}
{% set hi = 'floor((' ~ term ~ ') * power(' ~ two ~ ', -40))' %}
coalesce(cast(sum(cast({{ hi }} as bigint)) * 1099511627776 + sum(cast(({{ term }}) - {{ hi }} * power({{ two }}, 40) as bigint)) as {{ sqlmetrics.float_type() }}) * power({{ two }}, {{ down }}), sum({{ expr }}))
{%- endmacro %}

{% macro poisson_counts(draws, keys) -%}
{% set exact_max = 20 %}
{% set a = [3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125, 45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727] %}
{% set b = [1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867, 39307.89580009271061, 28729.085735721942674, 5226.495278852854561] %}
{% set c = [1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4] %}
{% set d = [1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9] %}
{% set cols = keys | join(', ') %}
select {{ cols }}, n
from (
    select {% for k in keys %}draws.{{ k }}, {% endfor %}cast(count(*) as bigint) as n
    from {{ draws }} as draws
    join {{ sqlmetrics.poisson_cdf_table() | indent(4) }}
        on poisson_cdf.lam = draws.lam and poisson_cdf.t <= draws.x
    where draws.lam <= {{ exact_max }}
    group by {% for k in keys %}draws.{{ k }}{{ ', ' if not loop.last }}{% endfor %}

) as exact_counts
union all
select {{ cols }}, cast(case when v < 0 then 0 else floor(v + {{ sqlmetrics.float_literal(0.5) }}) end as bigint) as n
from (
    select
        {{ cols }},
        mean + z * s + (z * z - {{ sqlmetrics.float_literal(1) }}) / {{ sqlmetrics.float_literal(6) }} + (z - z * z * z) / ({{ sqlmetrics.float_literal(72) }} * s) as v
    from (
        select
            {{ cols }},
            mean,
            sqrt(mean) as s,
            {{ sqlmetrics.poisson_normal_quantile(a, b, c, d) | indent(12) }} as z
        from (
            select
                {{ cols }},
                mean,
                q,
                {{ sqlmetrics.float_literal(0.180625) }} - q * q as rc,
                sqrt(-ln(case when abs(q) <= {{ sqlmetrics.float_literal(0.425) }} then {{ sqlmetrics.float_literal(0.5) }} when q < 0 then u else {{ sqlmetrics.float_literal(1) }} - u end)) - {{ sqlmetrics.float_literal(1.6) }} as rt
            from (
                select
                    {{ cols }},
                    cast(lam as {{ sqlmetrics.float_type() }}) as mean,
                    u,
                    u - {{ sqlmetrics.float_literal(0.5) }} as q
                from (
                    select {{ cols }}, lam, (cast(x as {{ sqlmetrics.float_type() }}) + {{ sqlmetrics.float_literal(0.5) }}) / {{ sqlmetrics.float_literal(2147483647) }} as u
                    from {{ draws }}
                    where lam > {{ exact_max }}
                ) as uniforms
                {{ sqlmetrics.resample_fence() }}
            ) as centered
            {{ sqlmetrics.resample_fence() }}
        ) as radii
        {{ sqlmetrics.resample_fence() }}
    ) as normals
) as approximate_counts
{%- endmacro %}
