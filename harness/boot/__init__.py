"""Boot stage: the initramfs, QEMU under a hard timeout, the build lock."""
