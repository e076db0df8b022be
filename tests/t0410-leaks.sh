#!/bin/sh
# t0410: what an answer can pull out of the host through compile. Each way
# the outside review used to include a file past the screen (a digraph
# include, a comment inside or before the directive, a line splice) and
# the assembler's .incbin of the cache dir's secret is tried on a planted
# file and a secret, with the screen and without it (then only the
# sandboxed nvcc stands in the way): the answer is refused (by the screen,
# or by nvcc, which cannot see the file), and the planted text and the
# secret appear in no output, cached or not. No GPU needed.
. "$(dirname "$0")/lib/lib.sh"

one_variant
mkdir -p out/c "$T/cache"
planted=$T/planted.txt secret=$T/cache/secret
mark=$(od -An -tx8 -N16 /dev/urandom | tr -d ' \n')
printf 'PLANTED_%s\n' "$mark" >"$planted"
od -An -tx8 -N32 /dev/urandom | tr -d ' \n' >"$secret"
chmod 644 "$planted" "$secret" # readable by anyone: only the sandbox keeps them away

kernel='__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
extern "C" void alpha_scale(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }'

# way NAME: the first lines of an answer that tries to read the planted file or the secret
way() {
	case $1 in
	digraph) printf '%%:include "%s"\n' "$planted" ;;
	comment) printf '#/**/include "%s"\n' "$planted" ;;
	lead) printf '/* first */ #include "%s"\n' "$planted" ;;
	splice) printf '#inc\\\nlude "%s"\n' "$planted" ;;
	incbin) printf '#define CAT(a, b) a##b\nCAT(__as, m__)(".section .rodata\\n.global leak\\nleak:\\n.incbin \\"%s\\"\\n.previous");\n' \
		"$secret" ;;
	esac
}

# try NAME [--no-screen]: compile that answer into out/c/NAME; its status
try() {
	name=$1; shift
	{ printf '```cuda\n'; way "$name"; printf '%s\n```\n' "$kernel"; } |
		python3 -c "import json,sys; json.dump({'status': 'answered', 'answer': {'text': sys.stdin.read()}}, sys.stdout)" \
		>"$name.json" &&
	mkdir -p "out/c/$name$*" &&
	"$RETORT_BIN/compile" --arch sm_90 --cache-dir "$T/cache" "$@" -o "out/c/$name$*/compile.json" "$TASK" "$name.json" &&
	field "out/c/$name$*/compile.json" 'd["status"]'
}

# clean: neither the planted text nor the secret in any file here or in the cache but themselves
clean() {
	! grep -r -a -l -e "PLANTED_$mark" -e "$(cat "$secret")" "$T" --exclude=planted.txt --exclude=secret
}

for w in digraph comment lead splice incbin; do
	test_expect_success "$w: refused, nothing read" "
		st=\$(try $w) && echo \"\$st\" && case \$st in screen_failed|compile_error) clean ;; *) false ;; esac
	"
	test_expect_success LONG "$w without the screen: nvcc in the sandbox cannot read it" "
		st=\$(try $w --no-screen) && echo \"\$st\" && test \"\$st\" != ok &&
		field out/c/$w--no-screen/compile.json 'd[\"diagnostics\"]' | grep -q -i 'no such file\|cannot open\|not found' &&
		clean
	"
done
test_expect_success LONG 'control: the kernel alone builds without the screen' '
	{ printf "\`\`\`cuda\n%s\n\`\`\`\n" "$kernel"; } |
		python3 -c "import json,sys; json.dump({\"status\": \"answered\", \"answer\": {\"text\": sys.stdin.read()}}, sys.stdout)" \
		>plain.json && mkdir -p out/c/plain &&
	"$RETORT_BIN/compile" --arch sm_90 --cache-dir "$T/cache" --no-screen -o out/c/plain/compile.json "$TASK" plain.json &&
	test "$(field out/c/plain/compile.json "d[\"status\"]")" = ok
'
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# the tools where another user can run them (the checkout may sit in a private folder)
	pub=$(mktemp -d "${TMPDIR:-/tmp}/retort-pub.XXXXXX") && chmod 755 "$pub" &&
		cp "$RETORT_BIN/compile" "$RETORT_BIN/prepare" "$RETORT_BIN/verify" "$pub/" || exit 1
	test_expect_success 'without a sandbox that hides the host (not root, no bubblewrap) nothing untrusted runs' '
		for tool in "compile -o c.json task.json r.json" "prepare --reference -o ref task.json" \
			"verify --expected -o e.json task.json ref"; do
			set -- $tool && t=$1 && shift &&
			(cd "$pub" && setpriv --reuid=65534 --regid=65534 --clear-groups env PATH=/nonexistent "./$t" "$@") 2>err;
			st=$? && cat err && test $st = 2 && grep -q "no sandbox here that hides the host" err || return 1
		done
	'
	rm -rf "$pub"
else
	test_skip 'the refusal without a sandbox: needs root and setpriv to become another user'
fi
test_done
