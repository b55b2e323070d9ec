"""Real data: every dataset whose files are in the offline mirror (``../shared/uci``) is fetched
through the loopback HTTP mirror, verified against its checksum and parsed to the shape and
class counts documented for it (the .names / .doc files, checked against the files).

Skipped, with the reason, when the mirror folder is absent (``MCBOOST_TEST_UCI_DIR``
overrides its location). Download-only datasets (isolet, MNIST, connect-4, the poker test
file, LIBSVM splice, a5a and unscaled fourclass) cannot be checked here.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from mcboost_cli.datasets import (
    catalog,
    download,
    fetch,
    generator_status,
    get_spec,
    load_dataset,
    verify_cache,
)
from mcboost_cli.datasets.parsers import parse_file

from .test_datasets import LETTER_COUNTS, compress_lzw


def counts(names, values) -> dict:
    return dict(zip(names, values, strict=True))


DIGITS = [str(d) for d in range(10)]
KRK_CLASSES = ["draw", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
               "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"]
ABALONE_RINGS = [str(r) for r in range(1, 28)] + ["29"]

# name -> (rows, features, classes, {class: count}, {class: count in the test part} or None)
EXPECTED = {
    "abalone": (4177, 8, 28, counts(ABALONE_RINGS, [
        1, 1, 15, 57, 115, 259, 391, 568, 689, 634, 487, 267, 203, 126, 103, 67, 58, 42, 32, 26,
        14, 6, 9, 2, 1, 1, 2, 1]), None),
    "adult": (48842, 14, 2, {">50K": 11687, "<=50K": 37155}, {">50K": 3846, "<=50K": 12435}),
    # 10000 seeded training rows (2408 / 7592, as the rule draws them) + adult.test's rows.
    "adult-10000": (26281, 14, 2, {">50K": 6254, "<=50K": 20027},
                    {">50K": 3846, "<=50K": 12435}),
    "australian": (690, 14, 2, {"0": 383, "1": 307}, None),
    "balance-scale": (625, 4, 3, {"L": 288, "B": 49, "R": 288}, None),
    "car": (1728, 6, 4, {"unacc": 1210, "acc": 384, "good": 69, "vgood": 65}, None),
    "cnae9": (1080, 856, 9, {str(c): 120 for c in range(1, 10)}, None),
    "dermatology": (366, 34, 6, counts("123456", [112, 61, 72, 49, 52, 20]), None),
    "ecoli": (336, 7, 8, {"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20, "omL": 5,
                          "imL": 2, "imS": 2}, None),
    "fourclass-scale": (862, 2, 2, {"-1": 555, "+1": 307}, None),
    "glass": (214, 9, 6, counts("123567", [70, 76, 17, 13, 9, 29]), None),
    "heart": (270, 13, 2, {"1": 150, "2": 120}, None),
    "ionosphere": (351, 34, 2, {"g": 225, "b": 126}, None),
    "krkopt": (28056, 6, 18, counts(KRK_CLASSES, [
        2796, 27, 78, 246, 81, 198, 471, 592, 683, 1433, 1712, 1985, 2854, 3597, 4194, 4553,
        2166, 390]), None),
    "letter": (20000, 16, 26, LETTER_COUNTS, None),
    "letter-16000": (20000, 16, 26, LETTER_COUNTS, "4000 rows"),
    "nursery": (12960, 8, 5, {"not_recom": 4320, "recommend": 2, "very_recom": 328,
                              "priority": 4266, "spec_prior": 4044}, None),
    "optdigits": (5620, 64, 10, counts(DIGITS, [
        554, 571, 557, 572, 568, 558, 558, 566, 554, 562]), counts(DIGITS, [
            178, 182, 177, 183, 181, 182, 181, 179, 174, 180])),
    "pendigits": (10992, 16, 10, counts(DIGITS, [
        1143, 1143, 1144, 1055, 1144, 1055, 1056, 1142, 1055, 1055]), counts(DIGITS, [
            363, 364, 364, 336, 364, 335, 336, 364, 336, 336])),
    "pima": (768, 8, 2, {"0": 500, "1": 268}, None),
    "satimage": (6435, 36, 6, counts("123457", [1533, 703, 1358, 626, 707, 1508]),
                 counts("123457", [461, 224, 397, 211, 237, 470])),
    "segmentation": (2310, 19, 7, {c: 330 for c in ("BRICKFACE", "SKY", "FOLIAGE", "CEMENT",
                                                    "WINDOW", "PATH", "GRASS")},
                     {c: 300 for c in ("BRICKFACE", "SKY", "FOLIAGE", "CEMENT", "WINDOW",
                                       "PATH", "GRASS")}),
    "shuttle": (58000, 9, 7, counts("1234567", [45586, 50, 171, 8903, 3267, 10, 13]),
                counts("1234567", [11478, 13, 39, 2155, 809, 4, 2])),
    "tic-tac-toe": (958, 9, 2, {"positive": 626, "negative": 332}, None),
    "vehicle": (846, 18, 4, {"opel": 212, "saab": 217, "bus": 218, "van": 199}, None),
    "vowel": (990, 10, 11, {str(c): 90 for c in range(11)}, {str(c): 42 for c in range(11)}),
    "waveform": (5000, 21, 3, {"0": 1657, "1": 1647, "2": 1696}, None),
    "waveform-300": (5000, 21, 3, {"0": 1657, "1": 1647, "2": 1696}, "4700 rows"),
    "wdbc": (569, 30, 2, {"B": 357, "M": 212}, None),
    "wpbc": (198, 32, 2, {"N": 151, "R": 47}, None),
    "yeast": (1484, 8, 10, {"CYT": 463, "NUC": 429, "MIT": 244, "ME3": 163, "ME2": 51,
                            "ME1": 44, "EXC": 35, "VAC": 30, "POX": 20, "ERL": 5}, None),
    "zoo": (101, 16, 7, counts("1234567", [41, 20, 5, 13, 4, 8, 10]), None),
}
MISSING_CELLS = {"adult": 6465, "adult-10000": 3521, "dermatology": 8, "wpbc": 4}
POKER_TRAIN_COUNTS = [12493, 10599, 1206, 513, 93, 54, 36, 6, 5, 5]
DOWNLOAD_ONLY = {"a5a", "connect-4", "fourclass", "isolet", "mnist", "poker", "poker525k",
                 "splice"}
GENERATED = {"long-servedio-5", "long-servedio-20", "mcboost-gaussians"}


def mirror_listing(uci_dir: Path) -> dict[str, tuple[str, str]]:
    out = {}
    for line in (uci_dir / "CHECKSUMS.tsv").read_text().splitlines()[1:]:
        path, _size, sha, status, *_ = line.split("\t")
        out[path] = (sha, status)
    return out


@pytest.fixture(scope="module")
def real_home(uci_dir, uci_mirror, tmp_path_factory) -> Path:
    """A cache holding every catalog file present in the mirror, fetched over loopback HTTP."""
    home = tmp_path_factory.mktemp("real_cache")
    for name, spec in catalog().items():
        if spec.source != "files":
            continue
        if all((uci_dir / f.path).is_file() for f in spec.files):
            fetch(name, mirror=uci_mirror, data_home=home)
            continue
        for f in spec.files:     # e.g. poker's training file, without its test file
            if (uci_dir / f.path).is_file():
                download.fetch_file(f.path, f.sha256, md5=f.md5, sources=f.sources,
                                    repository=spec.repository, mirror=uci_mirror, home=home)
    return home


def test_the_lists_cover_the_catalog(uci_dir):
    assert set(EXPECTED) | DOWNLOAD_ONLY | GENERATED == set(catalog())
    for name in DOWNLOAD_ONLY:      # indeed not in this mirror
        files = get_spec(name).files or get_spec(get_spec(name).derived.base).files
        assert not all((uci_dir / f.path).is_file() for f in files), name


def test_every_mirror_file_verifies(real_home, uci_dir):
    listed = mirror_listing(uci_dir)
    results = {f.path: r for _, f, r in verify_cache(data_home=real_home)}
    data_files = {p for p in listed if not p.endswith(".names")}
    assert set(results) == data_files
    for path, r in results.items():
        sha, status = listed[path]
        assert r.status == "ok", path
        # Published checksums for the "exact" files; the first download's sha256 recorded for
        # the "unverified" ones, which must then be what the mirror lists.
        assert (r.origin, r.algorithm) == (("published" if status == "exact" else "recorded"),
                                           "sha256"), path
        assert r.expected == sha, path
    # The cache holds the files (and the records of unknown digests) and nothing else.
    cached = {p.relative_to(real_home / "uci").as_posix()
              for p in (real_home / "uci").rglob("*") if p.is_file()}
    recorded = {p for p in data_files if listed[p][1] != "exact"}
    assert cached == data_files | {p + ".sha256" for p in recorded}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_dataset_shape_and_class_counts(name, real_home):
    ds = load_dataset(name, data_home=real_home, offline=True)
    rows, features, n_classes, want, want_test = EXPECTED[name]
    assert ds.X.shape == (rows, features) and ds.X.dtype == np.float64
    assert ds.y.shape == (rows,) and ds.y.dtype == np.int32 and ds.n_classes == n_classes
    got = dict(zip(ds.classes, np.bincount(ds.y, minlength=n_classes).tolist(), strict=True))
    assert got == want
    assert int(np.isnan(ds.X).sum()) == MISSING_CELLS.get(name, 0)
    spec = get_spec(name)
    if want_test is None:
        assert ds.test_mask is None
    else:
        assert ds.test_mask is not None and int(ds.test_mask.sum()) == spec.test_rows
        assert not ds.test_mask[:spec.rows - spec.test_rows].any()      # test part last
        if isinstance(want_test, dict):
            test = np.bincount(ds.y[ds.test_mask], minlength=n_classes).tolist()
            assert dict(zip(ds.classes, test, strict=True)) == want_test
    if spec.source == "files":
        for j, feat in enumerate(spec.features):
            if feat.categorical:       # codes index the catalog's values
                codes = ds.X[~np.isnan(ds.X[:, j]), j]
                assert set(np.unique(codes)) <= set(range(len(feat.values))), feat.name


def test_poker_training_file(real_home):
    """poker needs its download-only test file; its training file is checked alone."""
    spec = get_spec("poker")
    train = spec.files[0]
    X, y = parse_file(download.cache_path(train.path, real_home), spec, train)
    assert X.shape == (25010, 10) and np.bincount(y).tolist() == POKER_TRAIN_COUNTS
    assert X[0].tolist() == [0, 10, 0, 11, 0, 13, 0, 12, 0, 1] and y[0] == 9   # a royal flush


@pytest.mark.parametrize("name", ["krkopt", "tic-tac-toe", "balance-scale"])
def test_exact_generators_give_the_files_rows(name, real_home):
    ok, why = generator_status(name)
    assert ok, why      # the generators ship with the package
    files = load_dataset(name, data_home=real_home, offline=True, source="files")
    generated = load_dataset(name, source="generator")
    assert generated.classes == files.classes
    assert generated.feature_names == files.feature_names
    np.testing.assert_array_equal(generated.categorical, files.categorical)

    # The same rows in the same order, with the same codes.
    np.testing.assert_array_equal(generated.X, files.X)
    np.testing.assert_array_equal(generated.y, files.y)


def test_shuttle_through_its_official_dot_z(uci_dir, tmp_path, data_home):
    """UCI ships shuttle.trn compressed; the checksum is the decompressed file's."""
    mirror = tmp_path / "mirror" / "statlog" / "shuttle"
    mirror.mkdir(parents=True)
    raw = (uci_dir / "statlog/shuttle/shuttle.trn").read_bytes()
    (mirror / "shuttle.trn.Z").write_bytes(compress_lzw(raw))
    shutil.copy(uci_dir / "statlog/shuttle/shuttle.tst", mirror / "shuttle.tst")
    ds = load_dataset("shuttle", mirror=str(tmp_path / "mirror"), data_home=data_home)
    assert ds.n_samples == 58000 and int(ds.test_mask.sum()) == 14500
    cached = data_home / "uci/statlog/shuttle/shuttle.trn"
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == get_spec("shuttle").files[0].sha256
    assert not (data_home / "uci/statlog/shuttle/shuttle.trn.Z").exists()
