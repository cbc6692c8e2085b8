"""Tests of bench/layout.py on synthetic symbol tables."""
import json
import os
import re
import subprocess
import sys

import layout

BASE = 0xFFFFFFFF81000000
HOT = [r"nft_.*", r"e1000_.*"]


def write_image(path, functions, mode="aligned", extra=""):
    """A kernel output directory: `symbols` as nm -S prints it (functions:
    (name, addr, size) in any order) and a `layout` file."""
    path.mkdir(parents=True)
    lines = [f"{addr:016x} {size:016x} T {name}" for name, addr, size in functions]
    (path / "symbols").write_text("\n".join(lines) + "\n" + extra)
    (path / "layout").write_text(f"layout {mode}\nkcflags \npad 0\n")
    return str(path)


def run(tmp_path, a, b, hot=HOT):
    return layout.compare(layout.load(write_image(tmp_path / "a", a)),
                          layout.load(write_image(tmp_path / "b", b)), hot)


def test_page_arithmetic_at_the_boundary():
    assert layout.page_offset(BASE + 0x1F80) == 0xF80
    assert not layout.crosses(BASE + 0xF80, 0x80)  # ends at the page's end
    assert layout.crosses(BASE + 0xF80, 0x81)  # one byte more
    assert not layout.crosses(BASE, 4096)
    assert layout.crosses(BASE, 4097)
    assert not layout.crosses(BASE + 0xFFF, 1)


def test_load_reads_text_functions_and_layout(tmp_path):
    extra = ("ffffffff82000000 0000000000000010 D some_data\n"
             "ffffffff81000000 T _stext\n"
             "ffffffff81003000 0000000000000000 T empty\n"
             "ffffffff81004000 0000000000000020 t helper\n"
             "ffffffff81005000 0000000000000030 t helper\n"
             "ffffffff81006000 0000000000000040 W weak_one\n")
    img = layout.load(write_image(tmp_path / "k", [("f", BASE, 16)], extra=extra))
    assert img["layout"] == "aligned" and img["kcflags"] == "" and img["pad"] == "0"
    assert sorted(img["functions"]) == ["f", "helper", "weak_one"]
    assert img["functions"]["helper"] == [(BASE + 0x4000, 0x20), (BASE + 0x5000, 0x30)]


def test_missing_layout_file_is_unknown(tmp_path):
    d = write_image(tmp_path / "k", [("f", BASE, 16)])
    os.remove(os.path.join(d, "layout"))
    assert layout.load(d)["layout"] == "unknown"


def test_duplicate_names_are_skipped_from_common(tmp_path):
    a = [("f", BASE, 16), ("dup", BASE + 0x1000, 16), ("dup", BASE + 0x2000, 16)]
    b = [("f", BASE, 16), ("dup", BASE + 0x1000, 16)]
    r = run(tmp_path, a, b, hot=[r"dup"])
    assert r["common"] == 1 and r["skipped_non_unique"] == 1
    assert r["hot"] == {} and r["hot_non_unique"] == ["dup"]
    assert r["images"]["patched"]["functions"] == 3


def test_size_change_is_not_an_offset_difference(tmp_path):
    a = [("nft_do_chain", BASE + 0x1000, 0x200), ("e1000_clean", BASE + 0x2000, 0x100)]
    b = [("nft_do_chain", BASE + 0x1010, 0x210), ("e1000_clean", BASE + 0x2000, 0x100)]
    r = run(tmp_path, a, b)
    assert r["hot_changed_size"] == ["nft_do_chain"]
    assert r["hot_offset_differs"] == [] and r["hot_crossing_differs"] == []
    assert r["skipped_size"] == 1 and r["common"] == 1
    entry = r["hot"]["nft_do_chain"]
    assert entry["same_size"] is False and entry["offset_same"] is False


def test_crossing_in_one_image_only(tmp_path):
    a = [("nft_do_chain", BASE + 0x1F00, 0x200), ("e1000_intr", BASE + 0x3000, 0x40)]
    b = [("nft_do_chain", BASE + 0x1000, 0x200), ("e1000_intr", BASE + 0x3000, 0x40)]
    r = run(tmp_path, a, b)
    assert r["hot_crossing_differs"] == ["nft_do_chain"]
    assert r["hot_offset_differs"] == ["nft_do_chain"]
    assert r["crossing_differs"] == 1
    assert r["images"]["patched"]["crossing"] == 1
    assert r["images"]["baseline"]["crossing"] == 0
    entry = r["hot"]["nft_do_chain"]
    assert entry["patched"] == {"addr": "0xffffffff81001f00", "size": 0x200,
                                "offset": "0xf00", "crosses": True}
    assert entry["crossing_same"] is False and entry["same_size"] is True


def test_function_in_one_image_only(tmp_path):
    a = [("f", BASE, 16), ("e1000_new", BASE + 0x1000, 16)]
    r = run(tmp_path, a, [("f", BASE, 16)])
    entry = r["hot"]["e1000_new"]
    assert entry["baseline"] is None and entry["same_size"] is None
    assert r["hot_only_in"] == {"patched": ["e1000_new"], "baseline": []}
    assert r["hot_crossing_differs"] == [] and r["hot_functions"] == 1


def test_plain_shifted_pair_differs_everywhere_aligned_pair_nowhere(tmp_path):
    natural = [(f"nft_f{i}", BASE + 0x300 * i, 0x2F0) for i in range(20)]
    shifted = [(n, addr + 2048, size) for n, addr, size in natural]
    r = run(tmp_path / "plain", natural, shifted)
    assert r["common"] == 20 and r["offset_differs"] == 20
    assert len(r["hot_offset_differs"]) == 20

    aligned_a = [(f"nft_f{i}", BASE + 0x1000 * i, 0x2F0) for i in range(20)]
    aligned_b = [(n, addr + 0x5000, size) for n, addr, size in aligned_a]
    r = run(tmp_path / "aligned", aligned_a, aligned_b)
    assert r["common"] == 20 and r["offset_differs"] == 0 and r["crossing_differs"] == 0
    assert r["hot_offset_differs"] == [] and r["hot_crossing_differs"] == []


def cli(tmp_path, a, b, *args):
    da, db = write_image(tmp_path / "a", a), write_image(tmp_path / "b", b)
    hot = tmp_path / "hot.txt"
    hot.write_text("# test\nnft_.*\n")
    return layout.main([da, db, "--hotpath", str(hot), *args])


def test_cli_exit_codes(tmp_path, capsys):
    same = [("nft_do_chain", BASE + 0x1000, 0x200)]
    out = tmp_path / "out.json"
    assert cli(tmp_path, same, same, "--check", "--json", str(out)) == 0
    assert json.loads(out.read_text())["hot_functions"] == 1
    assert "hot path: 1 functions" in capsys.readouterr().out

    crossing = [("nft_do_chain", BASE + 0x1F00, 0x200)]
    assert cli(tmp_path / "x", crossing, same) == 0
    assert cli(tmp_path / "y", crossing, same, "--check", "--names", "new,old") == 1
    printed = capsys.readouterr().out
    assert "nft_do_chain" in printed and "new 0xf00+512*" in printed


def test_cli_bad_input_exits_2(tmp_path, capsys):
    d = write_image(tmp_path / "a", [("f", BASE, 16)])
    assert layout.main([d, str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "symbols" in err
    for bad in ([d], [d, d, "--names", "x"], [d, d, "--names", "x,x"]):
        try:
            layout.main(bad)
        except SystemExit as e:
            assert e.code == 2
        else:
            raise AssertionError(f"{bad} accepted")
        assert capsys.readouterr().err.count("\n") == 1


def test_cli_as_a_script(tmp_path):
    d = write_image(tmp_path / "a", [("nft_do_chain", BASE, 16)])
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "layout.py")

    def status(*args):
        return subprocess.run([sys.executable, script, *args], capture_output=True).returncode

    assert status(d, d) == 0
    assert status(d, d, "--check") == 0
    assert status(d, str(tmp_path / "missing")) == 2
    assert status(d) == 2


def test_table_is_capped(tmp_path, capsys):
    a = [(f"nft_f{i:02}", BASE + 0x1000 * i, 0x10) for i in range(50)]
    b = [(n, addr + 0x10, size) for n, addr, size in a]
    assert cli(tmp_path, a, b, "--check") == 0
    printed = capsys.readouterr().out
    assert "nft_f39" in printed and "nft_f40" not in printed
    assert "... and 10 more" in printed


def test_shipped_hotpath():
    patterns = layout.load_patterns(layout.DEFAULT_HOTPATH)
    assert patterns
    compiled = [re.compile(p) for p in patterns]

    def hot(name):
        return any(p.fullmatch(name) for p in compiled)

    for name in ("nft_do_chain", "e1000_clean_rx_irq", "net_rx_action", "ip_forward",
                 "napi_gro_receive", "__netif_receive_skb_core", "__napi_poll",
                 "dev_gro_receive", "udp_rcv", "tcp_v4_rcv", "__dev_queue_xmit",
                 "skb_release_data", "kmem_cache_alloc", "memcpy", "csum_partial",
                 "fib_table_lookup", "nf_hook_slow", "ip_route_input_noref"):
        assert hot(name), name
    for name in ("ext4_readdir", "schedule", "cgroup_attach_task", "tcp_v6_rcv",
                 "do_sys_open", "in_group_p"):
        assert not hot(name), name


def test_series_functions_are_reported_apart(tmp_path):
    """A hot function defined in an object the series changes (listed in
    series-functions) that moved is the series' doing: reported in
    hot_series_differs, never in hot_crossing_differs, and --check passes."""
    a = write_image(tmp_path / "a", [("e1000_clean", BASE + 0x1000, 0x10),
                                     ("nft_do_chain", BASE + 0x3ff0, 0x10)])
    b = write_image(tmp_path / "b", [("e1000_clean", BASE + 0x1ff8, 0x10),
                                     ("nft_do_chain", BASE + 0x3ff0, 0x10)])
    (tmp_path / "a" / "series-functions").write_text("e1000_clean\n")
    r = layout.compare(layout.load(a), layout.load(b), HOT, series=layout.load_series(a))
    assert r["hot_crossing_differs"] == [] and r["hot_offset_differs"] == []
    assert r["hot_series"] == ["e1000_clean"]
    assert r["hot_series_differs"] == ["e1000_clean"]
    hot = tmp_path / "hot.txt"
    hot.write_text("nft_.*\ne1000_.*\n")
    assert layout.main([a, b, "--check", "--quiet", "--hotpath", str(hot)]) == 0


def test_cold_parts_and_trampolines_are_reported_apart(tmp_path):
    """A .cold part or a static-call trampoline that crosses a page in one
    image only is listed in hot_cold_differs, never in hot_crossing_differs,
    and --check passes; the same for the function itself fails."""
    a = write_image(tmp_path / "a", [("nft_do_chain", BASE + 0x1000, 0x10),
                                     ("nft_do_chain.cold", BASE + 0x5ff8, 0x10),
                                     ("__SCT__tp_func_nft_x", BASE + 0x6ff8, 0x10),
                                     ("e1000_clean.cold.2", BASE + 0x7000, 0x10)])
    b = write_image(tmp_path / "b", [("nft_do_chain", BASE + 0x1000, 0x10),
                                     ("nft_do_chain.cold", BASE + 0x5f00, 0x10),
                                     ("__SCT__tp_func_nft_x", BASE + 0x6f00, 0x10),
                                     ("e1000_clean.cold.2", BASE + 0x7000, 0x10)])
    hot = [r"nft_.*", r"e1000_.*", r"__SCT__tp_func_nft_.*"]
    r = layout.compare(layout.load(a), layout.load(b), hot)
    assert r["hot_crossing_differs"] == [] and r["hot_offset_differs"] == []
    assert r["hot_cold"] == 3
    assert sorted(r["hot_cold_differs"]) == ["__SCT__tp_func_nft_x", "nft_do_chain.cold"]
    hotfile = tmp_path / "hot.txt"
    hotfile.write_text("\n".join(hot) + "\n")
    assert layout.main([a, b, "--check", "--quiet", "--hotpath", str(hotfile)]) == 0
    assert layout.is_cold("x.cold") and layout.is_cold("x.cold.12")
    assert not layout.is_cold("x.cold_path") and not layout.is_cold("coldplug")


def test_jmp_cache_slot_is_qemus_hash():
    # tb_jmp_cache_hash_func(0x1234): tmp = 0x1234 ^ 0x48 = 0x127c;
    # ((0x127c >> 6) & 0xfc0) | (0x127c & 0x3f) = 0x40 | 0x3c
    assert layout.jmp_cache_slot(0x1234) == 0x7C
    slots = {layout.jmp_cache_slot(BASE + k * layout.PAGE) for k in range(4096)}
    assert len(slots) == 64 and all(s & 0x3F == 0 for s in slots)
    assert all(0 <= layout.jmp_cache_slot(BASE + a) < 4096 for a in range(0, 1 << 16, 97))


def test_jmp_cache_slot_mates(tmp_path):
    # Page-aligned entries: BASE's page and the one 65 pages on share a slot
    # (the page number's low six bits xor its next six: 0 ^ 0 and 1 ^ 1),
    # the pages 1 and 2 on do not.
    page = layout.PAGE
    a = [("e1000_clean", BASE, 0x100), ("nft_do_chain", BASE + 65 * page, 0x100),
         ("e1000_intr", BASE + 2 * page, 0x40)]
    b = [("e1000_clean", BASE, 0x100), ("nft_do_chain", BASE + page, 0x100),
         ("e1000_intr", BASE + 2 * page, 0x40)]
    assert layout.jmp_cache_slot(BASE) == layout.jmp_cache_slot(BASE + 65 * page)
    r = run(tmp_path, a, b)
    jc = r["hot_jmp_cache"]
    assert jc["functions"] == 3
    assert jc["patched"] == {"slots": 2, "max_per_slot": 2}
    assert jc["baseline"] == {"slots": 3, "max_per_slot": 1}
    assert jc["slot_mates_differ"] == 2  # e1000_clean and nft_do_chain
    assert "jump cache (4096 slots)" in layout.report(r)
