#!/bin/sh
# t0050: the sandbox without bubblewrap, as on GPU hosts that lack it: when
# root, the candidate runs in its own mount and network namespaces with a
# read-only root, private temporary folders and an unprivileged uid. The
# same probes as the t-sandbox unit test, with bwrap kept off the PATH.
cd "$(dirname "$0")/.." || exit 1
t=out/obj/plain/tests/t-sandbox
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP not root: without bubblewrap only rlimits apply"
	exit 0
fi
if [ ! -x "$t" ]; then
	echo "1..0 # SKIP $t not built (ninja test builds it)"
	exit 0
fi
nobwrap=$(mktemp -d) || exit 1
trap 'rm -rf "$nobwrap"' EXIT
PATH=$nobwrap "$t"
