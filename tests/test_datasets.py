"""Tests of the datasets layer: catalog, download (through loopback servers), cache, parsers."""

from __future__ import annotations

import dataclasses
import hashlib
import socket
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import numpy as np
import pytest

from mcboost_cli.datasets import (
    UCI_BASE,
    Dataset,
    DatasetError,
    dataset_names,
    download,
    fetch,
    get_spec,
    list_datasets,
    load_dataset,
    mirrors_from,
)
from mcboost_cli.datasets import data_home as resolve_data_home
from mcboost_cli.datasets.catalog import DatasetSpec, Repository, SourceSpec
from mcboost_cli.datasets.parsers import parse_file
from mcboost_cli.errors import UserError

# Class counts, as documented in each dataset's .names file (and checked against the files).
LETTER_COUNTS = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [
    789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792,
    783, 753, 803, 783, 758, 748, 796, 813, 764, 752, 787, 786, 734], strict=True))
CLASS_COUNTS = {
    "car": {"unacc": 1210, "acc": 384, "good": 69, "vgood": 65},
    "nursery": {"not_recom": 4320, "recommend": 2, "very_recom": 328, "priority": 4266,
                "spec_prior": 4044},
    "letter": LETTER_COUNTS,
    "segmentation": {c: 330 for c in ("BRICKFACE", "SKY", "FOLIAGE", "CEMENT", "WINDOW",
                                      "PATH", "GRASS")},
}
SHAPES = {  # rows, features, classes, categorical features
    "car": (1728, 6, 4, 6),
    "nursery": (12960, 8, 5, 8),
    "letter": (20000, 16, 26, 0),
    "segmentation": (2310, 19, 7, 0),
}
FIRST_ROW = {  # decoded first data row of each file: (X[0], y[0])
    "car": ([0, 0, 0, 0, 0, 0], 0),                        # vhigh,vhigh,2,2,small,low,unacc
    "nursery": ([0, 0, 0, 0, 0, 0, 0, 0], 1),              # usual,...,recommended -> recommend
    "letter": ([2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10, 8, 0, 8, 0, 8], 19),          # T,...
    "segmentation": ([140.0, 125.0, 9, 0.0, 0.0, 0.2777779, 0.06296301, 0.66666675,
                      0.31111118, 6.185185, 7.3333335, 7.6666665, 3.5555556, 3.4444444,
                      4.4444447, -7.888889, 7.7777777, 0.5456349, -1.1218182], 0),
}
CAR = "car/car.data"
CAR_SHA = get_spec("car").files[0].sha256


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch):
    # Retries stay on (they are under test) but without waiting.
    monkeypatch.setattr(download, "BACKOFF", 0.0)


def files_under(root: Path) -> list[Path]:
    """Every file below ``root``, temporary ones included."""
    return sorted(p for p in Path(root).rglob("*") if p.is_file())


def assert_one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "\r" not in text and text
    assert isinstance(exc, DatasetError) and isinstance(exc, UserError)
    return text


def dead_url() -> str:
    """A loopback URL where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def make_handler(respond, hits: list):
    """A request handler class calling ``respond(handler, attempt_number)`` per GET."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            respond(self, len(hits))

        def log_message(self, format, *args):
            pass

    return Handler


def send_body(handler: BaseHTTPRequestHandler, body: bytes, length: int | None = None):
    handler.send_response(200)
    handler.send_header("Content-Type", "application/octet-stream")
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    handler.end_headers()
    handler.wfile.write(body)


# ---------------------------------------------------------------------------------------------
# Catalog

ALL_NAMES = [
    "a5a", "abalone", "adult", "adult-10000", "australian", "balance-scale", "car", "cnae9",
    "connect-4",
    "dermatology", "ecoli", "fourclass", "fourclass-scale", "glass", "heart", "ionosphere",
    "isolet", "krkopt", "letter", "letter-16000", "long-servedio-20", "long-servedio-5",
    "mcboost-gaussians", "mnist", "nursery", "optdigits", "pendigits", "pima", "poker", "poker525k", "satimage",
    "segmentation", "shuttle", "splice", "tic-tac-toe", "vehicle", "vowel", "waveform",
    "waveform-300", "wdbc", "wpbc", "yeast", "zoo"]
PAPERS = {"DMCBoost", "MCBoost", "DirectBoost", "REBEL", "Coherence"}
# Every dataset the five papers name (datasets.md, paper_tables.md) has an entry.
PAPER_DATASETS = {
    "DMCBoost": ["abalone", "cnae9", "poker525k", "segmentation", "waveform", "nursery", "car",
                 "krkopt", "letter"],
    "MCBoost": ["satimage", "letter-16000", "pendigits", "optdigits", "shuttle", "isolet",
                "mcboost-gaussians"],
    "DirectBoost": ["tic-tac-toe", "pima", "australian", "fourclass", "ionosphere", "splice",
                    "wdbc", "wpbc", "heart", "a5a", "long-servedio-5", "long-servedio-20",
                    "adult-10000"],
    "REBEL": ["glass", "vowel", "satimage", "mnist", "pendigits", "segmentation", "shuttle",
              "letter-16000", "optdigits", "isolet"],
    "Coherence": ["vowel", "waveform-300", "segmentation", "optdigits", "pendigits",
                  "satimage"],
}


def test_catalog_names_and_listing(data_home):
    assert dataset_names() == ALL_NAMES
    rows = {d["name"]: d for d in list_datasets(data_home=data_home)}
    assert list(rows) == ALL_NAMES
    for name, (n, f, k, _) in SHAPES.items():
        d = rows[name]
        assert (d["rows"], d["features"], d["classes"]) == (n, f, k)
        assert d["cached"] is False
        assert d["split"] == ("predefined" if name == "segmentation" else "none")
    assert rows["segmentation"]["files"] == ["image/segmentation.data", "image/segmentation.test"]
    assert rows["segmentation"]["split_sizes"] == (210, 2100)
    for paper, names in PAPER_DATASETS.items():
        for name in names:
            assert paper in rows[name]["papers"], (paper, name)
    for d in rows.values():
        assert {p.rstrip("?") for p in d["papers"]} <= PAPERS
        assert d["source"] in ("files", "generator", "derived")


def test_catalog_entries_are_complete():
    for name in ALL_NAMES:
        spec = get_spec(name)
        assert spec.citation and spec.license and spec.title, name
        if spec.source == "files":
            assert spec.repository is not None and spec.features and spec.classes
            for f in spec.files:
                # Official URLs: the repository's base + the path without the mirror prefix.
                for url in spec.repository.official_urls(f.path):
                    assert url.startswith("http") and url.endswith(f.path.split("/")[-1])
        elif spec.source == "generator":
            assert spec.generator is not None and not spec.files
        else:
            assert spec.derived is not None and get_spec(spec.derived.base).source != "derived"
    assert get_spec("splice").repository.official_urls("libsvm/binary/splice.t") == [
        "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/splice.t"]
    assert get_spec("mnist").repository.official_urls("mnist/t10k-labels-idx1-ubyte.gz") == [
        "http://yann.lecun.com/exdb/mnist/t10k-labels-idx1-ubyte.gz",
        "https://ossci-datasets.s3.amazonaws.com/mnist/t10k-labels-idx1-ubyte.gz"]
    assert get_spec("car").repository.official_urls("car/car.data") == [UCI_BASE + CAR]
    # .Z files are decompressed into the cache; the plain name is the cache path.
    (shuttle_trn, _) = get_spec("shuttle").files
    assert [(a.path, a.compression) for a in shuttle_trn.sources] == [
        ("statlog/shuttle/shuttle.trn.Z", "Z"), ("statlog/shuttle/shuttle.trn", None)]
    assert [f.md5 for f in get_spec("mnist").files] == [
        "f68b3c2dcbeaaa9fbdd348bbdeb94873", "d53e105ee54ea40749a09fcbcd1e9432",
        "9fb629c4189551a2d022fa330f9573f3", "ec29112dd5afa0611ce80d1b7f02629c"]


def test_catalog_checksums_match_mirror_list(uci_dir):
    listed = {}
    for line in (uci_dir / "CHECKSUMS.tsv").read_text().splitlines()[1:]:
        path, size, sha, status, rows, *_ = line.split("\t")
        listed[path] = (sha, status, int(rows))
    seen = set()
    for name in dataset_names():
        for f in get_spec(name).files:
            if f.path not in listed:       # download only: no published sha256 known here
                assert f.sha256 is None, f.path
                continue
            seen.add(f.path)
            sha, status, rows = listed[f.path]
            # "exact" files carry their published sha256; "unverified" ones none (recorded).
            assert f.sha256 == (sha if status == "exact" else None), f.path
            if f.skip_lines == 0 and not get_spec(name).format.optional_header:
                assert f.rows == rows, f.path
    data_files = {p for p in listed if not p.endswith(".names")}
    assert data_files <= seen, data_files - seen     # every data file of the mirror is used


def test_unknown_dataset_lists_known_names():
    with pytest.raises(DatasetError) as info:
        load_dataset("nursry")
    text = assert_one_line(info.value)
    assert "'nursry' is not in the catalog" in text
    assert "did you mean 'nursery'" in text
    assert "known: a5a, abalone, adult," in text and "zoo" in text


# ---------------------------------------------------------------------------------------------
# Loading through the loopback mirror

@pytest.mark.parametrize("name", sorted(SHAPES))
def test_load_over_http(name, uci_mirror, data_home):
    ds = load_dataset(name, mirror=uci_mirror, data_home=data_home)
    n, f, k, n_cat = SHAPES[name]
    assert isinstance(ds, Dataset) and ds.name == name
    assert ds.X.shape == (n, f) and ds.X.dtype == np.float64
    assert ds.y.shape == (n,) and ds.y.dtype == np.int32
    assert (ds.n_samples, ds.n_features, ds.n_classes) == (n, f, k)
    assert len(ds.feature_names) == f and len(ds.classes) == k
    assert ds.categorical.dtype == bool and ds.categorical.sum() == n_cat
    assert not np.isnan(ds.X).any()

    counts = dict(zip(ds.classes, np.bincount(ds.y, minlength=k).tolist(), strict=True))
    assert counts == CLASS_COUNTS[name]

    spec = get_spec(name)
    for j, feat in enumerate(spec.features):
        if feat.categorical:
            codes = ds.X[:, j]
            assert set(np.unique(codes)) == set(range(len(feat.values))), feat.name

    x0, y0 = FIRST_ROW[name]
    np.testing.assert_allclose(ds.X[0], x0)
    assert ds.y[0] == y0
    assert ds.source.startswith("UCI: " + spec.files[0].path + " (sha256 "
                                + spec.files[0].sha256[:8])

    for f_spec in spec.files:
        cached = data_home / "uci" / f_spec.path
        assert hashlib.sha256(cached.read_bytes()).hexdigest() == f_spec.sha256
    assert files_under(data_home) == sorted(data_home / "uci" / f.path for f in spec.files)


def test_segmentation_predefined_split(uci_mirror, data_home):
    ds = load_dataset("segmentation", mirror=uci_mirror, data_home=data_home)
    assert ds.test_mask is not None and ds.test_mask.dtype == bool
    assert ds.test_mask.sum() == 2100 and not ds.test_mask[:210].any()
    assert np.bincount(ds.y[~ds.test_mask]).tolist() == [30] * 7
    assert np.bincount(ds.y[ds.test_mask]).tolist() == [300] * 7
    assert load_dataset("car", mirror=uci_mirror, data_home=data_home).test_mask is None


def test_fetch_returns_cached_paths_and_listing_sees_them(uci_mirror, data_home):
    paths = fetch("segmentation", mirror=uci_mirror, data_home=data_home)
    assert paths == [data_home / "uci/image/segmentation.data",
                     data_home / "uci/image/segmentation.test"]
    cached = {d["name"]: d["cached"] for d in list_datasets(data_home=data_home)}
    assert [n for n, c in cached.items() if c] == ["segmentation"]
    offline = {d["name"]: d["offline"] for d in list_datasets(data_home=data_home)}
    assert offline["segmentation"] == "cache" and offline["car"] == "no"


def test_local_folder_mirror_is_copied(uci_dir, data_home):
    ds = load_dataset("car", mirror=str(uci_dir), data_home=data_home)
    assert ds.n_samples == 1728
    cached = data_home / "uci" / CAR
    assert not cached.is_symlink()
    assert cached.read_bytes() == (uci_dir / CAR).read_bytes()


def test_file_url_mirror(uci_dir, data_home):
    assert load_dataset("car", mirror=uci_dir.as_uri(), data_home=data_home).n_samples == 1728


def test_env_mirror_list_falls_through(monkeypatch, uci_mirror):
    # A dead first mirror, then the working one; comma and space separated; default data home.
    monkeypatch.setenv("MCBOOST_MIRROR", f"{dead_url()} , {uci_mirror}")
    ds = load_dataset("car")
    assert ds.n_samples == 1728
    assert (resolve_data_home() / "uci" / CAR).is_file()


def test_cache_hit_does_not_touch_network(serve, uci_dir, data_home):
    hits: list = []
    url = serve(make_handler(lambda h, n: send_body(h, (uci_dir / CAR).read_bytes()), hits))
    load_dataset("car", mirror=url, data_home=data_home)
    assert hits == ["/car/car.data"]
    load_dataset("car", mirror=url, data_home=data_home)
    load_dataset("car", mirror=dead_url(), data_home=data_home)
    load_dataset("car", data_home=data_home, offline=True)
    assert hits == ["/car/car.data"]


def test_verify_refetches_a_corrupt_cached_file(uci_mirror, data_home):
    fetch("car", mirror=uci_mirror, data_home=data_home)
    cached = data_home / "uci" / CAR
    cached.write_bytes(cached.read_bytes().replace(b"unacc", b"xxxxx", 1))
    # Without verify a changed cached file is refused (re-hashed at every load), naming the
    # file and the command that fetches it again; no other source stands in for it.
    with pytest.raises(download.CachedFileChanged) as info:
        load_dataset("car", mirror=uci_mirror, data_home=data_home)
    line = assert_one_line(info.value)
    assert str(cached) in line and "mcboost datasets fetch car --verify" in line
    ds = load_dataset("car", mirror=uci_mirror, data_home=data_home, verify=True)
    assert ds.n_samples == 1728
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == CAR_SHA


def test_wrong_shape_is_reported(data_home, monkeypatch):
    # Files that pass their digest check (here: none is checked) but parse to the wrong shape,
    # as with a wrong catalog entry. A well-formed file with the right row count but a single
    # class:
    monkeypatch.setattr(download, "_expected", lambda *a, **k: None)
    cached = data_home / "uci" / CAR
    cached.parent.mkdir(parents=True)
    cached.write_text("vhigh,vhigh,2,2,small,low,unacc\n" * 1728)
    with pytest.raises(DatasetError) as info:
        load_dataset("car", data_home=data_home)
    assert "classes 1 (expected 4)" in assert_one_line(info.value)
    cached.write_text("vhigh,vhigh,2,2,small,low,unacc\n" * 10)
    with pytest.raises(DatasetError) as info:
        load_dataset("car", data_home=data_home)
    assert "10 data rows, expected 1728" in assert_one_line(info.value)
    cached.write_text("vhigh,vhigh,2,2,small,low\n")
    with pytest.raises(DatasetError) as info:
        load_dataset("car", data_home=data_home)
    assert f"{cached}:1: 6 fields separated by ',', expected 7" in assert_one_line(info.value)


def test_parser_skips_blank_lines_and_reads_missing_values(tmp_path):
    spec = get_spec("car")
    path = tmp_path / "car.data"
    # Blank and whitespace-only lines, CRLF, spaces around cells, '?' in a categorical column.
    path.write_text("\nvhigh,?,2,2,small,low,unacc\r\n\n  \n"
                    "low, low ,5more,more,big,high,vgood\n\n")
    X, y = parse_file(path, spec, dataclasses.replace(spec.files[0], rows=2))
    assert np.isnan(X[0, 1]) and X[0, 0] == 0
    np.testing.assert_array_equal(X[1], [3, 3, 3, 2, 2, 2])
    assert y.tolist() == [0, 3] and y.dtype == np.int32


# ---------------------------------------------------------------------------------------------
# Failures, against small loopback servers

def test_checksum_mismatch_leaves_nothing(serve, data_home):
    body = b"not the car data\n"
    hits: list = []
    url = serve(make_handler(lambda h, n: send_body(h, body), hits))
    with pytest.raises(DatasetError) as info:
        load_dataset("car", mirror=url, data_home=data_home)
    text = assert_one_line(info.value)
    assert f"cannot fetch {CAR} from {url}{CAR}" in text
    assert f"expected {CAR_SHA}" in text
    assert f"got {hashlib.sha256(body).hexdigest()}" in text
    assert "discarded" in text
    assert len(hits) == 1              # a wrong checksum is not retried
    assert files_under(data_home) == []


def test_404_on_first_mirror_then_second(serve, uci_mirror, data_home):
    hits: list = []
    first = serve(make_handler(lambda h, n: h.send_error(404), hits))
    ds = load_dataset("car", mirror=[first, uci_mirror], data_home=data_home)
    assert ds.n_samples == 1728
    assert hits == ["/car/car.data"]   # a 404 is not retried


def test_every_source_failing_is_one_error_naming_each(serve, data_home):
    not_found = serve(make_handler(lambda h, n: h.send_error(404), []))
    broken = serve(make_handler(lambda h, n: h.send_error(503), []))
    refused = dead_url()
    with pytest.raises(DatasetError) as info:
        fetch("car", mirror=f"{not_found} {broken} {refused}", data_home=data_home)
    text = assert_one_line(info.value)
    assert "from any of 3 sources" in text
    assert f"{not_found}{CAR} [HTTP 404" in text
    assert f"{broken}{CAR} [HTTP 503" in text and "(3 attempts)" in text
    assert f"{refused}{CAR} [connection refused]" in text
    assert "MCBOOST_MIRROR" in text
    assert files_under(data_home) == []


def test_connection_dropped_mid_file_is_retried_then_fails_cleanly(serve, uci_dir, data_home):
    data = (uci_dir / CAR).read_bytes()
    hits: list = []

    def truncated(handler, n):
        send_body(handler, data[: len(data) // 2], length=len(data))   # then the socket closes

    url = serve(make_handler(truncated, hits))
    with pytest.raises(DatasetError) as info:
        fetch("car", mirror=url, data_home=data_home)
    text = assert_one_line(info.value)
    assert f"connection closed after {len(data) // 2} of {len(data)} bytes" in text
    assert len(hits) == 1 + download.RETRIES
    assert files_under(data_home) == []


def test_connection_dropped_once_then_retry_succeeds(serve, uci_dir, data_home):
    data = (uci_dir / CAR).read_bytes()
    hits: list = []

    def flaky(handler, n):
        if n == 1:
            send_body(handler, data[:1000], length=len(data))
        else:
            send_body(handler, data)

    url = serve(make_handler(flaky, hits))
    assert load_dataset("car", mirror=url, data_home=data_home).n_samples == 1728
    assert len(hits) == 2
    assert files_under(data_home) == [data_home / "uci" / CAR]


def test_server_slower_than_timeout(serve, data_home):
    def slow(handler, n):
        time.sleep(3)
        send_body(handler, b"too late")

    url = serve(make_handler(slow, []))
    start = time.monotonic()
    with pytest.raises(DatasetError) as info:
        fetch("car", mirror=url, data_home=data_home, timeout=0.5)
    elapsed = time.monotonic() - start
    text = assert_one_line(info.value)
    assert "timed out after 0.5 s" in text and f"{url}{CAR}" in text
    assert elapsed < 0.5 * (1 + download.RETRIES) + 1.0
    assert files_under(data_home) == []


def test_offline_with_empty_cache_fails_fast(serve, monkeypatch, data_home):
    hits: list = []
    monkeypatch.setenv("MCBOOST_MIRROR", serve(make_handler(lambda h, n: h.send_error(404), hits)))
    start = time.monotonic()
    with pytest.raises(DatasetError) as info:
        load_dataset("segmentation", data_home=data_home, offline=True)
    assert time.monotonic() - start < 0.5
    text = assert_one_line(info.value)
    assert "image/segmentation.data, image/segmentation.test" in text
    assert "offline" in text and "mcboost datasets fetch segmentation" in text
    assert "MCBOOST_MIRROR" in text
    assert hits == []
    assert files_under(data_home) == []


def test_offline_may_use_a_local_folder_mirror(uci_dir, data_home):
    ds = load_dataset("car", mirror=str(uci_dir), data_home=data_home, offline=True)
    assert ds.n_samples == 1728


def test_interrupt_during_download_leaves_no_temp_file(monkeypatch, uci_mirror, data_home):
    real_stream = download._stream

    def interrupted(src, out, timeout, network):
        out.write(src.read(100))
        raise KeyboardInterrupt

    monkeypatch.setattr(download, "_stream", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fetch("car", mirror=uci_mirror, data_home=data_home)
    assert files_under(data_home) == []
    monkeypatch.setattr(download, "_stream", real_stream)
    assert fetch("car", mirror=uci_mirror, data_home=data_home)[0].is_file()


# ---------------------------------------------------------------------------------------------
# Locations and mirror lists

def test_data_home_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("MCBOOST_DATA", str(tmp_path / "env"))
    assert resolve_data_home() == tmp_path / "env"
    assert resolve_data_home(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("MCBOOST_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resolve_data_home() == tmp_path / "xdg" / "mcboost"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resolve_data_home() == tmp_path / "home" / ".cache" / "mcboost"


def test_mirrors_from(monkeypatch, tmp_path):
    assert mirrors_from() == [UCI_BASE]
    assert UCI_BASE == "https://archive.ics.uci.edu/ml/machine-learning-databases/"
    monkeypatch.setenv("MCBOOST_MIRROR", "http://a.example/uci, https://b.example/x/\n"
                                         f"{tmp_path}")
    assert mirrors_from() == ["http://a.example/uci/", "https://b.example/x/",
                              str(tmp_path.resolve())]
    # The argument wins over the environment.
    assert mirrors_from("http://c.example") == ["http://c.example/"]
    assert mirrors_from([tmp_path.as_uri()]) == [str(tmp_path.resolve())]


@pytest.mark.parametrize("bad, words", [
    ("ftp://example.org/uci", "unsupported scheme 'ftp'"),
    ("/no/such/folder", "does not exist"),
])
def test_mirrors_from_rejects_bad_mirrors(bad, words):
    with pytest.raises(DatasetError) as info:
        mirrors_from(bad)
    assert words in assert_one_line(info.value)


# ---------------------------------------------------------------------------------------------
# Compressed downloads: .Z (unix compress), .gz, .zip members

def compress_lzw(data: bytes, maxbits: int = 16) -> bytes:
    """Unix ``compress`` (.Z: LZW, block mode, no CLEAR codes): an encoder for the tests.

    Code widths follow the decoder's schedule (it widens when its table, one entry behind the
    encoder's, is full) and each run of equal-width codes is padded to a multiple of `width`
    bytes, as compress writes codes in blocks of 8. Checked against gzip's own .Z decoder.
    """
    table = {bytes([i]): i for i in range(256)}
    next_code, codes, w = 257, [], b""
    for byte in data:
        wc = w + bytes([byte])
        if wc in table:
            w = wc
            continue
        codes.append(table[w])
        if next_code < 1 << maxbits:
            table[wc] = next_code
            next_code += 1
        w = bytes([byte])
    if w:
        codes.append(table[w])
    out = bytearray(b"\x1f\x9d" + bytes([0x80 | maxbits]))
    bits, mask, end = 9, 511, 256
    acc = nacc = 0
    group_start = len(out)
    for i, code in enumerate(codes):
        if i and end >= mask and bits < maxbits:
            if nacc:
                out.append(acc & 0xFF)
            acc = nacc = 0
            pad = (len(out) - group_start) % bits
            if pad:
                out.extend(bytes(bits - pad))
            group_start = len(out)
            bits, mask = bits + 1, mask * 2 + 1
        acc |= code << nacc
        nacc += bits
        while nacc >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nacc -= 8
        if i and end < mask:
            end += 1
    if nacc:
        out.append(acc & 0xFF)
    return bytes(out)


def car_bytes(uci_dir: Path) -> bytes:
    return (uci_dir / CAR).read_bytes()


def make_zip(path: Path, members: dict[str, bytes]) -> bytes:
    import zipfile
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path.read_bytes()


def mirror_with(tmp_path: Path, files: dict[str, bytes]) -> Path:
    root = tmp_path / "mirror"
    root.mkdir(exist_ok=True)
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


Z_CAR = (SourceSpec("car/car.data.Z", "Z"), SourceSpec(CAR))


def test_lzw_test_encoder_matches_gzip_decoder(uci_dir):
    import shutil
    import subprocess

    from unlzw3 import unlzw
    data = car_bytes(uci_dir) * 12        # 620 kB: the code width reaches 16 bits
    z = compress_lzw(data)
    assert unlzw(z) == data
    if shutil.which("gzip"):
        assert subprocess.run(["gzip", "-dc"], input=z, capture_output=True,
                              check=True).stdout == data


def test_dot_z_is_decompressed_into_the_cache(tmp_path, uci_dir, data_home):
    mirror = mirror_with(tmp_path, {"car/car.data.Z": compress_lzw(car_bytes(uci_dir))})
    path = download.fetch_file(CAR, CAR_SHA, sources=Z_CAR, mirror=str(mirror), home=data_home)
    assert path == data_home / "uci" / CAR and path.read_bytes() == car_bytes(uci_dir)
    assert files_under(data_home) == [path]       # no .Z, no temporary file left


def test_dot_z_over_http_then_plain_alternative(serve, uci_dir, data_home):
    hits: list = []
    z = compress_lzw(car_bytes(uci_dir))

    def respond(handler, n):
        if handler.path.endswith(".Z"):
            send_body(handler, z)
        else:
            handler.send_error(404)

    url = serve(make_handler(respond, hits))
    download.fetch_file(CAR, CAR_SHA, sources=Z_CAR, mirror=url, home=data_home)
    assert hits == ["/car/car.data.Z"]
    assert (data_home / "uci" / CAR).read_bytes() == car_bytes(uci_dir)


def test_corrupt_dot_z_is_an_error_and_leaves_nothing(tmp_path, uci_dir, data_home):
    good = compress_lzw(car_bytes(uci_dir))
    mirror = mirror_with(tmp_path, {"car/car.data.Z": good[:3] + b"\xff" * 40})
    with pytest.raises(DatasetError) as info:
        download.fetch_file(CAR, CAR_SHA, sources=Z_CAR[:1], mirror=str(mirror), home=data_home)
    assert "not a valid .Z (unix compress) file" in assert_one_line(info.value)
    assert files_under(data_home) == []
    # A .Z whose content is not the published file: the checksum of the content catches it.
    mirror = mirror_with(tmp_path, {"car/car.data.Z": compress_lzw(b"other bytes\n")})
    with pytest.raises(DatasetError) as info:
        download.fetch_file(CAR, CAR_SHA, sources=Z_CAR[:1], mirror=str(mirror), home=data_home)
    assert f"sha256 mismatch: expected {CAR_SHA}" in assert_one_line(info.value)
    assert files_under(data_home) == []


def test_gz_alternative_and_corrupt_gz(tmp_path, uci_dir, data_home):
    import gzip
    sources = (SourceSpec("car/car.data.gz", "gz"),)
    mirror = mirror_with(tmp_path, {"car/car.data.gz": gzip.compress(car_bytes(uci_dir))})
    path = download.fetch_file(CAR, CAR_SHA, sources=sources, mirror=str(mirror), home=data_home)
    assert path.read_bytes() == car_bytes(uci_dir) and files_under(data_home) == [path]
    path.unlink()
    truncated = gzip.compress(car_bytes(uci_dir))[:500]
    mirror = mirror_with(tmp_path, {"car/car.data.gz": truncated})
    with pytest.raises(DatasetError) as info:
        download.fetch_file(CAR, CAR_SHA, sources=sources, mirror=str(mirror), home=data_home)
    assert "not a valid gzip file" in assert_one_line(info.value)
    assert files_under(data_home) == []


def test_official_zip_alternative(serve, tmp_path, uci_dir, data_home):
    """Without a mirror: the repository's URLs first (404 here), then the official zip."""
    archive = make_zip(tmp_path / "a.zip", {"car.names": b"doc", "car.data": car_bytes(uci_dir)})
    hits: list = []

    def respond(handler, n):
        if handler.path == "/static/car+evaluation.zip":
            send_body(handler, archive)
        else:
            handler.send_error(404)

    url = serve(make_handler(respond, hits))
    repo = Repository("uci", "UCI", "", (url + "archive/",))
    sources = (SourceSpec(CAR), SourceSpec(url + "static/car+evaluation.zip", "zip", "car.data"))
    path = download.fetch_file(CAR, CAR_SHA, sources=sources, repository=repo, home=data_home)
    assert hits == ["/archive/car/car.data", "/static/car+evaluation.zip"]
    assert path.read_bytes() == car_bytes(uci_dir) and files_under(data_home) == [path]
    # A mirror replaces the official sites, including their absolute-URL alternatives.
    path.unlink()
    with pytest.raises(DatasetError) as info:
        download.fetch_file(CAR, CAR_SHA, sources=sources, repository=repo, home=data_home,
                            mirror=url + "mirror/")
    assert f"from {url}mirror/{CAR}: HTTP 404" in assert_one_line(info.value)


@pytest.mark.parametrize("evil", ["../evil.txt", "/tmp/evil.txt", "sub/../../evil.txt",
                                  "..\\evil.txt"])
def test_zip_with_path_escape_is_rejected(serve, tmp_path, uci_dir, data_home, evil):
    archive = make_zip(tmp_path / "a.zip", {"car.data": car_bytes(uci_dir), evil: b"gotcha"})
    url = serve(make_handler(lambda h, n: send_body(h, archive), []))
    sources = (SourceSpec("car/car.zip", "zip", "car.data"),)
    with pytest.raises(DatasetError) as info:
        download.fetch_file(CAR, CAR_SHA, sources=sources, mirror=url, home=data_home)
    text = assert_one_line(info.value)
    assert f"unsafe member {evil!r}" in text and "the archive was rejected" in text
    assert files_under(data_home) == []
    assert not list(tmp_path.rglob("evil.txt")) and not Path("/tmp/evil.txt").exists()


def test_zip_without_the_member(tmp_path, data_home):
    mirror = mirror_with(tmp_path, {})
    make_zip(mirror / "x.zip", {"other.data": b"1,2\n"})
    with pytest.raises(DatasetError) as info:
        download.fetch_file(CAR, CAR_SHA, sources=(SourceSpec("x.zip", "zip", "car.data"),),
                            mirror=str(mirror), home=data_home)
    assert "zip archive has no member 'car.data'" in assert_one_line(info.value)
    (mirror / "bad.zip").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(DatasetError) as info:
        download.fetch_file(CAR, CAR_SHA, sources=(SourceSpec("bad.zip", "zip", "car.data"),),
                            mirror=str(mirror), home=data_home)
    assert "not a valid zip archive" in assert_one_line(info.value)
    assert files_under(data_home) == []


# ---------------------------------------------------------------------------------------------
# Digests: md5, unknown (recorded at first download), verification of the cache

def test_md5_digest(tmp_path, data_home):
    body = b"some idx bytes"
    md5 = hashlib.md5(body).hexdigest()
    mirror = mirror_with(tmp_path, {"mnist/x.gz": body})
    path = download.fetch_file("mnist/x.gz", None, md5=md5, mirror=str(mirror), home=data_home)
    assert path.read_bytes() == body
    assert not (data_home / "uci/mnist/x.gz.sha256").exists()     # published md5: no record
    assert download.check_cached("mnist/x.gz", None, md5, data_home).status == "ok"
    path.unlink()
    with pytest.raises(DatasetError) as info:
        download.fetch_file("mnist/x.gz", None, md5="0" * 32, mirror=str(mirror), home=data_home)
    assert f"md5 mismatch: expected {'0' * 32}, got {md5}" in assert_one_line(info.value)
    assert files_under(data_home / "uci" / "mnist") == []


def test_unknown_digest_is_recorded_printed_once_and_verified(tmp_path, caplog, data_home):
    body = b"1,2,a\n3,4,b\n"
    sha = hashlib.sha256(body).hexdigest()
    mirror = mirror_with(tmp_path, {"d/x.data": body})
    with caplog.at_level("WARNING", logger="mcboost_cli.datasets.download"):
        path = download.fetch_file("d/x.data", None, mirror=str(mirror), home=data_home)
        download.fetch_file("d/x.data", None, mirror=str(mirror), home=data_home)
    notes = [r.getMessage() for r in caplog.records if "no published checksum" in r.getMessage()]
    assert len(notes) == 1 and sha in notes[0]
    record = data_home / "uci/d/x.data.sha256"
    assert record.read_text() == f"{sha}  x.data\n"
    assert download.recorded_sha256("d/x.data", data_home) == sha
    result = download.check_cached("d/x.data", home=data_home)
    assert (result.status, result.origin, result.expected) == ("ok", "recorded", sha)
    path.write_bytes(b"1,2,a\n")                      # damaged later
    result = download.check_cached("d/x.data", home=data_home)
    assert result.status == "bad" and result.actual == hashlib.sha256(b"1,2,a\n").hexdigest()
    # verify=True re-fetches a file that no longer matches its recorded digest.
    download.fetch_file("d/x.data", None, mirror=str(mirror), home=data_home, verify=True)
    assert path.read_bytes() == body


def test_repository_official_urls_in_order(serve, data_home):
    """No mirror: each official base of the file's repository, prefix stripped."""
    body = b"labels"
    first_hits: list = []
    second_hits: list = []
    first = serve(make_handler(lambda h, n: h.send_error(404), first_hits))
    second = serve(make_handler(lambda h, n: send_body(h, body), second_hits))
    repo = Repository("mnist", "MNIST", "mnist/", (first, second))
    download.fetch_file("mnist/t10k-labels.gz", None, md5=hashlib.md5(body).hexdigest(),
                        repository=repo, home=data_home)
    assert first_hits == ["/t10k-labels.gz"] and second_hits == ["/t10k-labels.gz"]
    assert (data_home / "uci/mnist/t10k-labels.gz").read_bytes() == body


def test_offline_with_local_mirror_missing_files_names_them_all(tmp_path, serve, data_home):
    hits: list = []
    url = serve(make_handler(lambda h, n: h.send_error(404), hits))
    mirror = mirror_with(tmp_path, {"image/segmentation.data": b"x"})
    with pytest.raises(DatasetError) as info:
        fetch("isolet", mirror=f"{url} {mirror}", data_home=data_home, offline=True)
    text = assert_one_line(info.value)
    assert "missing isolet/isolet1+2+3+4.data, isolet/isolet5.data" in text
    assert hits == [] and files_under(data_home) == []


def test_verify_cache_reports_every_cached_file(uci_mirror, data_home):
    from mcboost_cli.datasets import verify_cache
    fetch("car", mirror=uci_mirror, data_home=data_home)
    fetch("segmentation", mirror=uci_mirror, data_home=data_home)
    results = verify_cache(data_home=data_home)
    assert [(n, r.status) for n, _, r in results] == [("car", "ok"), ("segmentation", "ok"),
                                                       ("segmentation", "ok")]
    cached = data_home / "uci" / CAR
    cached.write_bytes(cached.read_bytes()[:-10])
    (_, _, r), = verify_cache(["car"], data_home=data_home)
    assert r.status == "bad" and r.expected == CAR_SHA and r.actual == download.sha256_file(cached)


# ---------------------------------------------------------------------------------------------
# Parsers: LIBSVM, MNIST idx, split columns, optional headers, class suffixes, chunks

def small(name: str, rows: list[int]) -> DatasetSpec:
    spec = get_spec(name)
    files = tuple(dataclasses.replace(f, rows=r) for f, r in zip(spec.files, rows))
    return dataclasses.replace(spec, files=files, rows=sum(rows))


def test_libsvm_parser(tmp_path):
    spec = small("fourclass", [3])
    path = tmp_path / "fourclass"
    path.write_text("+1 1:0.5 2:-1\n\n-1 2:3e2   # comment\n1 1:7\n")
    X, y = parse_file(path, spec, spec.files[0])
    np.testing.assert_array_equal(X, [[0.5, -1], [0, 300], [7, 0]])
    assert y.tolist() == [1, 0, 1]
    path.write_text("+1 3:1\n")
    with pytest.raises(DatasetError) as info:
        parse_file(path, dataclasses.replace(spec, files=(dataclasses.replace(
            spec.files[0], rows=1),)), spec.files[0])
    assert f"{path}:1: feature index 3 is outside 1..2" in assert_one_line(info.value)
    path.write_text("+2 1:1\n")
    with pytest.raises(DatasetError) as info:
        parse_file(path, spec, spec.files[0])
    assert "unknown class value '+2'" in assert_one_line(info.value)


def test_idx_parser(tmp_path):
    import gzip
    import struct

    from mcboost_cli.datasets.parsers import parse_dataset, read_idx
    rng = np.random.default_rng(0)
    imgs = {"train": rng.integers(0, 256, (3, 28, 28), dtype=np.uint8),
            "test": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8)}
    labels = {"train": np.array([7, 0, 9], np.uint8), "test": np.array([1, 1], np.uint8)}
    paths = []
    for part, prefix in (("train", "train"), ("test", "t10k")):
        p = tmp_path / f"{prefix}-images.gz"
        p.write_bytes(gzip.compress(struct.pack(">I3I", 0x0803, *imgs[part].shape)
                                    + imgs[part].tobytes()))
        q = tmp_path / f"{prefix}-labels.gz"
        q.write_bytes(gzip.compress(struct.pack(">II", 0x0801, len(labels[part]))
                                    + labels[part].tobytes()))
        paths += [p, q]
    np.testing.assert_array_equal(read_idx(paths[0]), imgs["train"])
    spec = small("mnist", [3, 3, 2, 2])
    X, y, test = parse_dataset(spec, paths)
    assert X.shape == (5, 784) and X.dtype == np.float64 and y.dtype == np.int32
    np.testing.assert_array_equal(X[3], imgs["test"][0].ravel())
    assert y.tolist() == [7, 0, 9, 1, 1] and test.tolist() == [False] * 3 + [True] * 2
    paths[1].write_bytes(gzip.compress(struct.pack(">II", 0x0801, 5) + b"\x01\x02"))
    with pytest.raises(DatasetError) as info:
        parse_dataset(spec, paths)
    assert "idx header says shape (5,)" in assert_one_line(info.value)


def test_split_column_drop_columns_and_header(tmp_path):
    from mcboost_cli.datasets.parsers import parse_dataset
    spec = small("vowel", [3])
    path = tmp_path / "vowel.data"
    feats = " ".join(["0.5"] * 10)
    path.write_text(f"0 0 0 {feats}  0\n0 3 1 {feats}  10\n1 9 0 {feats}  4\n")
    X, y, test = parse_dataset(dataclasses.replace(spec, test_rows=1), [path])
    assert X.shape == (3, 10) and y.tolist() == [0, 10, 4] and test.tolist() == [0, 0, 1]
    # optional_header: a first line whose class cell is no class name is skipped ...
    spec = small("waveform", [2])
    path = tmp_path / "waveform.data"
    row = ",".join(["1.5"] * 21)
    path.write_text(",".join(str(i) for i in range(1, 22)) + ",class\n" + f"{row},2\n{row},0\n")
    X, y = parse_file(path, spec, spec.files[0])
    assert y.tolist() == [2, 0] and X.shape == (2, 21)
    # ... but a damaged class cell further down is still an error.
    path.write_text(f"{row},2\n{row},class\n")
    with pytest.raises(DatasetError) as info:
        parse_file(path, spec, spec.files[0])
    assert f"{path}:2: unknown class value 'class'" in assert_one_line(info.value)


def test_class_suffix_and_numeric_classes(tmp_path):
    spec = small("adult", [1, 2])
    path = tmp_path / "adult.test"
    row = ("25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, "
           "Male, 0, 0, 40, United-States")
    path.write_text(f"|1x3 Cross validator\n{row}, <=50K.\n{row}, >50K.\n")
    X, y = parse_file(path, spec, spec.files[1])
    assert y.tolist() == [1, 0] and X[0, 1] == 0 and X[0, 0] == 25
    spec = small("isolet", [2, 0])
    path = tmp_path / "isolet.data"
    path.write_text(", ".join(["0.1"] * 617) + ", 1.\n" + ", ".join(["-0.2"] * 617) + ", 26.\n")
    X, y = parse_file(path, spec, spec.files[0])
    assert y.tolist() == [0, 25] and X.shape == (2, 617)


def test_delimited_parser_reads_in_chunks(monkeypatch, uci_dir):
    from mcboost_cli.datasets import parsers
    spec = get_spec("car")
    whole = parse_file(uci_dir / CAR, spec, spec.files[0])
    monkeypatch.setattr(parsers, "CHUNK_CELLS", 7)        # 1000 rows per chunk (the minimum)
    chunked = parse_file(uci_dir / CAR, spec, spec.files[0])
    np.testing.assert_array_equal(whole[0], chunked[0])
    np.testing.assert_array_equal(whole[1], chunked[1])


# ---------------------------------------------------------------------------------------------
# Generators and derived entries

def test_generator_not_available_is_one_line(monkeypatch):
    import mcboost_cli.datasets as ds_api
    monkeypatch.setattr(ds_api, "_generators", lambda: (None, "no module named generators"))
    with pytest.raises(DatasetError) as info:
        load_dataset("long-servedio-5")
    text = assert_one_line(info.value)
    assert "generator 'long_servedio' not available" in text and "no module" in text
    assert {d["name"]: d["offline"] for d in list_datasets()}["long-servedio-5"] == "no"
    monkeypatch.setattr(ds_api, "_generators", lambda: ({}, ""))
    with pytest.raises(DatasetError) as info:
        load_dataset("krkopt", source="generator")
    assert "not registered in GENERATORS" in assert_one_line(info.value)


def test_generated_entries_and_fallback(caplog, data_home):
    from mcboost_cli.datasets import generator_status
    ok, why = generator_status("krkopt")
    assert ok, why      # the generators ship with the package
    ds = load_dataset("long-servedio-5")
    assert ds.X.shape == (11000, 21) and ds.test_mask.sum() == 10000
    assert ds.source.startswith("generator long_servedio(")
    # An exact generator stands in for missing files (with a warning) ...
    with caplog.at_level("WARNING"):
        ds = load_dataset("tic-tac-toe", data_home=data_home, offline=True)
    assert ds.source.startswith("generator tic_tac_toe()") and ds.n_samples == 958
    assert any("using the exact generator" in r.getMessage() for r in caplog.records)
    assert ds.classes == get_spec("tic-tac-toe").classes
    assert ds.feature_names == get_spec("tic-tac-toe").feature_names
    # ... but not when files are asked for, and an in-distribution one never silently.
    with pytest.raises(DatasetError):
        load_dataset("tic-tac-toe", data_home=data_home, offline=True, source="files")
    with pytest.raises(DatasetError) as info:
        load_dataset("waveform", data_home=data_home, offline=True)
    assert "offline mode is on" in assert_one_line(info.value)
    assert load_dataset("waveform", source="generator").n_samples == 5000
    with pytest.raises(DatasetError) as info:
        load_dataset("car", source="generator")
    assert "has no generator" in assert_one_line(info.value)
    with pytest.raises(DatasetError):
        load_dataset("car", source="magic")


def test_poker525k_rule_matches_the_generator_construction():
    from mcboost_cli.datasets import generator_status
    ok, why = generator_status("poker")
    assert ok, why      # the generators ship with the package
    from mcboost_cli.datasets.generators import poker525k
    ds = load_dataset("poker525k", source="generator")
    assert (ds.n_samples, int(ds.test_mask.sum())) == (1025010, 500000)
    base = load_dataset("poker", source="generator")
    np.testing.assert_array_equal(ds.X, base.X)
    assert not ds.test_mask[:25010].any()             # the training file stays training
    tr, te = ~base.test_mask, base.test_mask
    pool = poker525k(seed=0, training=(base.X[tr], base.y[tr]), test=(base.X[te], base.y[te]))
    np.testing.assert_array_equal(pool.X, ds.X[~ds.test_mask])
    np.testing.assert_array_equal(pool.y, ds.y[~ds.test_mask])


def test_derived_first_rows_split(uci_mirror, data_home):
    ds = load_dataset("letter-16000", mirror=uci_mirror, data_home=data_home)
    assert ds.test_mask.tolist() == [False] * 16000 + [True] * 4000
    assert ds.source.startswith("first_rows_train(train=16000) of letter [UCI: ")
    assert fetch("letter-16000", data_home=data_home, offline=True) == [
        data_home / "uci/letter-recognition/letter-recognition.data"]


# ---------------------------------------------------------------------------------------------
# The `mcboost datasets` commands

def run_cli(args):
    from click.testing import CliRunner

    from mcboost_cli.cli import main
    return CliRunner().invoke(main, args)


def test_cli_list_fetch_verify_info(uci_mirror, monkeypatch):
    r = run_cli(["datasets", "list"])
    assert r.exit_code == 0
    line = next(x for x in r.stdout.splitlines() if x.startswith("segmentation "))
    assert line.split()[:5] == ["segmentation", "2310", "19", "7", "210/2100"]
    assert line.split()[-2:] == ["no", "no"]
    assert "43 datasets" in r.stdout
    r = run_cli(["datasets", "fetch", "car", "segmentation", "--mirror", uci_mirror])
    assert r.exit_code == 0 and "car/car.data" in r.stdout
    r = run_cli(["datasets", "list"])
    line = next(x for x in r.stdout.splitlines() if x.startswith("segmentation "))
    assert line.split()[-2:] == ["yes", "cache"]
    r = run_cli(["datasets", "verify"])
    assert r.exit_code == 0 and r.stdout.count("\nok ") + r.stdout.startswith("ok ") == 3
    assert "3 cached files, 0 bad" in r.stdout
    cached = resolve_data_home() / "uci" / CAR
    cached.write_bytes(b"x" + cached.read_bytes()[1:])
    r = run_cli(["datasets", "verify"])
    assert r.exit_code == 1 and "BAD        car/car.data  sha256 " in r.stdout
    assert f"expected {CAR_SHA} (published)" in r.stdout
    r = run_cli(["datasets", "fetch", "car", "--verify", "--mirror", uci_mirror])
    assert r.exit_code == 0 and run_cli(["datasets", "verify", "car"]).exit_code == 0
    r = run_cli(["datasets", "info", "segmentation"])
    assert r.exit_code == 0
    assert "BRICKFACE 330, SKY 330" in r.stdout and "test part:" in r.stdout
    assert "19 numeric, 0 categorical" in r.stdout and "CC BY 4.0" in r.stdout
    assert UCI_BASE + "image/segmentation.test" in r.stdout


def test_cli_errors_are_one_line_exit_2(uci_mirror):
    r = run_cli(["datasets", "fetch", "car", "isolet", "--offline"])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("car: FAILED: dataset 'car' is not fully cached")
    assert lines[1].startswith("isolet: FAILED: ")
    assert lines[-1] == "error: datasets fetch: 2 of 2 datasets could not be fetched: car, isolet"
    r = run_cli(["datasets", "fetch", "nosuch"])
    assert r.exit_code == 2 and r.stderr.startswith("error: dataset 'nosuch' is not in the")
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_cli(["datasets", "info", "isolet"])
    assert r.exit_code == 0 and "counts need the data" in r.stdout
    r = run_cli(["datasets", "fetch", "long-servedio-5"])
    assert r.exit_code == 0 and "generated on demand" in r.stdout
    r = run_cli(["datasets", "verify"])
    assert r.exit_code == 0 and "nothing cached" in r.stdout
