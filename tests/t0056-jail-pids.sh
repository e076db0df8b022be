#!/bin/sh
# t0056: jails that share a uid do not share a task count. As a user who is
# not root, bubblewrap's jails all keep that user's uid, and RLIMIT_NPROC
# (the uid's tasks on the whole host, plus 256, fixed as each jail starts)
# let one jail holding 300 tasks stop another jail's compile. Where a
# cgroup is delegated to the user (RETORT_CGROUP), each jail gets a cgroup
# of its own with pids.max (src/jail/cgroup.h) and no RLIMIT_NPROC. Here
# root delegates one, below the base the jails of root would use, to an
# unprivileged uid that runs out/bin/jail under bubblewrap.
. "$(dirname "$0")/lib/lib.sh"

uid=4242
base=$("$RETORT_BIN/jail" --kind | sed -n 's/.*pids: a cgroup per jail in \([^ ]*\) .*/\1/p')
if [ "$(id -u)" != 0 ] || ! command -v bwrap >/dev/null || ! command -v setpriv >/dev/null || [ -z "$base" ]; then
	echo "1..0 # SKIP needs root, bubblewrap, setpriv and a pids cgroup: $("$RETORT_BIN/jail" --kind)"
	exit 0
fi
D=$base/retort-t0056-$$
# the delegated cgroup: the user's tool in D/tool, its jails' cgroups beside it
cleanup() {
	for g in "$D"/*/; do
		test -d "$g" || continue
		for p in $(cat "$g/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		rmdir "$g" 2>/dev/null
	done
	rmdir "$D" 2>/dev/null
	test -n "${KEEP_T:-}" || rm -rf "$T"
}
trap cleanup EXIT
mkdir "$D" "$D/tool" || exit 1
test ! -e "$D/cgroup.subtree_control" || echo +pids >"$D/cgroup.subtree_control"
chown -R "$uid:$uid" "$D"
chmod 755 "$T"
mkdir "$T/a" "$T/b" "$T/flag" && chown "$uid:$uid" "$T/a" "$T/b"
printf '#include <stdio.h>\nint main(void) { puts("compiled"); return 0; }\n' >"$T/b/h.c"
tag=29.$$

# $T/asuser CMD...: CMD as the unprivileged uid, in D/tool, with the delegated
# cgroup (one process throughout: with & its pid is $!)
cat >"$T/asuser" <<EOF
#!/bin/sh
echo \$\$ >"$D/tool/cgroup.procs" &&
exec setpriv --reuid=$uid --regid=$uid --clear-groups env RETORT_CGROUP="$D" "\$@"
EOF
chmod 755 "$T/asuser"
# sleepers: the live processes of the uid that run sleep $tag
sleepers() {
	n=0
	for s in /proc/[0-9]*/status; do
		grep -q "^Uid:[[:space:]]*$uid[[:space:]]" "$s" 2>/dev/null &&
			grep -q "^State:[[:space:]]*[^Z]" "$s" 2>/dev/null &&
			tr '\0' ' ' <"${s%status}cmdline" 2>/dev/null | grep -q "^sleep $tag " && n=$((n + 1))
	done
	echo $n
}

test_expect_success 'jails of one uid get a cgroup each' '
	"$T/asuser" "$RETORT_BIN/jail" --kind >kind && cat kind &&
	grep -q "bubblewrap" kind && grep -q "a cgroup per jail in $D " kind
'
test_expect_success LONG 'a jail holding 300 tasks does not stop another jail'"'"'s compile' '
	"$T/asuser" "$RETORT_BIN/jail" --work "$T/b" --ro "$T/flag" --seconds 60 -- /bin/sh -c \
		"while [ ! -e $T/flag/go ]; do sleep 0.05; done; cc -o h h.c && ./h" >b.out 2>&1 &
	bpid=$!
	"$T/asuser" "$RETORT_BIN/jail" --work "$T/a" --seconds 60 -- /bin/sh -c \
		"i=0; while [ \$i -lt 300 ]; do sleep $tag & i=\$((i+1)); done; wait" >a.out 2>&1 &
	apid=$!
	k=0; while [ "$(sleepers)" -lt 300 ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k+1)); done
	n=$(sleepers); echo "# the first jail holds $n tasks"
	touch "$T/flag/go"; wait $bpid; cat b.out
	kill -9 $apid; wait $apid
	k=0; while [ "$(sleepers)" -gt 0 ] && [ $k -lt 50 ]; do sleep 0.1; k=$((k+1)); done
	test "$n" -ge 300 && grep -q "^compiled" b.out && test "$(sleepers)" = 0
'
test_expect_success LONG 'a killed tool'"'"'s cgroup is removed by the next jail' '
	ls "$D" | grep "^retort-jail\." >left; cat left
	"$T/asuser" "$RETORT_BIN/jail" --work "$T/b" -- /bin/true &&
	test -s left && ! ls "$D" | grep -q "^retort-jail\."
'
test_done
