"""Bad input of every kind — config, parameters, paths, environment, data — ends the same way:
exit status 2, exactly one line ``error: ...`` on stderr naming the problem, no traceback, and
nothing written: the result store (which holds a done cell) and every other file of the
working folder byte-identical, nothing created.

Each case runs the real command line in-process (click's CliRunner, which records an
exception that escapes instead of raising it: ``result.exception`` must be the SystemExit of
the one-line error). No case computes a cell: the data is a copy of Car from the UCI mirror
folder, or none.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner

from mcboost_cli.cli import main

TINY = """\
experiment: bad_input
datasets: [car]
folds: [0]
quick: {max_rounds: 2}
algorithms:
  - algorithm: samme
    label: SAMME
    params: {n_rounds: 3, max_depth: 1}
"""
STORE = "store/cells.sqlite"          # the prepared store, relative to the working folder


def laughs(levels: int, under: str) -> str:
    """A 'billion laughs' config: ``levels`` anchors of nine aliases each, expanding to 9^levels
    values under ``under`` (``title`` or ``n_rounds``)."""
    rows = ["- &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    rows += [f"- &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    if under == "title":
        return TINY + "title:\n" + "".join(f"  {r}\n" for r in rows)
    return TINY.replace("params: {n_rounds: 3, max_depth: 1}",
                        "params:\n      max_depth: 1\n      n_rounds:\n"
                        + "".join(f"        {r}\n" for r in rows))


def sub(old: str, new: str) -> str:
    assert old in TINY
    return TINY.replace(old, new)


@dataclass
class Case:
    args: list                      # after the command; "{cfg}" is the config file
    expect: str                     # a piece of the error line
    config: str | bytes = TINY
    env: dict = field(default_factory=dict)   # "{work}" is the working folder; None unsets
    setup: Callable | None = None   # setup(work: Path, cache: Path, monkeypatch)
    cache: str = "car"              # "car": a cache holding car.data; "empty": none


def _file_at(rel):
    def setup(work, cache, mp):
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text("a regular file\n")
    return setup


def _change_cached_label(work, cache, mp):
    path = cache / "uci/car/car.data"
    text = path.read_text()
    path.write_text(text.replace("unacc", "acc", 1))        # one label, same shape


def _truncate_cached(work, cache, mp):
    path = cache / "uci/car/car.data"
    path.write_bytes(path.read_bytes()[:-100])


def _deny_write(rel):
    """As if ``rel`` (a folder) were read-only: works as root too, where chmod does not."""
    def setup(work, cache, mp):
        from mcboost_cli.runner import preflight
        target = (work / rel).absolute()
        target.mkdir(parents=True, exist_ok=True)
        real = preflight._can_write
        mp.setattr(preflight, "_can_write",
                   lambda p: False if Path(p).absolute() == target else real(p))
    return setup


CASES = {
    # -- config: YAML ----------------------------------------------------------------------------
    "malformed YAML": Case(["run", "{cfg}"], "malformed YAML at line",
                           config="experiment: x\ndatasets: [car\n"),
    "empty file": Case(["run", "{cfg}"], "config file is empty: expected a mapping with keys",
                       config=""),
    "only comments": Case(["run", "{cfg}"], "config file is empty", config="# nothing\n"),
    "top level a list": Case(["run", "{cfg}"], "the top level must be a mapping",
                             config="- experiment\n- datasets\n"),
    "billion laughs under title": Case(["run", "{cfg}"], "aliases expand to more than",
                                       config=laughs(9, "title")),
    "billion laughs under n_rounds": Case(["run", "{cfg}"], "aliases expand to more than",
                                          config=laughs(9, "n_rounds")),
    "half a million laughs": Case(["run", "{cfg}"], "aliases expand to more than",
                                  config=laughs(6, "title")),
    "recursive alias": Case(["run", "{cfg}"], "recursive alias",
                            config=sub("algorithms:\n", "algorithms: &a\n  - *a\n")),
    "config over 1 MB": Case(["run", "{cfg}"], "at most 1 MB",
                             config=TINY + "title: " + "x" * (3 << 19) + "\n"),
    "5000-digit integer": Case(["run", "{cfg}"], "cannot be read",
                               config=sub("n_rounds: 3", "n_rounds: " + "9" * 5000)),
    "nesting 100,000 deep": Case(["run", "{cfg}"], "nests too deeply",
                                 config=TINY + "seeds: " + "[" * 100_000 + "]" * 100_000 + "\n"),
    "not UTF-8": Case(["run", "{cfg}"], "not UTF-8", config=TINY.encode() + b"title: \xff\xfe\n"),
    # -- config: schema --------------------------------------------------------------------------
    "unknown key": Case(["run", "{cfg}"], "colour: unknown key", config=TINY + "colour: blue\n"),
    "5000-char unknown key": Case(["run", "{cfg}"], "unknown key",
                                  config=TINY + "? " + "k" * 5000 + "\n: 1\n"),
    "5000-char title in a list": Case(["run", "{cfg}"], "title: ['yyyy",
                                      config=TINY + "title: [" + "y" * 5000 + "]\n"),
    "missing experiment": Case(["run", "{cfg}"], "experiment: missing required key",
                               config=sub("experiment: bad_input\n", "")),
    "missing datasets": Case(["run", "{cfg}"], "datasets: missing required key",
                             config=sub("datasets: [car]\n", "")),
    "algorithms and tables": Case(["run", "{cfg}"], "give either 'algorithms'",
                                  config=TINY + "tables: []\n"),
    "bad experiment name": Case(["run", "{cfg}"], "experiment: 'a/b' is not valid",
                                config=sub("experiment: bad_input", "experiment: a/b")),
    "unknown dataset": Case(["run", "{cfg}"], "datasets[0]: 'carr' is not valid",
                            config=sub("[car]", "[carr]")),
    "duplicate datasets": Case(["run", "{cfg}"], "has duplicates",
                               config=sub("[car]", "[car, car]")),
    "unknown algorithm": Case(["run", "{cfg}"], "unknown algorithm 'sammy'",
                              config=sub("algorithm: samme", "algorithm: sammy")),
    "unknown parameter": Case(["run", "{cfg}"], "colour",
                              config=sub("max_depth: 1}", "max_depth: 1, colour: 2}")),
    "parameter of the wrong type": Case(["run", "{cfg}"], "n_rounds: 'many' is not valid",
                                        config=sub("n_rounds: 3", "n_rounds: many")),
    "parameter out of range": Case(["run", "{cfg}"], "max_depth: 0 is not valid",
                                   config=sub("max_depth: 1", "max_depth: 0")),
    "max_leaves 1 (0 or at least 2)": Case(
        ["run", "{cfg}"], "max_leaves: 1 is not valid; expected an integer in [2, 1024] or 0",
        config=sub("algorithm: samme", "algorithm: adaboost_mh").replace("max_depth: 1}",
                                                                         "max_leaves: 1}")),
    "empty grid": Case(["run", "{cfg}"], "grid.max_depth",
                       config=sub("params: {n_rounds: 3, max_depth: 1}",
                                  "params: {n_rounds: 3}\n    grid: {max_depth: []}")),
    "grid parameter also fixed": Case(["run", "{cfg}"], "also given in params",
                                      config=sub("max_depth: 1}", "max_depth: 1}\n"
                                                 "    grid: {max_depth: [1, 2]}")),
    "noise rate 1": Case(["run", "{cfg}"], "noise_rates[0]: 1.0 is not valid",
                         config=TINY + "noise_rates: [1.0]\n"),
    "negative seed": Case(["run", "{cfg}"], "seeds[0]: -1 is not valid",
                          config=TINY + "seeds: [-1]\n"),
    "negative timeout": Case(["run", "{cfg}"], "timeout: -1 is not valid",
                             config=TINY + "timeout: -1\n"),
    "fold 7": Case(["run", "{cfg}"], "folds[0]: 7 is not valid", config=sub("[0]", "[7]")),
    "predefined protocol without a split": Case(["run", "{cfg}"], "needs a predefined",
                                                config=TINY + "protocol: predefined\n"),
    "override for another dataset": Case(["run", "{cfg}"], "per_dataset.letter",
                                         config=sub("max_depth: 1}", "max_depth: 1}\n"
                                                    "    per_dataset: {letter: {n_rounds: 5}}")),
    "bad data source": Case(["run", "{cfg}"], "sources", config=TINY + "sources: {car: cloud}\n"),
    "quick max_rounds 0": Case(["run", "{cfg}"], "quick.max_rounds: 0 is not valid",
                               config=sub("{max_rounds: 2}", "{max_rounds: 0}")),
    # -- parameters ------------------------------------------------------------------------------
    "--jobs 0": Case(["run", "{cfg}", "--jobs", "0"], "--jobs"),
    "--checkpoint-every -1": Case(["run", "{cfg}", "--checkpoint-every", "-1"],
                                  "--checkpoint-every"),
    "--datasets not in the config": Case(["run", "{cfg}", "--datasets", "letter"],
                                         "--datasets: letter is not valid"),
    "--algorithms unknown": Case(["run", "{cfg}", "--algorithms", "MH"],
                                 "--algorithms: MH is not valid"),
    "--tables unknown": Case(["run", "{cfg}", "--tables", "t9"], "--tables: t9 is not valid"),
    "--source without =": Case(["run", "{cfg}", "--source", "car"], "expected DATASET=SOURCE"),
    "--source bad value": Case(["run", "{cfg}", "--source", "car=cloud"], "cloud"),
    "--quick without a quick section": Case(
        ["run", "{cfg}", "--quick"], "--quick needs a 'quick' section",
        config=sub("quick: {max_rounds: 2}\n", "")),
    "noise --rate 1.5": Case(["noise", "--rate", "1.5", "--config", "{cfg}"],
                             "--rate: 1.5 is not valid"),
    "--import-results missing, with --fresh": Case(
        ["run", "{cfg}", "--fresh", "--import-results", "nope.csv"],
        "no per-cell results file"),
    "--import-results is a folder": Case(["run", "{cfg}", "--import-results", "store"],
                                         "is a directory"),
    "--import-results under a file": Case(["run", "{cfg}", "--import-results", "plain.txt/c.csv"],
                                          "cannot read the per-cell results file",
                                          setup=_file_at("plain.txt")),
    "recheck --cells under a file": Case(["recheck", "{cfg}", "--cells", "plain.txt/c.csv"],
                                         "cannot read the per-cell results file",
                                         setup=_file_at("plain.txt")),
    "--mirror with an unknown scheme, nothing cached": Case(
        ["run", "{cfg}", "--mirror", "ftp://example.org/uci"], "unsupported scheme",
        cache="empty"),
    # -- paths -----------------------------------------------------------------------------------
    "config missing": Case(["run", "nope.yaml"], "no such config file"),
    "config is a folder": Case(["run", "store"], "it is a directory"),
    "config under a file": Case(["run", "plain.txt/c.yaml"], "no such config file",
                                setup=_file_at("plain.txt")),
    "--store under a file": Case(["run", "{cfg}", "--store", "plain.txt/cells.sqlite"],
                                 "plain.txt is a file, not a folder",
                                 setup=_file_at("plain.txt")),
    "--store is a folder": Case(["run", "{cfg}", "--store", "store"], "store"),
    "--store is not a store": Case(["run", "{cfg}", "--store", "plain.txt"],
                                   "cannot open result store", setup=_file_at("plain.txt")),
    "--store in a read-only folder": Case(["run", "{cfg}", "--store", "ro/cells.sqlite"],
                                          "is not writable", setup=_deny_write("ro")),
    "--results-dir under a file": Case(["run", "{cfg}", "--results-dir", "plain.txt/out"],
                                       "plain.txt is a file, not a folder",
                                       setup=_file_at("plain.txt")),
    "--results-dir is a file": Case(["run", "{cfg}", "--results-dir", "plain.txt"],
                                    "plain.txt", setup=_file_at("plain.txt")),
    "--results-dir read-only": Case(["run", "{cfg}", "--results-dir", "ro"], "is not writable",
                                    setup=_deny_write("ro")),
    "default results folder under a file": Case(["run", "{cfg}"],
                                                "results folder results/bad_input",
                                                setup=_file_at("results")),
    "--export-splits under a file": Case(
        ["run", "{cfg}", "--dry-run", "--export-splits", "plain.txt/splits"],
        "--export-splits", setup=_file_at("plain.txt")),
    "--export-splits read-only": Case(["run", "{cfg}", "--export-splits", "ro"],
                                      "--export-splits ro", setup=_deny_write("ro")),
    "report --results-dir under a file": Case(
        ["report", "{cfg}", "--results-dir", "plain.txt/out"], "plain.txt is a file",
        setup=_file_at("plain.txt")),
    # -- environment -----------------------------------------------------------------------------
    "MCBOOST_DATA is a file": Case(["run", "{cfg}"], "MCBOOST_DATA=",
                                   env={"MCBOOST_DATA": "{work}/plain.txt"},
                                   setup=_file_at("plain.txt")),
    "MCBOOST_DATA under a file": Case(["run", "{cfg}", "--dry-run"], "lies under the file",
                                      env={"MCBOOST_DATA": "{work}/plain.txt/cache"},
                                      setup=_file_at("plain.txt")),
    "MCBOOST_MIRROR missing, nothing cached": Case(
        ["run", "{cfg}"], "mirror folder", env={"MCBOOST_MIRROR": "{work}/no-mirror"},
        cache="empty"),
    "offline, nothing cached": Case(["run", "{cfg}", "--offline"], "offline", cache="empty"),
    # -- data ------------------------------------------------------------------------------------
    "a cached label flipped in place": Case(["run", "{cfg}"], "mcboost datasets fetch car "
                                                              "--verify",
                                            setup=_change_cached_label),
    "a cached file truncated": Case(["run", "{cfg}", "--dry-run"], "has changed since",
                                    setup=_truncate_cached),
    "datasets fetch into a cache under a file": Case(
        ["datasets", "fetch", "car", "--mirror", "{work}"], "MCBOOST_DATA",
        env={"MCBOOST_DATA": "{work}/plain.txt/cache"}, setup=_file_at("plain.txt")),
    "datasets verify unknown name": Case(["datasets", "verify", "carr"], "did you mean 'car'"),
    "datasets fetch nothing named": Case(["datasets", "fetch"], "name at least one dataset"),
    "datasets info unknown name": Case(["datasets", "info", "nope"], "not in the catalog"),
}


@pytest.fixture(scope="module")
def car_cache(tmp_path_factory, uci_dir):
    """A dataset cache holding Car (copied from the mirror folder)."""
    root = tmp_path_factory.mktemp("car_cache")
    (root / "uci/car").mkdir(parents=True)
    shutil.copy(uci_dir / "car/car.data", root / "uci/car/car.data")
    return root


def _prepared_store(path: Path, config: Path) -> None:
    """A result store holding one done cell of TINY (made up: nothing is computed)."""
    from mcboost_cli.runner.cells import CellResult
    from mcboost_cli.runner.config import load_config
    from mcboost_cli.runner.plan import expand
    from mcboost_cli.runner.store import ResultStore
    cell = expand(load_config(config))[0].cell
    path.parent.mkdir(parents=True)
    with ResultStore(path) as store:
        store.put(cell, CellResult(cell.key, "done", selected_round=3, train_error=0.1,
                                   valid_error=0.2, test_error=0.25, n_rounds=3))


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_exit_2_and_writes_nothing(name, tmp_path, car_cache,
                                                         monkeypatch):
    case = CASES[name]
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    if case.cache == "car":
        shutil.copytree(car_cache, cache)
    else:
        cache.mkdir()
    tiny = work / "tiny.yaml"
    tiny.write_text(TINY)
    _prepared_store(work / STORE, tiny)
    tiny.unlink()
    cfg = work / "c.yaml"
    if isinstance(case.config, bytes):
        cfg.write_bytes(case.config)
    else:
        cfg.write_text(case.config)
    monkeypatch.chdir(work)
    monkeypatch.setenv("MCBOOST_DATA", str(cache))
    monkeypatch.delenv("MCBOOST_MIRROR", raising=False)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value.format(work=work))
    if case.setup:
        case.setup(work, cache, monkeypatch)
    args = [a.format(cfg=cfg.name, work=work) for a in case.args]
    if args[0] in ("run", "noise") and "--store" not in args:
        args += ["--store", STORE]
    before, cache_before = _snapshot(work), _snapshot(cache)

    result = CliRunner().invoke(main, args)

    assert isinstance(result.exception, SystemExit), result.exc_info   # not another exception
    everything = result.stdout + result.stderr
    assert "Traceback" not in everything
    assert result.exit_code == 2, everything
    lines = result.stderr.splitlines()
    assert len(lines) == 1, everything
    assert lines[0].startswith("error: ") and case.expect in lines[0], lines[0]
    assert len(lines[0]) < 1500, "an error line quotes at most a short prefix of a value"
    assert result.stdout == ""
    assert _snapshot(work) == before, "the working folder (and the store) changed"
    assert _snapshot(cache) == cache_before
    con = sqlite3.connect(work / STORE)
    assert con.execute("select count(*) from results where status = 'done'").fetchone() == (1,)
    con.close()


def test_there_are_at_least_forty_cases():
    assert len(CASES) >= 40


# -- related defects that are not errors -------------------------------------------------------

def _invoke(args):
    result = CliRunner().invoke(main, args)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def test_dry_run_creates_nothing(tmp_path, car_cache, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCBOOST_DATA", str(car_cache))
    (tmp_path / "c.yaml").write_text(TINY)
    before = _snapshot(tmp_path)
    r = _invoke(["run", "c.yaml", "--dry-run", "--store", "new/folder/cells.sqlite"])
    assert r.exit_code == 0, r.output
    assert "1 cells" in r.stdout and "0 done" in r.stdout and "1 pending" in r.stdout
    r = _invoke(["run", "c.yaml", "--dry-run"])                 # the default store
    assert r.exit_code == 0, r.output
    assert _snapshot(tmp_path) == before


def test_a_missing_mirror_folder_matters_only_to_a_download(tmp_path, car_cache, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCBOOST_DATA", str(car_cache))
    monkeypatch.setenv("MCBOOST_MIRROR", str(tmp_path / "no-such-mirror"))
    (tmp_path / "c.yaml").write_text(TINY)
    r = _invoke(["run", "c.yaml", "--dry-run"])
    assert r.exit_code == 0 and "1 pending" in r.stdout, r.output
    r = _invoke(["datasets", "list"])
    assert r.exit_code == 0 and "car" in r.stdout


def test_verify_names_a_dataset_that_is_not_cached(tmp_path, car_cache, monkeypatch):
    monkeypatch.setenv("MCBOOST_DATA", str(car_cache))
    r = _invoke(["datasets", "verify", "nursery", "car"])
    assert r.exit_code == 0
    assert "nursery: not cached in" in r.stdout and "nothing cached" not in r.stdout
    assert "ok " in r.stdout and "1 cached files, 0 bad" in r.stdout
    r = _invoke(["datasets", "verify", "nursery"])      # it said "nothing cached in ..."
    assert r.exit_code == 0 and r.stdout.startswith("nursery: not cached in")
    assert "nothing cached" not in r.stdout


def test_some_datasets_missing_is_one_warning_each(tmp_path, car_cache, monkeypatch):
    # One dataset cached, one not (offline): a warning for the one left out, no error.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCBOOST_DATA", str(car_cache))
    (tmp_path / "c.yaml").write_text(TINY.replace("[car]", "[car, nursery]"))
    r = _invoke(["run", "c.yaml", "--dry-run", "--offline"])
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines() == [ln for ln in r.stderr.splitlines()
                                     if ln.startswith("warning: nursery is not run")]
    assert len(r.stderr.splitlines()) == 1


def test_tables_that_cannot_be_written_after_the_run_keep_the_results(tmp_path, car_cache,
                                                                       monkeypatch):
    # The folder passes the check but writing fails later (it went away, the disk filled up):
    # one line naming the store, which keeps every result, and how to render them again.
    from mcboost_cli.report import tables
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCBOOST_DATA", str(car_cache))
    (tmp_path / "c.yaml").write_text(TINY)
    _prepared_store(tmp_path / STORE, tmp_path / "c.yaml")     # every cell already done

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tables, "write_outputs", disk_full)
    r = _invoke(["run", "c.yaml", "--store", STORE, "-q"])
    assert r.exit_code == 2
    (line,) = r.stderr.splitlines()[-1:]
    assert "No space left on device" in line and STORE in line and "mcboost report" in line
    con = sqlite3.connect(tmp_path / STORE)
    assert con.execute("select count(*) from results where status = 'done'").fetchone() == (1,)
    con.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
@pytest.mark.parametrize("option", ["--store", "--results-dir", "--export-splits"])
def test_read_only_folders_for_real(option, tmp_path, car_cache, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCBOOST_DATA", str(car_cache))
    (tmp_path / "c.yaml").write_text(TINY)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        target = "ro/cells.sqlite" if option == "--store" else "ro/out"
        r = _invoke(["run", "c.yaml", option, target])
        assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1
        assert "not writable" in r.stderr and not list(ro.iterdir())
    finally:
        ro.chmod(0o755)


def test_a_config_may_share_blocks_with_aliases(tmp_path):
    # The bound is on expansion, not on aliases: sharing a params block is fine.
    from mcboost_cli.runner.config import load_config
    path = tmp_path / "c.yaml"
    path.write_text(TINY.replace("params: {n_rounds: 3, max_depth: 1}",
                                 "params: &p {n_rounds: 3, max_depth: 1}\n"
                                 "  - algorithm: adaboost_m1\n    params: *p"))
    config = load_config(path)
    assert [e.params for e in config.algorithms] == [{"n_rounds": 3, "max_depth": 1}] * 2
