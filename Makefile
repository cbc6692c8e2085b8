# The lab's one entry point. `make` is the main job, `make test` the tests.
# Every target installs what it needs first (make deps, root and apt-get).
SHELL := /bin/bash
.DEFAULT_GOAL := all

# Passed through to the scripts (see qemu/lib/lab.sh): ACCEL=tcg|kvm, VCPUS,
# MEM, FIFO (tap txqueuelen, the emulated NIC FIFO in frames); LINUX=6.1|6.12,
# the kernel tree (qemu/lib/tree.sh).
export ACCEL TCG_THREAD VCPUS MEM FIFO BOOT_TIMEOUT CHURN_SECS LAB_LOCK_WAIT NICS COST LAYOUT PAD LINUX
# Bench axes (bench/run.sh): make bench WEIGHTS="4 8 16" REFILL="0 16" ...
export WEIGHTS WEIGHTS_ETH1 TARGET POLL_TRACE ROUTER_PDR REFILL ADAPTIVE DEFER RING LINK LINK_BURST BOOT_ORDER BOOTS PROFILES REPS SECS CALIB PIN \
	CALIB_PINS HIST SAT_REPS SAT_OFFER \
	UDP1470_RATE UDP64_RATE OUT R MIN_REPS MAX_REPS BENCH_SEED REF OBS
# The softirq's limits, threaded NAPI, the wake-up probe (bench/run.sh)
export NETDEV_BUDGET NETDEV_BUDGET_USECS THREADED WAKEUP
# Targets run in the order written: the knobs are checked before anything runs.
.NOTPARALLEL:

.PHONY: all deps kernel baseline baseline-pad initramfs boot smoke test unit bench aa article report check \
	clean distclean help args-lab args-all args-bench args-aa args-article args-report

# Every knob is checked before any install, build or run: one line per bad
# value and exit status 2 (bench/args.sh, the table of bench/knobs.py);
# values reach the scripts only through the environment, never pasted into
# a recipe. QUICK=1 and AA=1: the presets of plain make and make aa.
args-lab:
	@bench/args.sh lab
args-all:
	@QUICK=1 bench/args.sh bench
args-bench:
	@bench/args.sh bench
args-aa:
	@AA=1 bench/args.sh bench
args-article:
	@ARTICLE=1 bench/args.sh bench
args-report:
	@bench/args.sh report

## make: both kernels, then a short sweep (patched vs baseline) -> results/<stamp>/
all: args-all kernel baseline initramfs
	@QUICK=1 bench/run.sh

## make bench: the full sweep; axes on the command line (see bench/run.sh).
## LINUX="6.1 6.12": the four kernels of both trees booted in one sweep, each pair
## run on both trees back to back -> results/<stamp>/{6.1,6.12}/ and trees.md
bench: args-bench
	@for t in $${LINUX:-6.1}; do $(MAKE) --no-print-directory LINUX="$$t" kernel baseline || exit 1; done
	@set -- $${LINUX:-6.1}; $(MAKE) --no-print-directory LINUX="$$1" initramfs
	@bench/run.sh

## make aa: the baseline kernel in both slots, the goal profiles as a paired
## sweep: every interval must contain 1.0; their half-widths are the lab's
## resolution (REPS=auto: 20 pairs, 22 minutes, then one more a minute until
## every half-width is within its aim, at most 80). PAD=N: the layout A/A,
## the baseline against itself built with N bytes of text linked first
## (make baseline-pad); LAYOUT=plain: both without the page alignment
aa: args-aa baseline $(if $(PAD),baseline-pad) initramfs
	@AA=1 bench/run.sh

## make article: the 2005 article's four observations (LWN, "NAPI performance - a
## weighty matter"), each in its regime, settings of the patched image paired with
## each other -> results/<stamp>/{obs1..obs4/,verdicts.json,summary.md}; 224 runs,
## about 42 minutes on the README's 2-core machine (bench/article.py estimate);
## OBS="obs1 obs3" runs some; REPS, SECS, ... apply to every regime (docs/ARTICLE.md)
article: args-article kernel baseline initramfs
	@bench/article.sh

## make help: the targets, then every knob with its values and default (bench/knobs.py)
help:
	@sed -n 's/^## \{0,1\}//p' Makefile
	@echo
	@/usr/bin/python3 bench/knobs.py help

## make report R=results/<stamp>: redo summary.md and plots from runs.csv
report: args-report deps
	@/usr/bin/python3 bench/report.py "$$R"

## make results: docs/RESULTS.md again from every sweep in docs/results/ (bench/results.py)
.PHONY: results
results:
	@/usr/bin/python3 bench/results.py

## make smoke: boot the patched kernel, one iperf3 run, weight and NIC counters
smoke: args-lab kernel initramfs
	@qemu/smoke.sh

## make deps: install missing Debian packages (quiet when all are present;
## LINUX=6.12 adds linux-source-6.12)
deps:
	@qemu/deps.sh

## make kernel: patches/series + drivers/ on linux-source-6.1 -> build/kernel/
## (LAYOUT=plain: tinyconfig's -Os, functions not page-aligned -> build/kernel-plain/;
## LINUX=6.12: patches/6.12/series + drivers/ on linux-source-6.12 -> build/kernel-6.12/,
## and every target below that builds or boots a kernel uses that tree's)
kernel: args-lab deps
	@mkdir -p build; flock -n build/.build.lock true || echo "  KERNEL  waiting for another kernel build (build/.build.lock)"
	@flock build/.build.lock qemu/build-kernel.sh patched

## make baseline: the same tree and config without our patches -> build/baseline/
## (LINUX=6.12: build/baseline-6.12/)
baseline: args-lab deps
	@mkdir -p build; flock -n build/.build.lock true || echo "  KERNEL  waiting for another kernel build (build/.build.lock)"
	@flock build/.build.lock qemu/build-kernel.sh baseline

## make baseline-pad: the baseline with PAD (6144) bytes of text linked first -> build/baseline-pad/
baseline-pad: args-lab deps
	@mkdir -p build; flock -n build/.build.lock true || echo "  KERNEL  waiting for another kernel build (build/.build.lock)"
	@flock build/.build.lock qemu/build-kernel.sh baseline-pad

## make initramfs: build/initramfs.img with the guest tools and qemu/guest/ (one image
## for both trees: no kernel modules in it)
initramfs: args-lab deps
	@qemu/mkinitramfs.sh

## make boot: an interactive guest shell (Ctrl-A x leaves QEMU)
boot: args-lab kernel initramfs
	@qemu/boot.sh

## make test: boot the patched kernel and run the tests, then the harness's host-side
## tests (they run make bench, so both kernels); ends "N passed, N failed"
test: args-lab kernel baseline initramfs
	@qemu/test.sh

## make unit: the bench's Python tests (bench/tests, pytest) in seconds: no kernel, no
## root, no network; make test runs them too. Needs python3-pytest, -scipy and
## -matplotlib (make deps installs them, as root): unit itself installs nothing
unit:
	@/usr/bin/python3 -m pytest -q -p no:cacheprovider bench/tests

## make check: checkpatch --strict on patches/, W=1 and sparse on the touched files
check: args-lab kernel
	@qemu/check.sh

## make series: the mailed series in build/series/ (cover letter, Signed-off-by from
## git config); every prefix built and checked; the full series = make kernel's tree
## (LINUX=6.12: patches/6.12/ -> build/series-6.12/; make check LINUX=6.12 likewise)
.PHONY: series
series: args-lab deps kernel
	@qemu/series.sh

clean:
	rm -rf build/run build/initramfs build/initramfs.img

distclean:
	rm -rf build

## make soak: a debug kernel (KASAN, lockdep, kmemleak, UBSAN, fault injection;
## e1000 a module) under traffic, knob churn, ring resizes, link flaps, module
## reloads and allocation-failure windows for SOAK_SECS (600); ends with the
## console scan and "N passed, N failed". make soak-baseline: the same on the
## unpatched tree (the knobs it lacks are skipped). See docs/harness.md.
export SOAK_SECS SOAK_SEED
.PHONY: debug baseline-debug soak soak-baseline args-soak
args-soak:
	@bench/args.sh soak

## make debug / make baseline-debug: the debug kernels -> build/debug/, build/baseline-debug/
debug baseline-debug: args-soak deps
	@mkdir -p build; flock -n build/.build.lock true || echo "  KERNEL  waiting for another kernel build (build/.build.lock)"
	@flock build/.build.lock qemu/build-kernel.sh $@

soak: args-soak debug
	@qemu/mkinitramfs.sh debug
	@qemu/soak.sh debug

soak-baseline: args-soak baseline-debug
	@qemu/mkinitramfs.sh baseline-debug
	@qemu/soak.sh baseline-debug

## make race WHAT=tp|down: one of the soak's findings as a focused reproducer on the
## debug kernel (make race-baseline: on the unpatched one); RACE_SECS (120), TCG_THREAD
export WHAT RACE_SECS
.PHONY: race race-baseline args-race
args-race:
	@bench/args.sh race
race: args-race debug
	@qemu/mkinitramfs.sh debug
	@qemu/race.sh debug "$$WHAT"
race-baseline: args-race baseline-debug
	@qemu/mkinitramfs.sh baseline-debug
	@qemu/race.sh baseline-debug "$$WHAT"
