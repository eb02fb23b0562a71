"""Terminal play driven through text streams, end to end, for both games."""

import io
import json

import pytest

from sly_scout_env.agents.ui.cli import build_parser, run_play
from sly_scout_env.agents.ui.play import load_save, match_move, play

ALWAYS_FIRST = "1\n" * 3000


def _run(game, players, text, tmp_path, seed=1, seat=0, **kw):
    out = io.StringIO()
    result = play(game, players, ["random"], seed=seed, seat=seat, input_stream=io.StringIO(text),
                  output_stream=out, save_path=str(tmp_path / "save.json"), **kw)
    return result, out.getvalue()


GAMES = [("sly", 3, "expose space 7"), ("scout", 2, "scout the left card"), ("scout", 3, "show cards 0-9")]


@pytest.mark.parametrize("game, players, illegal", GAMES)
def test_full_match_with_bad_input(game, players, illegal, tmp_path):
    base, base_out = _run(game, players, ALWAYS_FIRST, tmp_path)
    assert base["status"] == "finished"
    assert "=== Final result ===" in base_out
    bad = f"frobnicate\n0\n999\n{illegal}\nhelp\nmoves\ntable\n\n"
    result, out = _run(game, players, bad + ALWAYS_FIRST, tmp_path)
    # Bad input changed nothing: the same match to the end.
    assert result == base
    assert "'frobnicate' is not a command and matches no legal move" in out
    assert "0 is out of range" in out and "999 is out of range" in out
    assert f"{illegal!r} is not a command and matches no legal move" in out
    assert "Commands:" in out  # help
    if game == "scout":
        assert "Round 1 of" in out and "is over" in out
        assert "decided whether to turn the hand around (a private choice)" in out
    else:
        assert "lay a card face down on space" in out  # opponents' Lays do not say the card
        assert "(random): lay Fox" not in out and "(random): lay Hen" not in out


@pytest.mark.parametrize("game, players", [("sly", 3), ("scout", 2)])
def test_end_of_input_saves_and_resume_finishes_the_same_match(game, players, tmp_path):
    base, _ = _run(game, players, ALWAYS_FIRST, tmp_path, seed=7, seat=1)
    saved, out = _run(game, players, "1\n1\n1\n", tmp_path, seed=7, seat=1)
    assert saved["status"] == "saved"
    path = tmp_path / "save.json"
    assert f"--resume {path}" in out
    data = load_save(str(path))
    assert data["game"] == game and data["players"] == players and data["seat"] == 1
    assert data["state"]["game"] == game
    assert [e["bot"] for e in data["seating"]][1] == "human"
    out2 = io.StringIO()
    resumed = play(resume=str(path), input_stream=io.StringIO(ALWAYS_FIRST), output_stream=out2)
    assert "Resuming" in out2.getvalue()
    assert resumed == base  # the saved game goes on exactly as the uninterrupted one


class _CtrlC(io.StringIO):
    def __init__(self, lines):
        super().__init__(lines)
        self.left = lines.count("\n")

    def readline(self, *args):
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().readline(*args)


def test_ctrl_c_saves(tmp_path):
    out = io.StringIO()
    path = tmp_path / "c.json"
    result = play("sly", 2, ["random"], seed=2, input_stream=_CtrlC("1\n2\n"), output_stream=out, save_path=str(path))
    assert result["status"] == "saved" and "Interrupted" in out.getvalue()
    assert json.loads(path.read_text())["moves_played"] >= 2


def test_quit_and_cli_resume(tmp_path):
    path = tmp_path / "q.json"
    args = build_parser().parse_args(["play", "sly", "--players", "2", "--seed", "4", "--save", str(path)])
    out = io.StringIO()
    assert run_play(args, io.StringIO("1\nquit\n"), out)["status"] == "saved"
    args = build_parser().parse_args(["play", "sly", "--resume", str(path)])
    assert run_play(args, io.StringIO(ALWAYS_FIRST), io.StringIO())["status"] == "finished"
    bad = build_parser().parse_args(["play", "sly", "--resume", str(tmp_path / "missing.json")])
    with pytest.raises(SystemExit, match="no saved game"):
        run_play(bad, io.StringIO(""), io.StringIO())


def test_same_seed_same_deal(tmp_path):
    _, a = _run("scout", 3, "", tmp_path, seed=9)
    _, b = _run("scout", 3, "", tmp_path, seed=9)
    _, c = _run("scout", 3, "", tmp_path, seed=10)
    assert a == b and a != c


def test_setup_errors():
    with pytest.raises(ValueError, match="seat"):
        play("sly", 3, ["random"], seat=3, input_stream=io.StringIO(""), output_stream=io.StringIO())
    with pytest.raises(ValueError, match="opponents"):
        play("sly", 2, ["random", "random"], input_stream=io.StringIO(""), output_stream=io.StringIO())
    with pytest.raises(ValueError, match="unknown bot"):
        play("sly", 2, ["nobody"], input_stream=io.StringIO(""), output_stream=io.StringIO())


def test_match_move():
    moves = [(10, "show card 0 (set 6)"), (11, "show cards 0-1 (run 6 7)"), (12, "scout the left card (3/4)")]
    assert match_move("2", moves) == (11, "")
    assert match_move("scout", moves) == (12, "")
    assert match_move("SHOW CARD 0 (set 6)", moves) == (10, "")  # exact text wins over the longer match
    action, msg = match_move("show", moves)
    assert action is None and "matches 2 legal moves" in msg
    assert match_move("4", moves)[0] is None
