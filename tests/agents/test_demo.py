"""`sly-scout demo` (the main job of `make run`): a speed line and an arena table per game."""

import io
import re

import pytest

from sly_scout_env.agents.ui.demo import run_demo


@pytest.mark.slow  # a whole demo: speed runs and an arena per game (~5 s)
def test_demo_prints_a_speed_line_and_a_complete_arena_table_per_game():
    out = io.StringIO()
    run_demo(seed=3, quick=True, progress=False, out=out)
    text = out.getvalue()
    for game, unit in (("scout", "hands"), ("sly", "games")):
        speed = re.search(rf"^{game}: ([\d,]+) random \d-player {unit} in [\d.]+ s on every core: "
                          rf"([\d,]+) {unit}/s", text, re.M)
        assert speed, text
        assert int(speed.group(2).replace(",", "")) > 0
    # Each table row: name, entries, mean score, win rate, [lo, hi], mu, sigma.
    rows = re.findall(r"^(random|greedy|ismcts\S*)\s+(\d+)\s+(-?[\d.]+)\s+([\d.]+)\s+\[([\d.]+), ([\d.]+)\]",
                      text, re.M)
    assert len(rows) == 6, text  # three bots in each of the two games
    games = [int(g) for g in re.findall(r"^(?:scout|sly): \d players, (\d+) games", text, re.M)]
    assert len(games) == 2, text
    for table, n_games in zip((rows[:3], rows[3:]), games):
        assert {r[0].split(":")[0] for r in table} == {"random", "greedy", "ismcts"}
        entries = [int(r[1]) for r in table]
        win_rates = [float(r[3]) for r in table]
        # Every game has one winner's worth of shares (ties split), and each bot sits equally often.
        assert len(set(entries)) == 1
        assert abs(sum(w * e for w, e in zip(win_rates, entries)) - n_games) < 0.01 * n_games
        for r in table:
            assert float(r[4]) <= float(r[3]) <= float(r[5])
