/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included into every C file of the kernels the bench compares
 * (qemu/build-kernel.sh, LAYOUT=aligned; docs/bench.md, "Code layout").
 *
 * QEMU's TCG chains translated blocks directly only within one 4 KiB guest
 * page, so code runs at a speed that depends on where it sits against page
 * boundaries. Asking for page alignment of this object's .text and
 * .text.unlikely (an empty .balign records the requirement and emits
 * nothing) makes the linker start every object's text on a page: an object
 * whose code is the same then has the same page offsets in every image,
 * whatever another object before it gained or lost.
 */
asm(".pushsection .text, \"ax\"\n\t.balign 4096\n\t.popsection\n\t"
    ".pushsection .text.unlikely, \"ax\"\n\t.balign 4096\n\t.popsection");
