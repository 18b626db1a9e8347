"""Kernels booted under QEMU with mapbench inside: the initramfs, QEMU's
command line, the boots and where their results land (scripts/vmrun, ab and
bisect boot through it)."""
