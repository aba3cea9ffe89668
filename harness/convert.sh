#!/usr/bin/env bash
# Apply convert/<prog>.patch to the file of the tree's progs/ that it
# names, progs/<prog>.c giving OUT/progs/<prog>_assert.c, and derive
# OUT/prog_tests/<test>_assert.c from each tree test that
# convert/<prog>.tests names: the test itself, with the program's skeleton
# (and the test) renamed to <name>_assert.  A line of <prog>.tests is a
# test's name, then the test's own global names, if any, that get the
# suffix too.
# A program that another source includes (progs/<prog>_subprogs.c, say)
# gets the same treatment for that source; so do the programs that
# include a header the patch names instead (progs/profiler.inc.h, giving
# profiler_assert.inc.h), which has no skeleton of its own.
# convert/prog_tests/ holds tests of the converted programs that the tree
# has no counterpart of.
# Prints the derived tests and those.
#   convert.sh KSRC OUT
source "$(dirname "$0")/lib.sh"

st=$1/tools/testing/selftests/bpf
out=$2
mkdir -p "$out/progs" "$out/prog_tests"
for p in "$REPO"/convert/*.patch; do
	prog=$(basename "$p" .patch)
	# The file the patch names, and its converted name: _assert before
	# the first dot, so that the build sees the same kind of file
	file=$(sed -n 's|^+++ [^/]*/progs/\([^[:space:]]*\).*|\1|p' "$p" | head -n 1)
	[ -f "$st/progs/$file" ] || die "convert/$prog.patch names no file of progs/"
	conv=${file%%.*}_assert.${file#*.}
	patch -s -o "$out/progs/$conv.new" "$st/progs/$file" "$p" ||
		die "convert/$prog.patch does not apply"
	mv "$out/progs/$conv.new" "$out/progs/$conv"
	# progs/ files that include it build a converted twin too; the
	# skeletons to rename are theirs, and the file's if it is a program
	names=
	[[ $file == *.c ]] && names=${file%.c}
	for inc in $(grep -lF "#include \"$file\"" "$st"/progs/*.c 2>/dev/null); do
		name=$(basename "$inc" .c)
		sed "s/#include \"${file//./\\.}\"/#include \"$conv\"/" "$inc" \
			> "$out/progs/${name}_assert.c"
		names+="${names:+|}$name"
	done
	[ -n "$names" ] || die "convert/$prog.patch: no program of progs/ includes $file"
	while read -r t globals; do
		[ -n "$t" ] || continue
		# skeleton names (also as prefixes: <name>__open()), the test
		# and the globals the line names after it (which the derived
		# test would define twice in test_progs), not the program's
		# headers
		sed -E -e "s/\\b($names|test_$t${globals:+|${globals// /|}})(__|\\b)/\\1_assert\\2/g" \
			-e 's/_assert\.h"/.h"/' \
			"$st/prog_tests/$t.c" > "$out/prog_tests/${t}_assert.c"
		echo "${t}_assert"
	done < "$REPO/convert/$prog.tests"
done
# Tests of the converted programs that the tree has no counterpart of
for t in "$REPO"/convert/prog_tests/*.c; do
	[ -e "$t" ] || continue
	cp "$t" "$out/prog_tests/"
	basename "$t" .c
done
