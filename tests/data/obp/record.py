"""Regenerate the obp fixtures beside this file (issue 43): obp 0.5.7's estimates and their inputs.

How to run (from the repository root; obp lives in a venv of its own, never in the dev venv)::

    python3 -m venv /tmp/obp-venv
    /tmp/obp-venv/bin/pip install --no-deps --ignore-requires-python obp==0.5.7
    /tmp/obp-venv/bin/pip install numpy==1.23.5 pandas==1.5.2 scipy==1.9.3 \
        scikit-learn==1.1.3 "seaborn>=0.11.2,<0.12" "pingouin>=0.4,<0.5" \
        "mypy-extensions>=0.4.3,<0.5" "matplotlib<3.8" pyyaml tqdm pyarrow==17.0.0
    /tmp/obp-venv/bin/pip install --no-deps pyieoe
    /tmp/obp-venv/bin/python tests/data/obp/record.py

Recorded with Python 3.11.7 (obp 0.5.7 declares Python < 3.11, hence --ignore-requires-python),
obp 0.5.7, numpy 1.23.5, pandas 1.5.2, scipy 1.9.3, scikit-learn 1.1.3 (obp's pins),
pyarrow 17.0.0 (pyarrow 26 needs numpy 2), matplotlib 3.7.5 (seaborn 0.11 fails on 3.11's
matplotlib), and the torch stub below (``main`` prints the versions it ran with, and
``versions`` in obp.json keeps them). Every generator is seeded: two runs wrote the same bytes
(Parquet files and obp.json), in about 80 s each.

torch: obp 0.5.7 imports torch at import time (``obp/__init__.py`` imports ``obp.policy``, whose
``offline.py`` / ``offline_continuous.py`` build torch networks, and ``obp/utils.py``'s tensor
checks). Its wheel for this platform pulls the GPU stack (gigabytes), so when ``import torch``
fails this script puts a stub module named ``torch`` in ``sys.modules`` before importing obp.
Every attribute of the stub is a placeholder that may be named (annotations such as
``-> torch.Tensor``, base classes such as ``torch.utils.data.Dataset``) but raises
``RuntimeError`` when called, and every call is logged; the script asserts that the log is empty
at the end. What it calls never touches torch (read in obp 0.5.7's source):
``SyntheticBanditDataset`` (``obp/dataset/synthetic.py``: numpy, scipy, sklearn),
``SyntheticSlateBanditDataset`` and ``linear_behavior_policy_logit``
(``obp/dataset/synthetic_slate.py``: numpy, scipy, sklearn, itertools),
``RegressionModel`` (``obp/ope/regression_model.py``: sklearn),
``InverseProbabilityWeighting``, ``SelfNormalizedInverseProbabilityWeighting``, ``DoublyRobust``
(``obp/ope/estimators.py``; their ``estimate_policy_value`` uses numpy only, the torch paths are
the separate ``estimate_policy_value_tensor`` methods, never called here), ``SlateStandardIPS``,
``SlateIndependentIPS``, ``SlateRewardInteractionIPS`` (``obp/ope/estimators_slate.py``: numpy,
and pandas in ``obp.utils.check_*_inputs``), ``obp.utils.softmax`` (numpy).

obp 0.5.7's formulas (read in ``obp/ope/estimators.py`` and ``obp/ope/estimators_slate.py``),
with w_i = action_dist[i, a_i, 0] / pscore_i (``iw``) and, when ``lambda_`` is finite,
w_i = min(w_i, lambda_) (``np.minimum(iw, self.lambda_)``):

- ``InverseProbabilityWeighting(lambda_)``: mean_i(r_i w_i).
- ``SelfNormalizedInverseProbabilityWeighting``: mean_i(r_i w_i / mean_j w_j), never clipped:
  it inherits IPW's ``lambda_`` field but its ``_estimate_round_rewards`` ignores it (this
  script asserts that ``lambda_=3`` gives the unclipped value). The clipped SNIPS recorded here
  (``snips_clip``) is therefore computed by this script as sum_i min(w_i, 3) r_i /
  sum_i min(w_i, 3) in numpy, marked ``"source": "formula"`` in obp.json.
- ``DoublyRobust(lambda_)``: mean_i(g_i + w_i (r_i - q_i)), with q_i =
  estimated_rewards_by_reg_model[i, a_i, 0] and g_i =
  ``np.average(estimated_rewards_by_reg_model[i, :, 0], weights=action_dist[i, :, 0])``
  (= sum_a pi_e(a|x_i) q^(x_i, a) / sum_a pi_e(a|x_i); the fixture's ``reward_hat_target`` is
  computed by the same call, so it holds the very doubles obp adds).
- ``SlateStandardIPS(len_list)``: sum over rows (slate, position) of r w / #unique(slate_id),
  w = evaluation_policy_pscore / pscore (the joint slate propensities; obp checks they are
  constant within a slate).
- ``SlateIndependentIPS``: the same with the item-position marginals
  (``pscore_item_position``, ``evaluation_policy_pscore_item_position``).
- ``SlateRewardInteractionIPS``: the same with the cascade propensities of the slate's first
  k items (``pscore_cascade``, ``evaluation_policy_pscore_cascade``).
  The slate estimators have no clipping in obp 0.5.7.

Single action: ``SyntheticBanditDataset(n_actions=10, dim_context=5, reward_type="binary",
reward_function=logistic_reward_function, behavior_policy_function=linear_behavior_policy,
random_state=seed)``, 100,000 rounds, seeds 12345, 23456, 34567. The evaluation policy is
pi_e(.|x) = softmax(4 * expected_reward(x, .)) (``obp.utils.softmax``; peaked on the best
actions, so that weights run well past the clip). The reward model q^ is obp's
``RegressionModel(n_actions=10, base_model=LogisticRegression(C=100, random_state=seed),
fitting_method="normal")``, ``fit_predict(context, action, reward, n_folds=3,
random_state=seed)`` (3-fold cross-fitting: q^(x_i, .) comes from a model that did not see row
i). The clip is lambda = 3 (3 to 5 % of the rows have a larger weight). Per round the
fixture keeps only what a warehouse log holds: reward, pscore, target = action_dist[i, a_i, 0],
reward_hat = q^(x_i, a_i), reward_hat_target (above), in ``bandit_<seed>.parquet``.

Slates: ``SyntheticSlateBanditDataset(n_unique_action=10, len_list=3, dim_context=2,
reward_type="binary", reward_structure="cascade_additive", click_model=None,
base_reward_function=logistic_reward_function,
behavior_policy_function=linear_behavior_policy_logit, random_state=seed)``,
``obtain_batch_bandit_feedback(10_000, return_pscore_item_position=True)``, seeds 12345 and
23456. The evaluation policy is the Plackett-Luce policy of the logits
``linear_behavior_policy_logit(context, action_context, random_state=seed + 1, tau=0.5)``, its
three propensities from ``dataset.obtain_pscore_given_evaluation_policy_logit(action, logits,
return_pscore_item_position=True)``. Rows (slate_id, position, reward, pscore,
pscore_item_position, pscore_cascade, evaluation_policy_pscore,
evaluation_policy_pscore_item_position, evaluation_policy_pscore_cascade) in
``slate_<seed>.parquet``.

Every float is the float64 obp computed (no rounding); Parquet with zstd compression.
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BANDIT_SEEDS = (12345, 23456, 34567)
SLATE_SEEDS = (12345, 23456)
N_ROUNDS = 100_000
N_SLATES = 10_000
N_ACTIONS = 10
LEN_LIST = 3
CLIP = 3.0
TARGET_BETA = 4.0

TORCH_CALLS: list[str] = []


class _Placeholder:
    """A stand-in for any torch attribute: it may be named, never called."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> _Placeholder:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Placeholder(f"{self._name}.{attr}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        TORCH_CALLS.append(self._name)
        raise RuntimeError(f"torch stub: obp called {self._name}")

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        name = self._name

        class _Base:
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                TORCH_CALLS.append(name)
                raise RuntimeError(f"torch stub: obp instantiated {name}")

        return (_Base,)


def _install_torch_stub() -> bool:
    """Put a stub ``torch`` (and its submodules obp imports) in sys.modules if torch is absent."""
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
    else:
        return False
    for name in ("torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.utils"):
        module = types.ModuleType(name)
        module.__getattr__ = (  # type: ignore[method-assign]
            lambda attr, _n=name: _Placeholder(f"{_n}.{attr}")
        )
        sys.modules[name] = module
    return True


def _bandit(seed: int) -> tuple[Any, dict[str, Any]]:
    import numpy as np
    import pandas as pd
    from obp.dataset import SyntheticBanditDataset, linear_behavior_policy, logistic_reward_function
    from obp.ope import (
        DoublyRobust,
        InverseProbabilityWeighting,
        RegressionModel,
        SelfNormalizedInverseProbabilityWeighting,
    )
    from obp.utils import softmax
    from sklearn.linear_model import LogisticRegression

    dataset = SyntheticBanditDataset(
        n_actions=N_ACTIONS,
        dim_context=5,
        reward_type="binary",
        reward_function=logistic_reward_function,
        behavior_policy_function=linear_behavior_policy,
        random_state=seed,
    )
    bf = dataset.obtain_batch_bandit_feedback(n_rounds=N_ROUNDS)
    action_dist = softmax(TARGET_BETA * bf["expected_reward"])[:, :, np.newaxis]
    model = RegressionModel(
        n_actions=N_ACTIONS,
        base_model=LogisticRegression(C=100, random_state=seed),
        fitting_method="normal",
    )
    q_hat = model.fit_predict(
        context=bf["context"],
        action=bf["action"],
        reward=bf["reward"],
        n_folds=3,
        random_state=seed,
    )
    n = bf["n_rounds"]
    rows = np.arange(n)
    action = bf["action"]
    frame = pd.DataFrame(
        {
            "reward": bf["reward"].astype(np.int64),
            "pscore": bf["pscore"].astype(np.float64),
            "target": action_dist[rows, action, 0].astype(np.float64),
            "reward_hat": q_hat[rows, action, 0].astype(np.float64),
            "reward_hat_target": np.average(
                q_hat[rows, :, 0], weights=action_dist[rows, :, 0], axis=1
            ).astype(np.float64),
        }
    )
    common = {"reward": bf["reward"], "action": action, "action_dist": action_dist}
    ps = {"pscore": bf["pscore"]}
    estimates: dict[str, Any] = {}
    for clip, suffix in ((float("inf"), ""), (CLIP, "_clip")):
        estimates["ips" + suffix] = InverseProbabilityWeighting(lambda_=clip).estimate_policy_value(
            **common, **ps
        )
        estimates["dr" + suffix] = DoublyRobust(lambda_=clip).estimate_policy_value(
            **common, **ps, estimated_rewards_by_reg_model=q_hat
        )
    estimates["snips"] = SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(
        **common, **ps
    )
    ignored = SelfNormalizedInverseProbabilityWeighting(lambda_=CLIP).estimate_policy_value(
        **common, **ps
    )
    assert ignored == estimates["snips"], "obp's SNIPW now clips: record snips_clip from obp"
    w = np.minimum(frame["target"].to_numpy() / frame["pscore"].to_numpy(), CLIP)
    estimates["snips_clip"] = float(np.sum(w * frame["reward"].to_numpy()) / np.sum(w))
    raw_w = frame["target"].to_numpy() / frame["pscore"].to_numpy()
    record = {
        "seed": seed,
        "file": f"bandit_{seed}.parquet",
        "n_rounds": int(n),
        "clip": CLIP,
        "estimates": {k: float(v) for k, v in estimates.items()},
        "source": {k: ("formula" if k == "snips_clip" else "obp") for k in estimates},
        "ground_truth": float(
            dataset.calc_ground_truth_policy_value(
                expected_reward=bf["expected_reward"], action_dist=action_dist
            )
        ),
        "rows_clipped": int(np.sum(raw_w > CLIP)),
        "max_weight": float(raw_w.max()),
    }
    return frame, record


def _slate(seed: int) -> tuple[Any, dict[str, Any]]:
    import numpy as np
    import pandas as pd
    from obp.dataset import (
        SyntheticSlateBanditDataset,
        linear_behavior_policy_logit,
        logistic_reward_function,
    )
    from obp.ope import SlateIndependentIPS, SlateRewardInteractionIPS, SlateStandardIPS

    dataset = SyntheticSlateBanditDataset(
        n_unique_action=N_ACTIONS,
        len_list=LEN_LIST,
        dim_context=2,
        reward_type="binary",
        reward_structure="cascade_additive",
        click_model=None,
        base_reward_function=logistic_reward_function,
        behavior_policy_function=linear_behavior_policy_logit,
        random_state=seed,
    )
    bf = dataset.obtain_batch_bandit_feedback(n_rounds=N_SLATES, return_pscore_item_position=True)
    logits = linear_behavior_policy_logit(
        context=bf["context"],
        action_context=dataset.action_context,
        random_state=seed + 1,
        tau=0.5,
    )
    e_pscore, e_item, e_cascade = dataset.obtain_pscore_given_evaluation_policy_logit(
        action=bf["action"], evaluation_policy_logit_=logits, return_pscore_item_position=True
    )
    frame = pd.DataFrame(
        {
            "slate_id": bf["slate_id"].astype(np.int64),
            "position": bf["position"].astype(np.int64),
            "reward": bf["reward"].astype(np.int64),
            "pscore": bf["pscore"].astype(np.float64),
            "pscore_item_position": bf["pscore_item_position"].astype(np.float64),
            "pscore_cascade": bf["pscore_cascade"].astype(np.float64),
            "evaluation_policy_pscore": e_pscore.astype(np.float64),
            "evaluation_policy_pscore_item_position": e_item.astype(np.float64),
            "evaluation_policy_pscore_cascade": e_cascade.astype(np.float64),
        }
    )
    base = {"slate_id": bf["slate_id"], "reward": bf["reward"], "position": bf["position"]}
    estimates = {
        "slate_standard_ips": SlateStandardIPS(len_list=LEN_LIST).estimate_policy_value(
            **base, pscore=bf["pscore"], evaluation_policy_pscore=e_pscore
        ),
        "slate_independent_ips": SlateIndependentIPS(len_list=LEN_LIST).estimate_policy_value(
            **base,
            pscore_item_position=bf["pscore_item_position"],
            evaluation_policy_pscore_item_position=e_item,
        ),
        "slate_rips": SlateRewardInteractionIPS(len_list=LEN_LIST).estimate_policy_value(
            **base,
            pscore_cascade=bf["pscore_cascade"],
            evaluation_policy_pscore_cascade=e_cascade,
        ),
    }
    record = {
        "seed": seed,
        "file": f"slate_{seed}.parquet",
        "n_slates": int(N_SLATES),
        "len_list": LEN_LIST,
        "estimates": {k: float(v) for k, v in estimates.items()},
        "source": dict.fromkeys(estimates, "obp"),
    }
    return frame, record


def main() -> None:
    os.environ.setdefault("TQDM_DISABLE", "1")  # obp's slate generator's progress bars
    stubbed = _install_torch_stub()
    import numpy as np
    import obp
    import pandas as pd
    import pyarrow
    import scipy
    import sklearn

    versions = {
        "python": sys.version.split()[0],
        "obp": obp.__version__,
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "pyarrow": pyarrow.__version__,
        "torch": "stub (never called)" if stubbed else sys.modules["torch"].__version__,
    }
    print(versions)
    out: dict[str, Any] = {"versions": versions, "bandit": [], "slate": []}
    for seed in BANDIT_SEEDS:
        frame, record = _bandit(seed)
        frame.to_parquet(HERE / record["file"], compression="zstd", index=False)
        out["bandit"].append(record)
        print(record)
    for seed in SLATE_SEEDS:
        frame, record = _slate(seed)
        frame.to_parquet(HERE / record["file"], compression="zstd", index=False)
        out["slate"].append(record)
        print(record)
    assert not TORCH_CALLS, f"obp called torch: {TORCH_CALLS}"
    (HERE / "obp.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
