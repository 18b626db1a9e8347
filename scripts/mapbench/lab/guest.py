"""What a guest does under LAVA: /init mounts what the local guest mounts
and waits at a shell prompt; LAVA's test shell then runs /mapbench-job,
which runs the boot's job as a local guest does. LAVA returns nothing but
its job log, so each result file comes back in it base64-encoded between
markers (byte-exact: the log escapes quotes), and each measured run's
figure is also a LAVA test case with its measurement and unit."""
from ..guest.initramfs import RUN_JOB, SETUP, STEPS
from .job import JOB_STEP, PROMPT

# The guest as a local one (its command line, quiet included, and its
# console), waiting for LAVA's test shell. The shell reads the console with
# no controlling terminal, as a local guest's /init runs: a session with one
# (setsid cttyhack) cost htab-lookup 0.014% more instructions per op inside
# the timed windows (Debian's 6.12, icount), about 540 a timer tick.
INIT = SETUP + f"""export PS1='{PROMPT}'
exec sh
"""


# send NAME FILE: the file on the console, with its size and digest (a line
# changed on the way is caught); figure CASE RC FILE: the run's
# test case (summary.figure's mean and unit; LAVA's units take no spaces).
REPORT = r"""send() {
	echo "MAPBENCH-B64 $1 $(wc -c < "$2") $(sha256sum < "$2" | cut -d' ' -f1)"
	base64 "$2"
	echo "MAPBENCH-B64-END $1"
}
figure() {
	[ "$1" = - ] && return
	case "$2" in 0) ;; 2) lava-test-case "$1" --result skip; return ;;
	*) lava-test-case "$1" --result fail; return ;; esac
	set -- "$1" $(awk '
		/^ *"figure": \{/ { in_figure = 1; next }
		in_figure && /"mean":/ { v = $2; sub(/,$/, "", v) }
		in_figure && /"unit":/ { u = $0; sub(/^[^:]*: *"/, "", u); sub(/",?$/, "", u); gsub(/ /, "", u) }
		in_figure && /^ *\}/ { if (v != "" && u != "") print v, u; exit }' "$3")
	if [ $# -eq 3 ]; then
		lava-test-case "$1" --result pass --measurement "$2" --units "$3"
	else
		lava-test-case "$1" --result pass
	fi
}
"""


JOB = "#!/bin/sh\n" + REPORT + STEPS + RUN_JOB


def files():
    """The initramfs's /init and its extra executables under LAVA."""
    return INIT, {JOB_STEP.lstrip("/"): JOB}
