"""bench/probestate.py: where a TCP probe's time went."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import probestate  # noqa: E402


def snap(path, cpu, prune, exhausted, clock, ticks):
    path.write_text("\n".join([
        "## snap",
        "cpu_user %d" % cpu[0],
        "cpu_system %d" % cpu[1],
        "cpu_idle %d" % cpu[2],
        "cpu_irq 0",
        "cpu_softirq %d" % cpu[3],
        "cpu_total %d" % sum(cpu),
        "rx_packets 10",
        "rx_ring_exhausted %d" % exhausted,
        "## net",
        "TcpExt: SyncookiesSent PruneCalled TCPRcvQDrop",
        "TcpExt: 0 %d 0" % prune,
        "Tcp: RtoAlgorithm InErrors",
        "Tcp: 1 0",
        "## host",
        "%s %d %d" % (clock, ticks, ticks // 4),
        "## jit",
        "Translation buffer state:",
        "TB count            %d" % (ticks * 10),
        "Statistics:",
        "TB flush count      0",
        "TB invalidate count %d" % (ticks // 2),
        "TLB full flushes    7",
    ]) + "\n")
    return str(path)


def test_a_busy_guest_and_the_counters_that_moved(tmp_path):
    a = snap(tmp_path / "a", (100, 100, 800, 0), 5, 7, "1000.0", 1000)
    b = snap(tmp_path / "b", (200, 200, 800, 200), 9, 7, "1004.0", 1400)
    line = probestate.summary(probestate.parse(a), probestate.parse(b))
    assert line.startswith("guest idle 0 %, softirq 50 %, user 25 %, system 25 %")
    assert "QEMU 100 % of a host core; host steal 1.00 s in 4.0 s" in line
    assert ("TCG: TB flushes +0, TB invalidations +200, full TLB flushes +0, TBs +4000"
            in line)
    assert "moved: PruneCalled +4" in line and "rx_ring_exhausted" not in line


def test_an_idle_guest_with_nothing_moved(tmp_path, capsys):
    a = snap(tmp_path / "a", (0, 0, 0, 0), 1, 1, "5.0", 10)
    b = snap(tmp_path / "b", (10, 0, 90, 0), 1, 1, "6.0", 30)
    assert probestate.main([a, b]) == 0
    out = capsys.readouterr().out
    assert out.startswith("guest idle 90 %") and "QEMU 20 %" in out
    assert "moved: none of" in out


def test_a_failed_snapshot_is_an_error_not_a_line(tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.write_text("## failed\nctl: no reply\n")
    # No jit section (QMP refused): the line leaves TCG out.
    nojit = tmp_path / "nojit"
    nojit.write_text("## snap\ncpu_user 1\ncpu_idle 1\ncpu_total 2\n## net\n")
    parsed = probestate.parse(str(nojit))
    assert "TCG" not in probestate.summary(parsed, parsed)
    good = snap(tmp_path / "a", (0, 0, 0, 0), 1, 1, "5.0", 10)
    assert probestate.main([str(bad), good]) == 1
    assert "without its 'snap' section" in capsys.readouterr().err
    assert probestate.main([good]) == 2


def test_host_cpu_speed_before_and_after(tmp_path):
    """The soak's "speed" section (bench/hostspeed.c per host CPU): the line
    gives each CPU's rate before and after; a CPU it could not use ("-")
    and a snapshot without the section are left out."""
    a = tmp_path / "a"
    b = tmp_path / "b"
    base = open(snap(tmp_path / "s", (0, 0, 10, 0), 1, 1, "5.0", 10)).read()
    a.write_text(base + "## speed\n0 351.2 359.0 80\n1 -\n")
    b.write_text(base + "## speed\n0 120.4 358.1 30\n1 300.0 360.0 70\n")
    line = probestate.summary(probestate.parse(str(a)), probestate.parse(str(b)))
    assert "host CPU speed (Msteps/s, before -> after): 0 351 -> 120;" in line
    assert " 1 " not in line.split("host CPU speed")[1].split(";")[0]
    none = probestate.summary(probestate.parse(str(tmp_path / "s")), probestate.parse(str(b)))
    assert "host CPU speed" not in none


def test_frames_per_tcp_segment(tmp_path):
    """rx_packets over TCP's InSegs: how much GRO merged. A slow probe's
    flow merged about 2 frames a segment, a fast one's 7-12."""
    def snap_segs(path, rx, segs):
        path.write_text("## snap\ncpu_user 1\ncpu_idle 1\ncpu_total 2\nrx_packets %d\n"
                        "## net\nTcp: RtoAlgorithm InSegs OutSegs\nTcp: 1 %d 5\n" % (rx, segs))
        return probestate.parse(str(path))
    before = snap_segs(tmp_path / "a", 1000, 400)
    line = probestate.summary(before, snap_segs(tmp_path / "b", 11000, 5000))
    assert "; 2.2 frames per TCP segment (GRO);" in line
    # no segment received: no ratio
    line = probestate.summary(before, snap_segs(tmp_path / "b", 1000, 400))
    assert "frames per TCP segment" not in line
