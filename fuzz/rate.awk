# rate.awk summarizes one `go test -fuzz` campaign for `make fuzz`: it passes
# the engine's output through and, at the line "exit N" appended after it,
# prints the campaign's length, its mean rate, its slowest reported interval
# and its longest stretch without a single execution, then exits with N, or
# with 1 if the engine stalled for 30 s or more (the engine is meant to keep
# fuzzing; a stall means it is stuck minimizing or on one slow input).
/^fuzz: elapsed: [0-9hms]+, execs: / {
	print; fflush()
	t = secs($3)
	n = $5 + 0
	r = $6; sub(/^\(/, "", r); sub(/\/sec\),?$/, "", r); r += 0
	if (!seen) { seen = 1; lastT = t; lastN = n; minR = -1 }
	if (n != lastN) { lastN = n; lastT = t }
	if (t - lastT > stall) stall = t - lastT
	# The last line reports a partial interval: each rate counts only once
	# a later line shows its interval was complete.
	if (havePrev && (minR < 0 || prevR < minR)) minR = prevR
	if (t > 0) { havePrev = 1; prevR = r }
	endT = t; endN = n
	next
}
/^exit [0-9]+$/ {
	status = $2 + 0
	if (seen && endT > 0) {
		printf "campaign: %ds, %d execs, mean %d execs/s, slowest interval %d execs/s, longest stall %ds\n", endT, endN, endN / endT, (minR < 0 ? 0 : minR), stall
		if (stall >= 30) { print "campaign: the engine stalled for 30 s or more"; if (status == 0) status = 1 }
	} else {
		print "campaign: no fuzzing interval reported (gathering the baseline coverage took the whole FUZZTIME)"
	}
	exit status
}
{ print; fflush() }

# secs converts the engine's "1h2m3s," to seconds.
function secs(s,    total, num, i, c) {
	total = 0; num = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c ~ /[0-9]/) num = num * 10 + c
		else if (c == "h") { total += num * 3600; num = 0 }
		else if (c == "m") { total += num * 60; num = 0 }
		else if (c == "s") { total += num; num = 0 }
	}
	return total
}
