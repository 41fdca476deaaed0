#!/bin/sh
# A Nim referee for the referee protocol, written from docs/referee.md alone: three heaps
# of 3, 4 and 5 stones; a move is "HEAP COUNT" (heap 0-2, count 1-9): take COUNT stones from
# HEAP, no more than it holds. Whoever takes the last stone wins (scores 1 0 or 0 1).
# Features write_lines and no_last_move: the player about to move is told the heaps.
h0=3 h1=4 h2=5 turn=0
end_block() { echo write_end; }
show() { echo "$turn heaps $h0 $h1 $h2"; end_block; }
echo "feature write_lines"
echo "feature no_last_move"
echo "feature_end"
read -r n || exit 0
read -r a || exit 0
read -r b || exit 0
show
while IFS= read -r line; do
	case "$line" in
	"$turn "[0-2]" "[1-9]) ;;
	*) echo invalid; end_block; continue ;;
	esac
	set -- $line
	eval "left=\$h$2"
	if [ "$3" -gt "$left" ]; then
		echo invalid; end_block; continue
	fi
	eval "h$2=$((left - $3))"
	if [ $((h0 + h1 + h2)) -eq 0 ]; then
		echo "valid end"; end_block
		if [ "$turn" -eq 0 ]; then s0=1 s1=0; else s0=0 s1=1; fi
		echo "$s0 $s1"
		continue
	fi
	turn=$((1 - turn))
	echo valid; show
done
exit 0
