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

def test_catalog_names_and_listing(data_home):
    assert dataset_names() == ["car", "letter", "nursery", "segmentation"]
    rows = {d["name"]: d for d in list_datasets(data_home=data_home)}
    assert set(rows) == set(SHAPES)
    for name, (n, f, k, _) in SHAPES.items():
        d = rows[name]
        assert (d["rows"], d["features"], d["classes"]) == (n, f, k)
        assert d["cached"] is False
        assert d["split"] == ("predefined" if name == "segmentation" else "none")
    assert rows["segmentation"]["files"] == ["image/segmentation.data", "image/segmentation.test"]


def test_catalog_checksums_match_mirror_list(uci_dir):
    listed = {}
    for line in (uci_dir / "CHECKSUMS.tsv").read_text().splitlines()[1:]:
        path, size, sha, status, rows, *_ = line.split("\t")
        listed[path] = (sha, status, int(rows))
    for name in dataset_names():
        for f in get_spec(name).files:
            sha, status, rows = listed[f.path]
            assert (f.sha256, status) == (sha, "exact"), f.path
            if f.skip_lines == 0:
                assert f.rows == rows, f.path


def test_unknown_dataset_lists_known_names():
    with pytest.raises(DatasetError) as info:
        load_dataset("nursry")
    text = assert_one_line(info.value)
    assert "'nursry' is not in the catalog" in text
    assert "did you mean 'nursery'" in text
    assert "known: car, letter, nursery, segmentation" in text


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
    assert cached == {"car": False, "letter": False, "nursery": False, "segmentation": True}


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
    # Without verify the cache is trusted and the bad cell is reported with file and line.
    with pytest.raises(DatasetError) as info:
        load_dataset("car", mirror=uci_mirror, data_home=data_home)
    assert f"{cached}:1: unknown class value 'xxxxx'" in assert_one_line(info.value)
    ds = load_dataset("car", mirror=uci_mirror, data_home=data_home, verify=True)
    assert ds.n_samples == 1728
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == CAR_SHA


def test_wrong_shape_is_reported(data_home):
    # A well-formed file with the right row count but a single class.
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
